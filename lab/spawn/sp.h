/* spawn: what every program of the benchmark shares. A program starts /bin/true
 * (stdio inherited, every other fd closed, signal mask empty and dispositions default
 * in the child) and reaps it, keeping `inflight` children running, after growing its
 * own resident memory to parent_rss_mb (every page touched). For each in-flight count
 * it prints three records: spawns_per_s and cpu_ns_per_spawn (the parent's own CPU,
 * user + system of every thread, not the children's: CLOCK_PROCESS_CPUTIME_ID), as
 * totals marked "pool": "median" (run.py keeps the median round's figure and the
 * extreme rounds as min and max: one round a neighbour on the shared VM stalls for a
 * few ms moves a sum over the rounds, not a median), and latency_us (start call to
 * exit callback), with its samples.
 *
 *   prog --rss MB --inflight 1,32 --ms T [--case posix_spawn|fork]
 */
#ifndef SP_H
#define SP_H

#include "rounds.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SP_PROG "/bin/true"
#define SP_MAX_INFLIGHT 64

struct sp_args {
    int rss_mb;
    int inflight[8];
    int n_inflight;
    int ms;
    const char *cas;
};

static inline struct sp_args sp_parse(int argc, char **argv)
{
    struct sp_args a = {16, {1, 32}, 2, 300, ""};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rss"))
            a.rss_mb = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ms"))
            a.ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--case"))
            a.cas = argv[i + 1];
        else if (!strcmp(argv[i], "--inflight")) {
            a.n_inflight = 0;
            for (char *s = argv[i + 1]; *s && a.n_inflight < 8;) {
                a.inflight[a.n_inflight++] = atoi(s);
                s = strchr(s, ',');
                if (!s)
                    break;
                s++;
            }
        }
    }
    for (int i = 0; i < a.n_inflight; i++)
        if (a.inflight[i] < 1 || a.inflight[i] > SP_MAX_INFLIGHT) {
            fprintf(stderr, "inflight %d out of range\n", a.inflight[i]);
            exit(2);
        }
    return a;
}

/* Grows the resident memory to about mb MiB (the program's own pages: a bit less). */
static inline void sp_grow(int mb)
{
    size_t len = (size_t)mb << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    /* No transparent huge pages: 4 KiB pages, as a real heap mostly has, so the page
     * tables fork copies are the size of a real program's. */
    madvise(p, len, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < len; i += 4096)
        p[i] = (char)i | 1;
}

/* One measured point. The program calls sp_started()/sp_ended() around each child,
 * and sp_more() says whether to start another. */
struct sp_point {
    int64_t t0, t_end, cpu0, cpu_end;
    long started, ended, counted;
    long warmup, min_count; /* children ended before measuring; fewest counted */
    int measuring, closed;
    int64_t ms;
    struct rounds_samples lat;
};

/* A point: a warm-up of 4 + min(inflight, 8) children ended (all inflight are started
 * at once), then at least ms of measuring and at least 8 children counted (fork and
 * libuv at 1 GiB manage a few a second). */
static inline void sp_begin(struct sp_point *pt, int ms, int inflight)
{
    free(pt->lat.v);
    memset(pt, 0, sizeof *pt);
    pt->ms = ms;
    pt->warmup = 4 + (inflight < 8 ? inflight : 8);
    pt->min_count = 8;
}

/* After a child's exit was learned: start_ns is when its start call began. */
static inline void sp_ended(struct sp_point *pt, int64_t start_ns)
{
    int64_t now = bench_now_ns();
    pt->ended++;
    if (pt->measuring && !pt->closed && start_ns >= pt->t0) {
        rounds_add(&pt->lat, (double)(now - start_ns) / 1000.0);
        pt->counted++;
    }
    if (!pt->measuring && pt->ended >= pt->warmup) {
        pt->measuring = 1;
        pt->t0 = bench_now_ns();
        pt->cpu0 = bench_cpu_ns();
        pt->counted = 0;
    } else if (pt->measuring && !pt->closed && now - pt->t0 >= pt->ms * 1000000 && pt->counted >= pt->min_count) {
        pt->closed = 1;
        pt->t_end = now;
        pt->cpu_end = bench_cpu_ns();
    }
}

/* Start another child? (no more once the window closed: the rest drain) */
static inline int sp_more(const struct sp_point *pt)
{
    return !pt->closed;
}

static inline void sp_emit(struct sp_point *pt, const char *system, const char *cas, int inflight, int rss_mb,
                           const char *more)
{
    char extra[192], keys[512];
    snprintf(extra, sizeof extra, "\"inflight\":%d,\"parent_rss_mb\":%d%s%s", inflight, rss_mb, more ? "," : "",
             more ? more : "");
    rounds_keys(keys, sizeof keys, "spawn", system, cas, extra);
    double secs = (double)(pt->t_end - pt->t0) / 1e9;
    double n = (double)pt->counted;
    printf("{%s,\"metric\":\"spawns_per_s\",\"value\":%.4f,\"total\":%ld,\"per\":%.6f,\"pool\":\"median\"}\n", keys,
           n / secs, pt->counted, secs);
    printf("{%s,\"metric\":\"cpu_ns_per_spawn\",\"value\":%.1f,\"total\":%lld,\"per\":%ld,\"pool\":\"median\"}\n", keys,
           (double)(pt->cpu_end - pt->cpu0) / n, (long long)(pt->cpu_end - pt->cpu0), pt->counted);
    rounds_emit_samples(keys, "latency_us", &pt->lat);
    fprintf(stderr, "spawn %s%s%s inflight=%d rss=%d MiB: %.0f spawns/s, %.0f ns CPU/spawn\n", system, *cas ? " " : "",
            cas, inflight, rss_mb, n / secs, (double)(pt->cpu_end - pt->cpu0) / n);
    fflush(stdout);
}

#endif
