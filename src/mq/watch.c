/* mq watchers: a message queue (src/mq/) in the vigil loop.
 *
 * The queue's header has a futex word, state_seq, that senders and receivers bump (and
 * wake) when the queue turns non-empty or non-full, as long as any watcher is counted
 * in hdr->watchers. A watcher reads state_seq, then looks at the queue: if its
 * condition holds it dispatches, else it sleeps on state_seq with the value it read
 * (a change in between makes the sleep return at once).
 *
 * Two ways to sleep:
 *   uring   IORING_OP_FUTEX_WAIT (6.7+) in the loop's own io_uring_enter: no thread.
 *           While the condition holds, a NOP op instead, so the callback runs once per
 *           turn (level-triggered) without an extra system call.
 *   thread  elsewhere: a helper thread per watcher sleeps on state_seq (FUTEX_WAIT,
 *           shared) and writes an eventfd the loop watches (an internal vigil_io);
 *           after each dispatch the loop thread bumps w->ctl to let the helper look
 *           again.
 * Per-loop state (a module, see loop.h): the started watchers, so vigil_loop_free stops
 * forgotten ones as it forgets every other watcher (joining their helper threads), and
 * the ops' free list: an op is taken from it (grown at a new high-water mark, never on
 * a steady-state turn) so that a watcher stopped while its op is in the kernel can be
 * freed by its owner at once (the op completes, later, into the free list).
 * Callbacks run at the turn's completion point on every backend: the io_uring op
 * completion runs there, and the helper thread's eventfd watcher only queues the
 * dispatch for it.
 */
#include "loop/loop.h"
#include "ring/ring.h"
#include "sys/probe.h"
#include "sys/list.h"
#include "mq/futex.h"
#include "mq/mq_int.h"
#include "vigil/mq_watch.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>


enum { MQW_ACTIVE = 0x1u, MQW_THREAD = 0x2u };
enum { OPK_NOP = 1, OPK_FUTEX = 2 };

struct mqw;

struct mqw_op {
    struct vigil__ring_op base;  /* first: the completion finds us from it */
    struct mqw *w;               /* NULL once the watcher stopped */
    struct mqw_op *next_free;    /* on the free list */
    struct mqw_op *next_all;     /* every op this loop made (freed with the loop) */
    int kind;
};

/* The module's per-loop state. */
struct watchers {
    struct mqw *head;            /* started watchers */
    struct mqw_op *op_free;      /* ops not in the kernel */
    struct mqw_op *op_all;       /* every op made (freed at loop free) */
};

struct mqw {
    vigil_mq_watch_cb cb;
    vigil_loop *loop;
    struct vigil__mq *q;
    vigil_mq_watch *pub;
    bool *gone;                  /* set by stop while a callback of ours runs */
    struct mqw_op *op;           /* uring: the op in the kernel, if any */
    uint32_t events;
    uint32_t state;
    struct mqw *next, *prev;     /* on struct watchers' list while started */
    /* thread mode */
    int efd;
    vigil_io io;
    struct vigil__deferred later; /* the dispatch, queued for the completion point */
    pthread_t thr;
    _Atomic uint32_t ctl;        /* bumped by the loop: dispatched, or stop */
    _Atomic uint32_t stop;
};

VIGIL__HLIST_DEFINE(mqw_list, struct mqw, next, prev)

_Static_assert(sizeof(struct mqw) <= sizeof(((vigil_mq_watch *)0)->private_), "vigil_mq_watch too small");
_Static_assert(alignof(struct mqw) <= alignof(uint64_t), "vigil_mq_watch under-aligned");

static inline struct mqw *watch_of(vigil_mq_watch *w)
{
    return (struct mqw *)(void *)w->private_;
}

/* ------------------------------------------------------------- module state */

static void watchers_fini(vigil_loop *loop, void *state);

static struct watchers *watchers_get(vigil_loop *loop)
{
    return vigil__module_get(loop, VIGIL__MOD_MQ_WATCH, sizeof(struct watchers), watchers_fini, NULL);
}

