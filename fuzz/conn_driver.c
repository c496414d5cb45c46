/* The random driver of conn_fuzz.c where libFuzzer is not available (gcc): ctest's
 * conn_fuzz.<backend>. It replays every kept input (fuzz/crashes/conn, then
 * fuzz/corpus/conn, or the files and directories named on the command line), then runs
 * random inputs (rand_driver.h): a configuration byte (TCP or AF_UNIX, backlog,
 * blocking or not at random), then 8 to 120 operations, weighted towards connects,
 * turns and closes. Under ASan/UBSan in make test; a crash, a sanitizer report or a
 * model disagreement (abort) is the failure. */
#include "rand_driver.h"

extern unsigned long conn_fuzz_inputs, conn_fuzz_calls, conn_fuzz_refused, conn_fuzz_connected, conn_fuzz_accepted,
    conn_fuzz_timedout, conn_fuzz_cancelled, conn_fuzz_conn_refused, conn_fuzz_emfile, conn_fuzz_backend[4];

/* Operation codes (conn_fuzz.c's numbering). */
static const uint8_t weight[16] = {5, 5, 4, 2, 3, 2, 3, 2, 4, 4, 4, 1, 1, 2, 1, 2};

static int report(long inputs, const char *backend)
{
    printf("%ld random inputs on %s: no crash, every check held; %lu calls (%lu refused as the model said); "
           "connects: %lu connected, %lu refused, %lu timed out, %lu cancelled; %lu accepted, %lu -EMFILE; "
           "loops: %lu uring, %lu epoll, %lu poll\n",
           inputs, backend, conn_fuzz_calls, conn_fuzz_refused, conn_fuzz_connected, conn_fuzz_conn_refused,
           conn_fuzz_timedout, conn_fuzz_cancelled, conn_fuzz_accepted, conn_fuzz_emfile, conn_fuzz_backend[0],
           conn_fuzz_backend[1], conn_fuzz_backend[2]);
    if (inputs >= 100 && (!conn_fuzz_connected || !conn_fuzz_accepted || !conn_fuzz_conn_refused ||
                          !conn_fuzz_cancelled || !conn_fuzz_refused || !conn_fuzz_emfile)) {
        fprintf(stderr, "the driver did not reach connects, accepts, refusals, cancels and -EMFILE\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct rand_harness h = {RAND_KEPT, 120, weight, NULL, report};
    return rand_drive(&h, argc, argv);
}
