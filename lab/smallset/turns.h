/* Shared by the loop benchmarks (smallset, iteration): time batches of loop turns for a
 * time budget, and print one record whose "samples" are the per-batch ns per turn.
 *
 * Why samples: a benchmark alternates systems in rounds (one short program run per
 * system per round, see bench.py), so each program prints one record per round.
 * lab/run.py pools the records of one series into one (median and p99 over every
 * batch of every round), so results.jsonl holds one figure per series, never a
 * best-of-rounds.
 */
#ifndef VIGIL_LAB_TURNS_H
#define VIGIL_LAB_TURNS_H

#include "bench.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Command-line options common to the loop benchmarks. */
struct turns_opt {
    int64_t budget_ns; /* measuring time of one case in this run */
    const char *backend;
    int fds;
    long count; /* > 0: counting run (see turns_mark) */
};

static inline void turns_usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--ms measuring-time] [--backend uring|epoll|poll] [--fds N] [--count turns]\n",
            prog);
    exit(2);
}

static inline struct turns_opt turns_parse(int argc, char **argv)
{
    struct turns_opt o = {bench_quick() ? 100000000 : 500000000, NULL, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            turns_usage(argv[0]);
        if (!strcmp(argv[i], "--ms"))
            o.budget_ns = atoll(argv[++i]) * 1000000;
        else if (!strcmp(argv[i], "--backend"))
            o.backend = argv[++i];
        else if (!strcmp(argv[i], "--fds"))
            o.fds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--count"))
            o.count = atol(argv[++i]);
        else
            turns_usage(argv[0]);
    }
    return o;
}

/* Samples of one case: ns per turn of each batch. */
struct turns_samples {
    double *v;
    long n, cap;
};

static inline void turns_samples_init(struct turns_samples *s, long cap)
{
    s->v = (double *)malloc((size_t)cap * sizeof *s->v);
    s->n = 0;
    s->cap = s->v ? cap : 0;
    if (!s->v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static inline void turns_samples_add(struct turns_samples *s, double x)
{
    if (s->n < s->cap)
        s->v[s->n++] = x;
}

/* Prints one record: value = p50 of the samples, then the samples themselves (run.py
 * pools and drops them). extra: further keys as a JSON fragment, or "". Sorts s. */
static inline void turns_emit(const char *bench, const char *system, const char *cas, const char *extra,
                              struct turns_samples *s)
{
    if (s->n == 0)
        return;
    double *copy = (double *)malloc((size_t)s->n * sizeof *copy);
    if (!copy)
        exit(1);
    memcpy(copy, s->v, (size_t)s->n * sizeof *copy);
    struct bench_stats st = bench_stats(copy, s->n);
    free(copy);
    printf("{\"bench\":\"%s\",\"system\":\"%s\",\"case\":\"%s\",\"metric\":\"ns_per_turn\",\"value\":%.4f,"
           "\"p50\":%.4f,\"p99\":%.4f,\"mean\":%.4f,\"n\":%ld%s%s,\"samples\":[",
           bench, system, cas, st.p50, st.p50, st.p99, st.mean, st.n, extra && *extra ? "," : "",
           extra ? extra : "");
    for (long i = 0; i < s->n; i++)
        printf("%s%.2f", i ? "," : "", s->v[i]);
    printf("]}\n");
    fflush(stdout);
}

/* Counting runs (lab/smallset/count.py runs the program under strace with --count N):
 * the program prints "count-series {keys}" on stdout for each series, then makes its N
 * turns between two turns_mark() calls. getppid is the marker: no loop library calls it,
 * and glibc does not cache it. */
static inline void turns_mark(void)
{
    fflush(stdout);
    syscall(SYS_getppid);
}

static inline void turns_count_series(const char *bench, const char *system, const char *cas, const char *extra)
{
    printf("count-series {\"bench\":\"%s\",\"system\":\"%s\",\"case\":\"%s\"%s%s}\n", bench, system, cas,
           extra && *extra ? "," : "", extra ? extra : "");
}

/* Raises the soft open-file limit to the hard one (benchmarks with thousands of fds). */
static inline int turns_raise_nofile(long want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            return -errno;
    }
    return (long)rl.rlim_cur >= want ? 0 : -EMFILE;
}

#endif
