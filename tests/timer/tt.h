/* Helpers of the timer tests. */
#ifndef VIGIL_TT_H
#define VIGIL_TT_H

#include "vt.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline int64_t tt_now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* xorshift: reproducible pseudo-random numbers (the seed is printed by the tests that
 * use it, so a failure can be replayed). */
static inline uint64_t tt_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

#define TT_MS 1000000LL
#define TT_US 1000LL

#endif
