/* Time and spinning helpers every part of the library shares: timespec <-> nanoseconds,
 * a clock read in nanoseconds, the timespec check the POSIX calls make, and the
 * spin-wait hint. All static inline (the loop's turn and the queue's fast paths use
 * them). Named clock.h, not time.h: src/ is on the include path, and a src/sys/time.h
 * would stand in for the system's <sys/time.h>.
 */
#ifndef VIGIL_SYS_CLOCK_H
#define VIGIL_SYS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define VIGIL__NS_PER_S 1000000000LL

/* A timespec as nanoseconds (no overflow check: callers pass clock readings or
 * timespecs they checked). */
static inline int64_t vigil__ts_to_ns(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * VIGIL__NS_PER_S + ts->tv_nsec;
}

/* Nanoseconds (>= 0) as a timespec. */
static inline struct timespec vigil__ns_to_ts(int64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / VIGIL__NS_PER_S);
    ts.tv_nsec = (long)(ns % VIGIL__NS_PER_S);
    return ts;
}

/* The clock now, in nanoseconds (vDSO for the clocks the library reads: no system call). */
static inline int64_t vigil__clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return vigil__ts_to_ns(&ts);
}

/* What POSIX's timed calls accept: tv_sec >= 0 and 0 <= tv_nsec < 1e9. */
static inline bool vigil__ts_valid(const struct timespec *ts)
{
    return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < VIGIL__NS_PER_S;
}

/* A spin-wait hint: lets the sibling hyperthread run and saves power while spinning. */
static inline void vigil__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
