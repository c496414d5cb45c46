/* The random driver of net_fuzz.c where libFuzzer is not available (gcc): ctest's
 * net_fuzz.<backend>. It replays every kept input (fuzz/crashes/net, then
 * fuzz/corpus/net, or the files and directories named on the command line), then runs
 * random inputs (rand_driver.h): a configuration byte (pool, socket kind -- TCP, AF_UNIX
 * or UDP -- and buffer sizes at random), then 8 to 160 operations, weighted towards
 * sends, receives and turns. Under ASan/UBSan in make test; a crash, a sanitizer report
 * or a model disagreement (abort) is the failure. */
#include "rand_driver.h"

extern unsigned long net_fuzz_inputs, net_fuzz_calls, net_fuzz_bytes, net_fuzz_refused, net_fuzz_cancelled,
    net_fuzz_backend[4], net_fuzz_dgrams, net_fuzz_reactions, net_fuzz_resets, net_fuzz_kills, net_fuzz_remote_bytes;

/* Operation codes (net_fuzz.c's numbering) weighted: sends, receives and turns most. */
static const uint8_t weight[16] = {6, 6, 3, 2, 5, 3, 4, 2, 4, 4, 4, 2, 1, 4, 1, 2};

static void tweak(uint8_t r[4], uint64_t v)
{
    if (r[0] <= 3 && (v >> 32) % 4)
        r[3] &= 3; /* mostly sends of up to ~1000 bytes: many in flight */
}

static int report(long inputs, const char *backend)
{
    printf("%ld random inputs on %s: no crash, every check held; %lu calls (%lu refused as the model said), "
           "%lu bytes received and checked (%lu datagrams), %lu requests ended cancelled, %lu calls from inside "
           "callbacks, %lu resets, %lu peers killed in a child process (%lu bytes read there and checked); loops: %lu uring, %lu epoll, %lu poll\n",
           inputs, backend, net_fuzz_calls, net_fuzz_refused, net_fuzz_bytes, net_fuzz_dgrams, net_fuzz_cancelled,
           net_fuzz_reactions, net_fuzz_resets, net_fuzz_kills, net_fuzz_remote_bytes, net_fuzz_backend[0], net_fuzz_backend[1], net_fuzz_backend[2]);
    if (!net_fuzz_bytes || !net_fuzz_refused || !net_fuzz_cancelled || (inputs >= 100 && !net_fuzz_dgrams) ||
        (inputs >= 100 && (!net_fuzz_reactions || !net_fuzz_resets || !net_fuzz_kills))) {
        fprintf(stderr, "the driver did not reach data, datagrams, refusals, cancellations, reactions, resets and killed peers\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct rand_harness h = {RAND_KEPT, 160, weight, tweak, report};
    return rand_drive(&h, argc, argv);
}
