/* src/work/: the work queue (<vigil/work.h>). front.c is the loop side (the API, the
 * completion point, the doorbell, vigil_loop_free's drain); pool.c is the thread side
 * (the two lanes, the workers, the watchdog that finds blocked workers). The per-loop
 * state is a module (loop.h). May call: src/loop's core (module slot, internal fd
 * watcher, the completion point's queue). Shares nothing at run time with the file
 * engine's thread pool (src/file/engine_threads.c): the two are built on the same
 * pattern (a locked FIFO, a lock-free done stack, an eventfd doorbell the loop watches,
 * the drain at the turn's completion point) but a file request is one of nine system
 * calls that never blocks for long on a regular file, where a job is the program's
 * code that may block for seconds: only the work queue needs lanes and a watchdog, and
 * the file engine's batched take (several requests per lock) would hold short jobs
 * behind a long one. Not installed.
 *
 * A job's life (lstate, loop thread only):
 *   IDLE --submit--> PEND (in q->pend: submitted during the drain, queued at its end)
 *        --submit or flush--> QUEUED (in a lane, under q->mu; `taken` says whether a
 *        worker has it) --worker pushes it on q->done--> ... --the drain takes the
 *        stack--> DONE --cb--> IDLE.
 *   Cancelled while PEND or while in a lane and not taken: DONE on q->canc (loop
 *   thread), status -ECANCELED, cb at the next completion point.
 */
#ifndef VIGIL_WORK_INT_H
#define VIGIL_WORK_INT_H

#include "loop/loop.h"
#include "sys/list.h"
#include "vigil/work.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { VIGIL__WORK_IDLE = 0, VIGIL__WORK_PEND, VIGIL__WORK_QUEUED, VIGIL__WORK_DONE };
enum { VIGIL__LANE_FAST = 0, VIGIL__LANE_SLOW = 1 };

/* A job as the library sees it: vigil_work's private_ words given names. */
struct vigil__work {
    void *data;
    vigil_work_fn fn;
    vigil_work_cb cb;
    struct vigil__work *next, *prev; /* lane or pend list; next: done stack, canc list */
    int32_t status;                  /* written by the worker before the push (0) or by cancel */
    uint8_t lstate;                  /* VIGIL__WORK_*: loop thread only */
    uint8_t lane;                    /* VIGIL__LANE_*: set at submit */
    uint8_t taken;                   /* under q->mu: a worker took it from its lane */
    uint8_t pad_;
};
_Static_assert(sizeof(struct vigil__work) <= sizeof(vigil_work), "vigil_work too small");
_Static_assert(sizeof(vigil_work) == 64, "vigil_work: one cache line");
_Static_assert(offsetof(struct vigil__work, data) == offsetof(vigil_work, data), "vigil_work: data first");

static inline struct vigil__work *vigil__work(vigil_work *w)
{
    return (struct vigil__work *)(void *)w;
}
static inline vigil_work *vigil__work_pub(struct vigil__work *w)
{
    return (vigil_work *)(void *)w;
}

/* A FIFO of jobs, doubly linked (cancel takes one out in O(1)). */
struct vigil__wlist {
    struct vigil__work *head, *tail;
    unsigned n;
};

VIGIL__DLIST_DEFINE(vigil__wlist, struct vigil__wlist, struct vigil__work)

/* Worker states (under q->mu). */
enum { VIGIL__WTHR_IDLE = 0, VIGIL__WTHR_RUN, VIGIL__WTHR_BLOCKED };

struct vigil__workq;

/* One worker thread. */
struct vigil__wthr {
    struct vigil__workq *q;
    pthread_t tid;
    int stat_fd;        /* /proc/thread-self/stat of the worker, -1: none (the watchdog asks
                           the kernel whether the thread sleeps) */
    uint8_t state;      /* VIGIL__WTHR_*, under q->mu */
    uint64_t seq;       /* jobs taken, under q->mu */
    uint64_t seen;      /* seq at the watchdog's last scan */
};

/* The per-loop state. Fields are grouped by who may touch them. */
struct vigil__workq {
    /* ---- loop thread only */
    vigil_loop *loop;
    bool freeing;               /* vigil_loop_free is draining: refuse new jobs */
    bool draining;              /* completion callbacks run: submits go to pend */
    unsigned inflight;          /* jobs between submit and cb */
    struct vigil__wlist pend;   /* submitted during the drain, queued at its end */
    struct vigil__work *canc_head, **canc_tail; /* cancelled: their cb at the completion point */
    int bell_fd;                /* the doorbell eventfd; -1 until set up */
    vigil_io bell_io;
    struct vigil__deferred later; /* the drain, queued for the completion point */
    uint64_t cancelled;
    uint64_t ran;               /* jobs completed with 0 */

    /* ---- any thread, atomics (see front.c's THREADS note) */
    _Atomic(struct vigil__work *) done; /* finished jobs, newest first */
    atomic_int signalled;       /* 1: the doorbell was rung and the loop has not taken the stack */
    atomic_uint_fast64_t wakeups;

    /* ---- under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* idle workers (CLOCK_MONOTONIC: the watchdog's timed wait) */
    struct vigil__wlist lane[2];
    int size;                   /* runnable workers at most */
    int max;                    /* workers at most */
    int maxb;                   /* blocked workers at most: max - size */
    int64_t block_ns;           /* < 0: no detection */
    int nthreads;               /* started (thr[0..nthreads)) */
    int nidle;                  /* waiting on cv (the watchdog included) */
    int nwake;                  /* signalled, not yet back from the wait */
    int nrun;                   /* VIGIL__WTHR_RUN */
    int nblocked;               /* VIGIL__WTHR_BLOCKED */
    bool watch;                 /* a worker waits with a timeout, on watchdog duty */
    bool stop;
    int64_t last_scan_ns;
    uint64_t detected;
    struct vigil__wthr thr[];   /* max of them */
};

static inline struct vigil__workq *vigil__workq_of(vigil_loop *loop)
{
    return (struct vigil__workq *)loop->mod[VIGIL__MOD_WORK];
}

/* pool.c (the thread side; every call takes q->mu itself unless it says so) */
int vigil__workq_pool_init(struct vigil__workq *q);
/* Queues the jobs of list l (emptied) to their lanes, wakes or starts what is needed.
 * The first call starts a thread: -EAGAIN if none could start (then nothing is
 * queued). */
int vigil__workq_publish(struct vigil__workq *q, struct vigil__wlist *l);
/* Takes w out of its lane if no worker took it: true when it did. */
bool vigil__workq_unqueue(struct vigil__workq *q, struct vigil__work *w);
/* Cancels every queued job (each onto out, linked through next, status -ECANCELED),
 * stops the workers and joins them (jobs running finish first). */
void vigil__workq_pool_fini(struct vigil__workq *q, struct vigil__wlist *out);
void vigil__workq_pool_stats(struct vigil__workq *q, struct vigil_work_stats *out);

/* front.c: a finished job, from a worker: push on the done stack, ring if needed. */
void vigil__workq_done(struct vigil__workq *q, struct vigil__work *w);

#endif
