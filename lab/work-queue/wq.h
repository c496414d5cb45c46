/* work-queue: the driver both programs share (wq_vigil.c, wq_libuv.c). A program is one
 * system; it gives four calls (wq_sys_*) and the driver runs the cases:
 *
 *   empty   jobs whose function does nothing, `inflight` of them kept in flight (each
 *           completion submits the next): jobs_per_s, cpu_ns_per_job (CPU of the whole
 *           process, every thread: the pool's included), rtt_us (submit to completion
 *           callback, p50/p99);
 *   mixed   8 jobs that sleep 100 ms each, resubmitted as they end (8 always in flight),
 *           while short empty jobs are submitted one at a time: the short jobs' rtt_us.
 *
 * Each measurement follows a warm-up (the pool's threads started, caches warm). Records
 * carry their raw distribution (rounds.h) so run.py pools the rounds.
 */
#ifndef WQ_H
#define WQ_H

#include "bench.h"
#include "rounds.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WQ_MAX 256
#define WQ_SLOW 8
#define WQ_SLOW_NS 100000000 /* 100 ms */

struct wq {
    const char *system;
    const char *extra;     /* further keys, e.g. "\"backend\":\"uring\"" */
    bool mark_slow;        /* mixed: the slow jobs are marked as such (vigil: VIGIL_WORK_SLOW) */
    int64_t sub_ns[WQ_MAX + WQ_SLOW];
    bool is_slow[WQ_MAX + WQ_SLOW];
    /* the run */
    bool measuring, stopping;
    long done, inflight;   /* completed while measuring; in flight now */
    long short_done;
    struct rounds_hist hist;
    int want;              /* empty: jobs kept in flight; mixed: 1 */
};

/* What a system provides. Slot s names one job struct of the program's own. */
static void wq_sys_init(struct wq *q);
static void wq_sys_submit(struct wq *q, int slot, bool slow);
static void wq_sys_run_once(struct wq *q);
static void wq_sys_fini(struct wq *q);

/* The jobs' functions (run on a pool thread). */
static inline void wq_job_fn(bool slow)
{
    if (slow) {
        struct timespec ts = {0, WQ_SLOW_NS};
        nanosleep(&ts, NULL);
    }
}

static inline void wq_submit(struct wq *q, int slot)
{
    q->sub_ns[slot] = bench_now_ns();
    q->inflight++;
    wq_sys_submit(q, slot, q->is_slow[slot]);
}

/* Called by the system's completion callback, in the loop thread. */
static inline void wq_done(struct wq *q, int slot)
{
    int64_t now = bench_now_ns();
    q->inflight--;
    if (!q->is_slow[slot]) {
        if (q->measuring) {
            rounds_hist_add(&q->hist, now - q->sub_ns[slot]);
            q->done++;
        }
        q->short_done++;
    }
    if (!q->stopping)
        wq_submit(q, slot);
}

static inline void wq_drain(struct wq *q)
{
    q->stopping = true;
    while (q->inflight > 0)
        wq_sys_run_once(q);
    q->stopping = false;
}

/* Runs for ms after warm_ms of warm-up; returns the measured wall and CPU ns. */
static inline void wq_window(struct wq *q, int warm_ms, int ms, int64_t *wall, int64_t *cpu)
{
    int64_t t0 = bench_now_ns();
    while (bench_now_ns() - t0 < (int64_t)warm_ms * 1000000)
        wq_sys_run_once(q);
    rounds_hist_reset(&q->hist);
    q->done = 0;
    q->measuring = true;
    int64_t c0 = bench_cpu_ns(), w0 = bench_now_ns();
    while (bench_now_ns() - w0 < (int64_t)ms * 1000000)
        wq_sys_run_once(q);
    *wall = bench_now_ns() - w0;
    *cpu = bench_cpu_ns() - c0;
    q->measuring = false;
}

static inline int wq_main(int argc, char **argv, struct wq *q)
{
    const char *cas = "empty";
    int inflight[8] = {1, 64}, ninflight = 2, ms = 300;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--case"))
            cas = argv[i + 1];
        else if (!strcmp(argv[i], "--inflight"))
            ninflight = rounds_parse_list(argv[i + 1], inflight, 8);
        else if (!strcmp(argv[i], "--ms"))
            ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mark-slow"))
            q->mark_slow = atoi(argv[i + 1]) != 0;
        else {
            fprintf(stderr, "usage: %s [--case empty|mixed] [--inflight 1,64] [--ms N] [--mark-slow 0|1]\n", argv[0]);
            return 2;
        }
    }
    wq_sys_init(q);
    char keys[512], extra[256];
    if (!strcmp(cas, "empty")) {
        for (int k = 0; k < ninflight; k++) {
            int n = inflight[k] < 1 ? 1 : inflight[k] > WQ_MAX ? WQ_MAX : inflight[k];
            for (int s = 0; s < n; s++)
                wq_submit(q, s);
            int64_t wall, cpu;
            wq_window(q, ms / 4 + 20, ms, &wall, &cpu);
            wq_drain(q);
            snprintf(extra, sizeof extra, "\"inflight\":%d%s%s", n, q->extra ? "," : "", q->extra ? q->extra : "");
            rounds_keys(keys, sizeof keys, "work-queue", q->system, "empty", extra);
            rounds_emit_total(keys, "jobs_per_s", (double)q->done, (double)wall / 1e9);
            rounds_emit_total(keys, "cpu_ns_per_job", (double)cpu, (double)q->done);
            rounds_emit_hist(keys, "rtt_us", &q->hist, 1000.0);
            fprintf(stderr, "%s empty inflight %d: %.0f jobs/s, %.0f ns CPU/job\n", q->system, n,
                    (double)q->done * 1e9 / (double)wall, (double)cpu / (double)(q->done ? q->done : 1));
        }
    } else if (!strcmp(cas, "mixed")) {
        for (int s = 0; s < WQ_SLOW; s++) {
            q->is_slow[1 + s] = true;
            wq_submit(q, 1 + s);
        }
        wq_submit(q, 0);
        int64_t wall, cpu;
        /* Warm-up: more than two slow cycles (vigil's extra threads are started). */
        wq_window(q, 250, ms, &wall, &cpu);
        wq_drain(q);
        snprintf(extra, sizeof extra, "\"inflight\":1,\"slow_jobs\":%d%s%s", WQ_SLOW, q->extra ? "," : "",
                 q->extra ? q->extra : "");
        rounds_keys(keys, sizeof keys, "work-queue", q->system, q->mark_slow ? "mixed, slow jobs marked" : "mixed",
                    extra);
        rounds_emit_hist(keys, "rtt_us", &q->hist, 1000.0);
        fprintf(stderr, "%s %s: %ld short jobs in %.2f s\n", q->system, q->mark_slow ? "mixed (marked)" : "mixed",
                q->done, (double)wall / 1e9);
    } else {
        fprintf(stderr, "unknown case %s\n", cas);
        return 2;
    }
    wq_sys_fini(q);
    return 0;
}

#endif
