/* A standalone driver for mq_fuzz.c where libFuzzer is not available (gcc). First it
 * replays the inputs named on the command line (files, or directories of them: ctest
 * passes fuzz/crashes/mq and fuzz/corpus/mq, so every kept input also runs under gcc's
 * sanitizers, with or without clang). Then random
 * inputs from a fixed seed (a configuration byte, then 8-byte records: see mq_fuzz.c),
 * half of them sound sequences the model checks, half with a few scribbles at random
 * places, for a fixed number of rounds (or VIGIL_FUZZ_ROUNDS). Runs under ASan/UBSan
 * in make test; any crash, sanitizer report, model disagreement or abort is the
 * failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rand.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern unsigned long mq_fuzz_ok, mq_fuzz_badmsg, mq_fuzz_other, mq_fuzz_unattached, mq_fuzz_checked;

/* Operation kinds (mq_fuzz.c's numbering) weighted: mostly sends and receives; deaths,
 * which each cost a recovery (a walk of every priority), and full checks now and then. */
static unsigned pick_op(uint8_t x)
{
    static const uint8_t weight[14] = {12, 2, 12, 2, 4, 1, 3, 1, 1, 1, 3, 2, 1, 2};
    return fuzz_pick(weight, 14, x);
}

static long replayed;

static void run_one(uint8_t *in, size_t n)
{
    LLVMFuzzerTestOneInput(in, n);
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++)
        replayed += fuzz_replay(argv[a], run_one, 0);
    if (argc > 1)
        printf("%ld kept inputs replayed\n", replayed);
    const char *e = getenv("VIGIL_FUZZ_ROUNDS");
    long rounds = e ? atol(e) : 30000;
    const char *seed = getenv("VIGIL_FUZZ_SEED"); /* other seeds by hand; ctest uses the fixed one */
    fuzz_rng = seed && atoll(seed) ? (uint64_t)atoll(seed) : 0x9e3779b97f4a7c15ULL;
    uint8_t in[1 + 8 * 64];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long i = 0;
    for (; i < rounds; i++) {
        size_t n = 1 + fuzz_rand() % 64;
        /* Half sound (no scribble), half with 1..3 scribbles, the first of them
         * before the first operation half of the time. */
        uint64_t shape = fuzz_rand();
        size_t scribbles = (shape & 1) ? 1 + (shape >> 1) % 3 : 0;
        in[0] = (uint8_t)(shape >> 8);
        for (size_t k = 0; k < n; k++) {
            uint64_t v = fuzz_rand();
            uint8_t *r = in + 1 + k * 8;
            for (int b = 0; b < 8; b++)
                r[b] = (uint8_t)(v >> (b * 8));
            r[0] = (uint8_t)(128 + pick_op(r[0]));
            /* Operations on few priorities and short messages, so lists fill and
             * messages meet their neighbours. */
            r[4] &= 0x3f;
            if (r[4] & 0x30)
                r[4] = 0;
            if (r[2] & 0x80)
                r[2] &= 3;
        }
        for (size_t s = 0; s < scribbles; s++) {
            size_t k = (s == 0 && (shape & 0x10000)) ? 0 : fuzz_rand() % n;
            in[1 + k * 8] &= 0x7f;
        }
        LLVMFuzzerTestOneInput(in, 1 + n * 8);
        if ((i & 1023) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if (t1.tv_sec - t0.tv_sec > 10)
                break; /* enough on a slow machine */
        }
    }
    printf("%ld inputs, no crash: %lu images refused at attach; operations: %lu ok, %lu EBADMSG, "
           "%lu other errors; %lu invariant checks\n", i, mq_fuzz_unattached, mq_fuzz_ok, mq_fuzz_badmsg,
           mq_fuzz_other, mq_fuzz_checked);
    if (!mq_fuzz_badmsg || !mq_fuzz_ok || !mq_fuzz_checked) {
        fprintf(stderr, "the harness did not reach both the good and the corrupt paths\n");
        return 1;
    }
    return 0;
}
