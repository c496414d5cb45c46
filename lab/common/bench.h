/* Shared by the lab's benchmark programs (C and C++): a clock, sample statistics and
 * the one-JSON-line-per-result output that lab/run.py collects.
 *
 * A program prints records on stdout, one per line:
 *   {"bench":"smallset","system":"vigil","case":"epoll","metric":"ns_per_turn",
 *    "value":..,"p50":..,"p99":..,"n":..,"backend":"epoll","fds":1}
 * run.py adds "run", "kernel", "machine" and "date". Progress and diagnostics go to
 * stderr. Parameters are top-level keys named as lab/README.md lists them (fds, active,
 * changes, batch, depth, delay_us, msg_bytes, pattern, file, engine).
 */
#ifndef VIGIL_BENCH_H
#define VIGIL_BENCH_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time (user + system) of the whole process, ns. */
static inline int64_t bench_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct bench_stats {
    double mean, p50, p99, min, max;
    long n;
};

/* Sorts v in place. */
static inline struct bench_stats bench_stats(double *v, long n)
{
    struct bench_stats s = {0, 0, 0, 0, 0, n};
    if (n <= 0)
        return s;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    double sum = 0;
    for (long i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / (double)n;
    s.p50 = v[n / 2];
    s.p99 = v[(long)((double)(n - 1) * 0.99)];
    s.min = v[0];
    s.max = v[n - 1];
    return s;
}

/* Quick mode (QUICK=1 in the environment, set by run.py --quick): about a second. */
static inline int bench_quick(void)
{
    const char *q = getenv("QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/* Prints one record. extra is a JSON fragment of further keys without braces, e.g.
 * "\"fds\":100,\"backend\":\"epoll\"", or NULL. value is the figure the metric names
 * (usually the median); p50/p99 are printed when n > 0. */
static inline void bench_emit(const char *bench, const char *system, const char *cas, const char *metric,
                              double value, const struct bench_stats *s, const char *extra_fmt, ...)
{
    char extra[512] = "";
    if (extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    printf("{\"bench\":\"%s\",\"system\":\"%s\",\"case\":\"%s\",\"metric\":\"%s\",\"value\":%.4f", bench,
           system, cas, metric, value);
    if (s && s->n > 0)
        printf(",\"p50\":%.4f,\"p99\":%.4f,\"mean\":%.4f,\"n\":%ld", s->p50, s->p99, s->mean, s->n);
    if (extra[0])
        printf(",%s", extra);
    printf("}\n");
    fflush(stdout);
}

#endif
