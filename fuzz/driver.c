/* A standalone driver for mq_fuzz.c where libFuzzer is not available (gcc): random
 * inputs from a fixed seed, biased toward few scribbles and many operations, for a
 * fixed number of rounds (or VIGIL_FUZZ_ROUNDS). Runs under ASan/UBSan in make test;
 * any crash, sanitizer report or abort is the failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern unsigned long mq_fuzz_ok, mq_fuzz_badmsg, mq_fuzz_other, mq_fuzz_unattached;

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    const char *e = getenv("VIGIL_FUZZ_ROUNDS");
    long rounds = e ? atol(e) : 30000;
    const char *seed = getenv("VIGIL_FUZZ_SEED"); /* other seeds by hand; ctest uses the fixed one */
    if (seed && atoll(seed))
        rng = (uint64_t)atoll(seed);
    uint8_t in[8 * 64];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long i = 0;
    for (; i < rounds; i++) {
        size_t n = 1 + next() % 64;
        size_t scribbles = next() % 4; /* 0..3 scribbles, the rest operations */
        for (size_t k = 0; k < n; k++) {
            uint64_t v = next();
            for (int b = 0; b < 8; b++)
                in[k * 8 + b] = (uint8_t)(v >> (b * 8));
            if (k < scribbles)
                in[k * 8] &= 0x7f;
            else
                in[k * 8] |= 0x80;
        }
        LLVMFuzzerTestOneInput(in, n * 8);
        if ((i & 1023) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if (t1.tv_sec - t0.tv_sec > 10)
                break; /* enough on a slow machine */
        }
    }
    printf("%ld inputs, no crash: %lu images refused at attach; operations: %lu ok, %lu EBADMSG, "
           "%lu other errors\n", i, mq_fuzz_unattached, mq_fuzz_ok, mq_fuzz_badmsg, mq_fuzz_other);
    if (!mq_fuzz_badmsg || !mq_fuzz_ok) {
        fprintf(stderr, "the harness did not reach both the good and the corrupt paths\n");
        return 1;
    }
    return 0;
}
