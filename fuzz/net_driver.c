/* A standalone driver for net_fuzz.c where libFuzzer is not available (gcc): ctest's
 * net_fuzz.<backend>. First it replays every kept input (fuzz/crashes/net, then
 * fuzz/corpus/net: NET_FUZZ_KEPT, or the files and directories named on the command
 * line), each on the backend VIGIL_BACKEND names when set. Then random inputs from a
 * fixed seed (VIGIL_FUZZ_SEED for others) on that backend: a configuration byte (pool,
 * socket kind -- TCP, AF_UNIX or UDP -- and buffer sizes at random), then 8 to 160 operations, weighted towards
 * sends, receives and turns, for VIGIL_FUZZ_ROUNDS inputs (default 2000) or 60 s. Under
 * ASan/UBSan in make test; a crash, a sanitizer report or a model disagreement (abort)
 * is the failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern unsigned long net_fuzz_inputs, net_fuzz_calls, net_fuzz_bytes, net_fuzz_refused, net_fuzz_cancelled,
    net_fuzz_backend[4], net_fuzz_dgrams;

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int backend_bits = -1; /* VIGIL_BACKEND as the input's bits 0-1, or -1 */

/* VIGIL_FUZZ_SAVE=path: each input is written there before it runs, so the one that
 * fails is left behind (replay it: net_fuzz path). */
static void run(uint8_t *in, size_t n)
{
    if (backend_bits >= 0 && n > 0)
        in[0] = (uint8_t)((in[0] & ~3u) | (unsigned)backend_bits);
    const char *save = getenv("VIGIL_FUZZ_SAVE");
    if (save) {
        FILE *f = fopen(save, "wb");
        if (f) {
            fwrite(in, 1, n, f);
            fclose(f);
        }
    }
    LLVMFuzzerTestOneInput(in, n);
}

static long replayed;

/* Operation codes (net_fuzz.c's numbering) weighted: sends, receives and turns most. */
static uint8_t pick_op(uint64_t x)
{
    static const uint8_t weight[16] = {6, 6, 3, 2, 5, 3, 4, 2, 4, 4, 4, 2, 1, 1, 1, 2};
    unsigned total = 0, k = 0;
    for (unsigned i = 0; i < 16; i++)
        total += weight[i];
    unsigned v = (unsigned)(x % total);
    while (v >= weight[k])
        v -= weight[k++];
    return (uint8_t)k;
}

int main(int argc, char **argv)
{
    const char *b = getenv("VIGIL_BACKEND");
    if (b && !strcmp(b, "uring"))
        backend_bits = 0;
    else if (b && !strcmp(b, "epoll"))
        backend_bits = 1;
    else if (b && !strcmp(b, "poll"))
        backend_bits = 2;
    if (argc > 1) {
        for (int a = 1; a < argc; a++)
            replayed += fuzz_replay(argv[a], run, 0);
    } else {
#ifdef NET_FUZZ_KEPT
        char kept[8192];
        snprintf(kept, sizeof kept, "%s", NET_FUZZ_KEPT);
        for (char *save = NULL, *p = strtok_r(kept, ":", &save); p; p = strtok_r(NULL, ":", &save))
            replayed += fuzz_replay(p, run, 1);
#endif
    }
    printf("%ld kept inputs replayed\n", replayed);
    const char *e = getenv("VIGIL_FUZZ_ROUNDS");
    long rounds = e ? atol(e) : 2000;
    const char *seed = getenv("VIGIL_FUZZ_SEED");
    if (seed && atoll(seed))
        rng = (uint64_t)atoll(seed);
    uint8_t in[1 + 4 * 160];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long i = 0;
    for (; i < rounds; i++) {
        size_t n = 8 + next() % 153;
        in[0] = (uint8_t)next();
        for (size_t k = 0; k < n; k++) {
            uint64_t v = next();
            uint8_t *r = in + 1 + 4 * k;
            r[0] = pick_op(v);
            r[1] = (uint8_t)(v >> 8);
            r[2] = (uint8_t)(v >> 16);
            r[3] = (uint8_t)(v >> 24);
            if (r[0] <= 3 && (v >> 32) % 4)
                r[3] &= 3; /* mostly sends of up to ~1000 bytes: many in flight */
        }
        run(in, 1 + 4 * n);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (t1.tv_sec - t0.tv_sec > 60)
            break; /* enough on a slow machine */
    }
    printf("%ld random inputs on %s: no crash, every check held; %lu calls (%lu refused as the model said), "
           "%lu bytes received and checked (%lu datagrams), %lu requests ended cancelled; loops: %lu uring, %lu epoll, "
           "%lu poll\n",
           i, b ? b : "(each input's own)", net_fuzz_calls, net_fuzz_refused, net_fuzz_bytes, net_fuzz_dgrams,
           net_fuzz_cancelled, net_fuzz_backend[0], net_fuzz_backend[1], net_fuzz_backend[2]);
    if (!net_fuzz_bytes || !net_fuzz_refused || !net_fuzz_cancelled || (rounds >= 100 && !net_fuzz_dgrams)) {
        fprintf(stderr, "the driver did not reach data, datagrams, refusals and cancellations\n");
        return 1;
    }
    return 0;
}