static struct mqw_op *op_get(struct watchers *ws)
{
    struct mqw_op *op = ws->op_free;
    if (op) {
        ws->op_free = op->next_free;
        return op;
    }
    op = calloc(1, sizeof *op); /* a new high-water mark of ops in flight */
    if (op) {
        op->next_all = ws->op_all;
        ws->op_all = op;
    }
    return op;
}

static void op_put(struct watchers *ws, struct mqw_op *op)
{
    op->w = NULL;
    op->next_free = ws->op_free;
    ws->op_free = op;
}

/* Whether the kernel offers IORING_OP_FUTEX_WAIT: probed once per process. */
static _Atomic int futex_op = -1;

static bool have_futex_op(vigil_loop *loop)
{
#ifndef VIGIL_HAVE_LIBURING
    (void)loop;
    return false;
#endif
    int v = atomic_load_explicit(&futex_op, memory_order_relaxed);
    if (v < 0) {
        const uint8_t ops[] = {OP_FUTEX_WAIT};
        char why[96];
        v = loop->ring && vigil__uring_probe_ops(&loop->ring->ring, ops, 1, why, sizeof why) == 0;
        atomic_store_explicit(&futex_op, v, memory_order_relaxed);
    }
    return v > 0;
}

/* ------------------------------------------------------------- dispatch */

/* Runs the callback if the condition holds. Returns true if the watcher was stopped
 * (by the callback or by an error) and must not be touched: its owner may have freed
 * it. */
static bool dispatch(vigil_loop *loop, struct mqw *w)
{
    int ready = vigil__mq_ready(w->q, w->events);
    if (ready == 0)
        return false;
    vigil_mq_watch *pub = w->pub;
    vigil_mq_watch_cb cb = w->cb;
    bool gone = false;
    if (ready < 0) {
        vigil_mq_watch_stop(loop, pub);
        gone = true;
    } else {
        w->gone = &gone;
    }
    loop->in_callback++;
    cb(loop, pub, ready);
    loop->in_callback--;
    if (!gone)
        w->gone = NULL;
    return gone;
}

/* ------------------------------------------------------------- uring mode */

static void op_complete(vigil_loop *loop, struct vigil__ring_op *base, int32_t res, uint32_t cflags);

/* Arms the watcher's next wait: a NOP while the condition holds (the callback runs
 * next turn again), else a futex wait on state_seq with the value read before
 * looking. */
static int uring_arm(vigil_loop *loop, struct mqw *w)
{
#ifndef VIGIL_HAVE_LIBURING
    (void)loop;
    (void)w;
    return -ENOSYS;
#else
    struct watchers *ws = loop->mod[VIGIL__MOD_MQ_WATCH];
    struct mqw_op *op = op_get(ws);
    if (!op)
        return -ENOMEM;
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe) {
        op_put(ws, op);
        return -EBUSY;
    }
    struct vigil__mq_hdr *h = w->q->h;
    /* Acquire: a change made before a bump we see is visible to the look below. */
    uint32_t seq = atomic_load_explicit(&h->state_seq, memory_order_acquire);
    int ready = vigil__mq_ready(w->q, w->events);
    memset(sqe, 0, sizeof *sqe);
    if (ready != 0) {
        sqe->opcode = IORING_OP_NOP;
        op->kind = OPK_NOP;
    } else {
        sqe->opcode = OP_FUTEX_WAIT;
        sqe->fd = (int32_t)FUTEX2_SIZE_U32_;       /* futex2 flags */
        sqe->addr = (uint64_t)(uintptr_t)&h->state_seq;
        sqe->off = seq;                            /* addr2: the expected value */
        sqe->addr3 = FUTEX_BITSET_MATCH_ANY;       /* mask */
        op->kind = OPK_FUTEX;
    }
    op->base.complete = op_complete;
    op->w = w;
    vigil__ring_op_prep(loop->ring, sqe, &op->base);
    w->op = op;
    return 0;
#endif
}

static int thread_start(vigil_loop *loop, struct mqw *w);

/* The watcher cannot wait any more: stopped, and told why (once). */
static void fail(vigil_loop *loop, struct mqw *w, int err)
{
    vigil_mq_watch *pub = w->pub;
    vigil_mq_watch_cb cb = w->cb;
    vigil_mq_watch_stop(loop, pub);
    loop->in_callback++;
    cb(loop, pub, err);
    loop->in_callback--;
}

