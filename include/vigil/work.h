/* vigil: a work queue -- a function run on a pool thread, its completion in the loop.
 *
 *   static void crunch(vigil_work *w) { ... blocking or CPU work, on a pool thread ... }
 *   static void done(vigil_loop *loop, vigil_work *w, int status) { ... loop thread ... }
 *   vigil_work w = {0};                        // caller-owned, zeroed before first use
 *   vigil_work_submit(loop, &w, crunch, done, 0);
 *
 * fn runs once on one of the loop's pool threads; then cb runs in the loop thread, at
 * the turn's completion point (step 5, where file completions run), with status 0, or
 * -ECANCELED when the job was cancelled before a thread took it (fn did not run) or the
 * loop was freed first. Every submitted job's cb runs exactly once. Nothing allocates
 * per job: the request is the caller's struct (embed it in your own object); it stays
 * the library's from vigil_work_submit until its cb starts, and may be submitted again
 * from there (from cb itself included). fn may call vigil_loop_wakeup but no other
 * call of vigil on the loop: hand results to cb through the struct around w.
 *
 * One pool per loop. The pool belongs to a loop, not to the process: its threads start
 * with the loop's first job and are joined by vigil_loop_free, so no thread of vigil
 * outlives the last loop (no atexit hook, no fork hazard across loops); one loop that
 * floods its pool with blocking calls cannot delay another loop's work; completions go
 * to one loop's queue without a lookup. A program with several loops sizes each pool
 * (threads are started on demand and parked while idle; QEMU keeps a pool per
 * AioContext for the same reasons).
 *
 * Long work does not delay short work queued after it. The pool keeps at most
 * `threads` workers runnable (the CPU budget) and lets other workers be "blocked":
 *   - a job submitted with VIGIL_WORK_SLOW (a 100 ms blocking call, a DNS lookup) goes
 *     to the slow lane; the thread that takes it counts as blocked from the start, so it
 *     never takes a runnable slot, and another thread serves the fast lane at once;
 *   - a job not marked slow that runs longer than block_ns (default 1 ms) is found by a
 *     watchdog -- an idle worker that waits with a timeout while every runnable slot is
 *     taken and jobs are queued -- and its thread then counts as blocked too, so another
 *     thread takes the queued work. Detection takes between block_ns and 2 x block_ns;
 *     it costs the pool nothing per job (a counter per take, compared tick to tick).
 * Threads beyond `threads` are made on demand, up to max_threads, and stay parked
 * until the loop is freed; at most max_threads - threads workers are blocked at once,
 * so `threads` always remain for the fast lane. A long CPU-bound job not marked slow
 * also counts as blocked after block_ns: the pool may then run up to max_threads jobs
 * at once (set block_ns < 0 to turn detection off, and mark what blocks).
 *
 * Order: jobs of one lane are taken in submission order; with threads = 1, max_threads
 * = 1 (or detection off) they run and complete one at a time in that order. Otherwise
 * completions come in the order jobs finish.
 *
 * Wake-ups: a finished job is pushed on a lock-free stack; the first push since the
 * loop last took the stack writes the loop's work eventfd, later ones only push, so a
 * burst of completions costs the loop one wake-up and one read. Jobs submitted from
 * completion callbacks are queued to the pool in one batch at the end of the drain
 * (one lock, at most one thread woken per job the pool has room for).
 *
 * vigil_loop_free with jobs in flight: queued jobs are cancelled, jobs running on a
 * thread are waited for (vigil_loop_free blocks until their fn returns); every cb
 * runs once inside vigil_loop_free, and a submit from there fails with -ECANCELED.
 * After it returns, vigil touches no request.
 */
#ifndef VIGIL_WORK_H
#define VIGIL_WORK_H
/* Included by vigil.h; may also be included on its own. */

#include "vigil/loop.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_work vigil_work;

/* Runs on a pool thread. */
typedef void (*vigil_work_fn)(vigil_work *w);
/* Runs in the loop thread: status 0 (fn ran) or -ECANCELED (it did not). w is idle. */
typedef void (*vigil_work_cb)(vigil_loop *loop, vigil_work *w, int status);

/* Submission flags. */
#define VIGIL_WORK_SLOW 0x1u /* may block for long: run on a thread outside the runnable budget */

/* A job: the caller's struct, zeroed before first use. One cache line. */
struct vigil_work {
    void *data;           /* the caller's */
    uint64_t private_[7]; /* the library's */
};

struct vigil_work_options {
    uint32_t size;        /* sizeof(struct vigil_work_options); set by _init */
    int threads;          /* runnable workers; 0: VIGIL_WORK_THREADS from the environment, else 4 */
    int max_threads;      /* all workers, blocked ones included; 0: max(4 x threads, threads + 16) */
    uint32_t flags;       /* 0 */
    int64_t block_ns;     /* a job running longer counts as blocked; 0: 1 ms; < 0: never */
    uint64_t reserved[6]; /* zero */
};

VIGIL_EXPORT void vigil_work_options_init(struct vigil_work_options *opt);

/* Sizes the loop's pool (opt NULL: defaults). Optional: the first submit sets up the
 * defaults. -EBUSY once the pool is set up, -EINVAL for bad options (threads or
 * max_threads out of 1..1024, max_threads < threads, flags or reserved not zero). */
VIGIL_EXPORT int vigil_work_setup(vigil_loop *loop, const struct vigil_work_options *opt);

/* Queues w: fn on a pool thread, then cb in the loop thread. Loop thread only (from
 * any of its callbacks too). -EINVAL for NULL loop, w, fn or cb, or unknown flags;
 * -EBUSY if w is in flight; -ECANCELED while the loop is being freed; -EAGAIN if no
 * pool thread could be started; -ENOMEM. */
VIGIL_EXPORT int vigil_work_submit(vigil_loop *loop, vigil_work *w, vigil_work_fn fn, vigil_work_cb cb,
                                   uint32_t flags);

/* Cancels a queued job: 0, and its cb runs with -ECANCELED at the next completion point
 * (never inside this call); fn will not run. -EBUSY if a thread runs it already (it
 * completes with 0), -ENOENT if w is not in flight (or its cb is about to run). */
VIGIL_EXPORT int vigil_work_cancel(vigil_loop *loop, vigil_work *w);

/* 1 from vigil_work_submit until its cb starts, else 0. */
VIGIL_EXPORT int vigil_work_active(const vigil_work *w);

struct vigil_work_stats {
    uint32_t threads;       /* workers started (parked ones included) */
    uint32_t runnable;      /* workers running a job that counts against `threads` */
    uint32_t blocked;       /* workers running a slow or overlong job */
    uint32_t queued;        /* jobs waiting for a thread, both lanes */
    uint32_t inflight;      /* jobs between submit and cb */
    uint32_t spare_;
    uint64_t jobs;          /* jobs completed with 0 (their fn ran) */
    uint64_t cancelled;     /* jobs completed with -ECANCELED */
    uint64_t detected;      /* times the watchdog found a job running past block_ns */
    uint64_t wakeups;       /* eventfd writes by workers (completion batches) */
    uint64_t reserved[4];
};

/* The pool's counters (zero when it is not set up). */
VIGIL_EXPORT int vigil_work_stats_get(vigil_loop *loop, struct vigil_work_stats *out);

#ifdef __cplusplus
}
#endif
#endif
