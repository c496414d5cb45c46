/* Shared by the loop benchmarks (smallset, iteration): their options, batches of loop
 * turns timed for a time budget, one record per round whose "samples" are the per-batch
 * ns per turn (pooled by run.py, lab/common/rounds.h), and their counting runs
 * (lab/common/count.h). */
#ifndef VIGIL_LAB_TURNS_H
#define VIGIL_LAB_TURNS_H

#include "bench.h"
#include "count.h"
#include "rounds.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Command-line options common to the loop benchmarks. */
struct turns_opt {
    int64_t budget_ns; /* measuring time of one case in this run */
    const char *backend;
    int fds;
    long count; /* > 0: counting run (see turns_count_begin) */
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

/* Samples of one case (ns per turn of each batch), at most cap of them. */
static inline void turns_samples_init(struct rounds_samples *s, long cap)
{
    s->v = (double *)malloc((size_t)cap * sizeof *s->v);
    s->n = 0;
    s->cap = s->v ? cap : 0;
    if (!s->v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static inline void turns_samples_add(struct rounds_samples *s, double x)
{
    if (s->n < s->cap)
        s->v[s->n++] = x;
}

/* Prints one round's ns_per_turn record with its samples (lab/common/rounds.h). */
static inline void turns_emit(const char *bench, const char *system, const char *cas, const char *extra,
                              const struct rounds_samples *s)
{
    char keys[512];
    rounds_emit_samples(rounds_keys(keys, sizeof keys, bench, system, cas, extra), "ns_per_turn", s);
}

/* Counting runs (lab/common/count.h): series id of syscalls_per_turn over `turns` turns,
 * made between turns_count_begin() and count_end(id). */
static inline void turns_count_begin(int id, const char *bench, const char *system, const char *cas, const char *extra,
                                     long turns)
{
    char keys[512];
    count_begin(id, "syscalls_per_turn", rounds_keys(keys, sizeof keys, bench, system, cas, extra), turns, NULL, 0);
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
