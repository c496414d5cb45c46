/* The fuzz drivers' random numbers (driver.c, rand_driver.h): xorshift64, seeded by the
 * driver (a fixed seed each, VIGIL_FUZZ_SEED for others), and a pick weighted by a
 * table. Deterministic: ctest's random runs are the same on every machine. */
#ifndef VIGIL_FUZZ_RAND_H
#define VIGIL_FUZZ_RAND_H

#include <stdint.h>

static uint64_t fuzz_rng;

static inline uint64_t fuzz_rand(void)
{
    fuzz_rng ^= fuzz_rng << 13;
    fuzz_rng ^= fuzz_rng >> 7;
    fuzz_rng ^= fuzz_rng << 17;
    return fuzz_rng;
}

/* An index in [0, n) drawn by x, each as often as its weight. */
static inline unsigned fuzz_pick(const uint8_t *weight, unsigned n, uint64_t x)
{
    unsigned total = 0, k = 0;
    for (unsigned i = 0; i < n; i++)
        total += weight[i];
    unsigned v = (unsigned)(x % total);
    while (v >= weight[k])
        v -= weight[k++];
    return k;
}

#endif