static void op_complete(vigil_loop *loop, struct vigil__ring_op *base, int32_t res, uint32_t cflags)
{
    (void)cflags;
    struct mqw_op *op = (struct mqw_op *)base;
    struct mqw *w = op->w;
    int kind = op->kind;
    op_put(loop->mod[VIGIL__MOD_MQ_WATCH], op);
    if (!w)
        return; /* stopped while in the kernel */
    w->op = NULL;
    if (kind == OPK_FUTEX && (res == -EINVAL || res == -EOPNOTSUPP || res == -ENOSYS)) {
        /* The probe said yes but the kernel refuses this wait: use a thread. */
        atomic_store_explicit(&futex_op, 0, memory_order_relaxed);
        int r = thread_start(loop, w);
        if (r < 0)
            fail(loop, w, r);
        return;
    }
    if (dispatch(loop, w))
        return;
    if ((w->state & MQW_ACTIVE) && !(w->state & MQW_THREAD) && !w->op) {
        int r = uring_arm(loop, w);
        if (r < 0)
            fail(loop, w, r);
    }
}

/* ------------------------------------------------------------- thread mode */

static void *helper_main(void *arg)
{
    struct mqw *w = arg;
    struct vigil__mq_hdr *h = w->q->h;
    for (;;) {
        uint32_t ack = atomic_load_explicit(&w->ctl, memory_order_acquire);
        if (atomic_load_explicit(&w->stop, memory_order_acquire))
            return NULL;
        /* Acquire: pairs with the bump made after a change (see uring_arm). */
        uint32_t seq = atomic_load_explicit(&h->state_seq, memory_order_acquire);
        if (vigil__mq_ready(w->q, w->events) != 0) {
            uint64_t one = 1;
            ssize_t n = write(w->efd, &one, sizeof one);
            (void)n; /* a full counter already wakes the loop */
            /* Wait until the loop dispatched (or stops us), then look again. */
            while (atomic_load_explicit(&w->ctl, memory_order_acquire) == ack &&
                   !atomic_load_explicit(&w->stop, memory_order_acquire))
                vigil__futex_wait_rt(&w->ctl, ack, NULL);
            continue;
        }
        /* Sleep on the queue's word; a one-second slice bounds a missed wake from a
         * process that died between its change and its wake. */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += 1;
        vigil__futex_wait_rt(&h->state_seq, seq, &t);
    }
}

/* The completion point's work for a threaded watcher (turn.h step 5). */
static void later_run(vigil_loop *loop, struct vigil__deferred *d)
{
    struct mqw *w = (struct mqw *)(void *)((char *)d - offsetof(struct mqw, later));
    if (dispatch(loop, w))
        return;
    if (w->state & MQW_ACTIVE) {
        /* Release: the helper looks at the queue after our dispatch. */
        atomic_fetch_add_explicit(&w->ctl, 1, memory_order_release);
        vigil__futex_wake(&w->ctl, 1);
    }
}

/* The helper's eventfd (step 4, fd events): queues the dispatch, runs no callback. */
static void io_cb(vigil_loop *loop, vigil_io *io, int revents)
{
    (void)revents;
    struct mqw *w = (struct mqw *)((char *)io - offsetof(struct mqw, io));
    uint64_t v;
    ssize_t n = read(w->efd, &v, sizeof v);
    (void)n;
    vigil__defer(loop, &w->later);
}

static int thread_start(vigil_loop *loop, struct mqw *w)
{
    w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->efd < 0)
        return -errno;
    memset(&w->io, 0, sizeof w->io);
    w->io.data = w->pub;
    w->later.run = later_run;
    int r = vigil__io_start_internal(loop, &w->io, w->efd, VIGIL_READ, io_cb);
    if (r < 0)
        goto out_close;
    atomic_store(&w->stop, 0);
    atomic_store(&w->ctl, 0);
    r = -pthread_create(&w->thr, NULL, helper_main, w);
    if (r < 0)
        goto out_io;
    w->state |= MQW_THREAD;
    return 0;
out_io:
    vigil_io_stop(loop, &w->io);
out_close:
    close(w->efd);
    w->efd = -1;
    return r;
}

static void thread_stop(vigil_loop *loop, struct mqw *w)
{
    atomic_store_explicit(&w->stop, 1, memory_order_release);
    atomic_fetch_add_explicit(&w->ctl, 1, memory_order_release);
    vigil__futex_wake(&w->ctl, 1);
    /* The helper may sleep on the queue's word: wake its sleepers (other watchers,
     * in any process, look again and sleep on). */
    vigil__futex_wake(&w->q->h->state_seq, INT_MAX);
    pthread_join(w->thr, NULL);
    vigil_io_stop(loop, &w->io);
    vigil__undefer(loop, &w->later);
    close(w->efd);
    w->efd = -1;
    w->state &= ~MQW_THREAD;
}

/* ------------------------------------------------------------- API */

int vigil_mq_watch_start(vigil_loop *loop, vigil_mq_watch *pub, mqd_t mq, uint32_t events, vigil_mq_watch_cb cb)
{
    if (!loop || !pub || !cb)
        return -EINVAL;
    if (events == 0 || (events & ~(uint32_t)(VIGIL_READ | VIGIL_WRITE)))
        return -EINVAL;
    struct mqw *w = watch_of(pub);
    if (w->state & MQW_ACTIVE)
        return -EBUSY;
    struct vigil__mq *q = vigil__mq_get(mq);
    if (!q)
        return -EBADF;
    struct watchers *ws = watchers_get(loop);
    if (!ws)
        return -ENOMEM;
    memset(w, 0, sizeof *w);
    w->cb = cb;
    w->loop = loop;
    w->q = q;
    w->pub = pub;
    w->events = events;
    w->efd = -1;
    int r = vigil__mq_watchers(q, +1);
    if (r < 0)
        return r;
    w->state = MQW_ACTIVE;
    if (loop->ring && have_futex_op(loop))
        r = uring_arm(loop, w);
    else
        r = thread_start(loop, w);
    if (r < 0) {
        w->state = 0;
        vigil__mq_watchers(q, -1);
        return r;
    }
    mqw_list_add(&ws->head, w);
    loop->active++;
    return 0;
}

int vigil_mq_watch_stop(vigil_loop *loop, vigil_mq_watch *pub)
{
    if (!loop || !pub)
        return -EINVAL;
    struct mqw *w = watch_of(pub);
    if (!(w->state & MQW_ACTIVE))
        return 0;
    struct watchers *ws = loop->mod[VIGIL__MOD_MQ_WATCH];
    mqw_list_del(&ws->head, w);
    if (w->gone) {
        *w->gone = true; /* a callback of ours is running: it must not touch w again */
        w->gone = NULL;
    }
    if (w->op) {
        /* The op completes later into the free list; w is free to go now. */
        w->op->w = NULL;
        vigil__ring_cancel(loop->ring, &w->op->base);
        w->op = NULL;
    }
    if (w->state & MQW_THREAD)
        thread_stop(loop, w);
    vigil__mq_watchers(w->q, -1);
    w->state = 0;
    loop->active--;
    return 0;
}

int vigil_mq_watch_active(const vigil_mq_watch *pub)
{
    if (!pub)
        return 0; /* as the other _active calls */
    const struct mqw *w = (const struct mqw *)(const void *)pub->private_;
    return (w->state & MQW_ACTIVE) != 0;
}

int vigil_mq_watch_threaded(const vigil_mq_watch *pub)
{
    if (!pub)
        return 0; /* as the other _active calls */
    const struct mqw *w = (const struct mqw *)(const void *)pub->private_;
    return (w->state & MQW_THREAD) != 0;
}

/* vigil_loop_free: a watcher still started is stopped (its helper thread joined), as
 * every other kind of watcher is forgotten; then the ops go (the ring closes after this,
 * and nothing reads an op's memory but its completion, which will not come). */
static void watchers_fini(vigil_loop *loop, void *state)
{
    struct watchers *ws = state;
    while (ws->head)
        vigil_mq_watch_stop(loop, ws->head->pub);
    struct mqw_op *op = ws->op_all;
    while (op) {
        struct mqw_op *next = op->next_all;
        free(op);
        op = next;
    }
    free(ws);
}
