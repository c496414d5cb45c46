/* The work queue, loop side: the API, the doorbell, the completion point's drain, and
 * vigil_loop_free's.
 *
 * THREADS: everything here runs in the loop thread except vigil__workq_done(), which
 * workers call. A finished job is pushed on q->done (a lock-free stack: CAS push from
 * any thread; the loop takes the whole stack with one exchange). The doorbell eventfd
 * is written only by the push that finds q->signalled at 0 and sets it to 1; the loop
 * clears the flag at the completion point *before* it takes the stack (both seq_cst).
 * So a push the take missed comes after the take in the single order of seq_cst
 * operations, hence after the clear: its exchange of the flag reads 0 (or another
 * pusher's 1, and that pusher writes), and the doorbell rings for it. A push between
 * the clear and the take is taken now and rings once more for an empty stack: a
 * harmless spare wake-up. Between the first push and the loop's completion point --
 * its wake-up, its fd events -- further completions cost only their push.
 *
 * Why not the loop's own wakeup eventfd (vigil_loop_wakeup): its watcher clears its
 * flag at the fd-event step and calls the program's on_wakeup for every ring, where
 * work completions must run at the completion point and must not call on_wakeup;
 * sharing it would need a second flag and a module hook in the loop's wake_cb. A
 * doorbell of the module's own costs one eventfd per loop that uses the queue.
 */
#include "work/work_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define DEFAULT_THREADS 4
#define DEFAULT_BLOCK_NS 1000000 /* 1 ms */
#define MAX_THREADS 1024

static void work_fini(vigil_loop *loop, void *state);

/* --------------------------------------------------------- completion */

void vigil__workq_done(struct vigil__workq *q, struct vigil__work *w)
{
    struct vigil__work *old = atomic_load_explicit(&q->done, memory_order_relaxed);
    do {
        w->next = old;
        /* seq_cst (release at least): the job's status and whatever fn wrote are
         * visible to the loop once it takes the stack; seq_cst for the flag protocol
         * in the THREADS note. */
    } while (!atomic_compare_exchange_weak_explicit(&q->done, &old, w, memory_order_seq_cst,
                                                    memory_order_relaxed));
    if (atomic_load_explicit(&q->signalled, memory_order_seq_cst) == 0 &&
        atomic_exchange_explicit(&q->signalled, 1, memory_order_seq_cst) == 0) {
        atomic_fetch_add_explicit(&q->wakeups, 1, memory_order_relaxed);
        uint64_t one = 1;
        while (write(q->bell_fd, &one, sizeof one) < 0 && errno == EINTR) {
        }
    }
}

/* Runs one job's callback (loop thread). */
static void complete(vigil_loop *loop, struct vigil__workq *q, struct vigil__work *w)
{
    w->lstate = VIGIL__WORK_IDLE;
    q->inflight--;
    loop->active--;
    if (w->status == -ECANCELED)
        q->cancelled++;
    else
        q->ran++;
    /* Counted as a callback: vigil_loop_free from inside it is refused (-EBUSY). */
    loop->in_callback++;
    w->cb(loop, vigil__work_pub(w), w->status);
    loop->in_callback--;
}

/* Completes what was cancelled and what the workers finished; jobs the callbacks
 * submit meanwhile are queued to the pool in one batch at the end. */
static void drain(vigil_loop *loop, struct vigil__workq *q)
{
    struct vigil__work *canc = q->canc_head;
    q->canc_head = NULL;
    q->canc_tail = &q->canc_head;
    atomic_store_explicit(&q->signalled, 0, memory_order_seq_cst);
    struct vigil__work *s = atomic_exchange_explicit(&q->done, NULL, memory_order_seq_cst);
    /* The stack is newest first: reverse it so callbacks run in the order jobs ended. */
    struct vigil__work *fifo = NULL;
    while (s) {
        struct vigil__work *next = s->next;
        s->next = fifo;
        s->lstate = VIGIL__WORK_DONE; /* cancel says -ENOENT, submit -EBUSY, until its cb */
        fifo = s;
        s = next;
    }
    bool was = q->draining;
    q->draining = true;
    while (canc) {
        struct vigil__work *next = canc->next;
        complete(loop, q, canc);
        canc = next;
    }
    while (fifo) {
        struct vigil__work *next = fifo->next;
        complete(loop, q, fifo);
        fifo = next;
    }
    q->draining = was;
    if (!was && q->pend.n && !q->freeing) {
        /* The pool has at least one thread (these jobs' predecessors ran on it):
         * publish cannot fail. */
        struct vigil__work *w;
        for (w = q->pend.head; w; w = w->next)
            w->lstate = VIGIL__WORK_QUEUED;
        vigil__workq_publish(q, &q->pend);
    }
}

static void later_run(vigil_loop *loop, struct vigil__deferred *d)
{
    struct vigil__workq *q = (struct vigil__workq *)(void *)((char *)d - offsetof(struct vigil__workq, later));
    drain(loop, q);
}

/* The doorbell's watcher (turn step 4): runs no user callback itself. */
static void bell_cb(vigil_loop *loop, vigil_io *io, int revents)
{
    (void)revents;
    struct vigil__workq *q = io->data;
    uint64_t v;
    while (read(q->bell_fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
    vigil__defer(loop, &q->later);
}

/* -------------------------------------------------------------- set-up */

static int env_threads(void)
{
    const char *e = getenv("VIGIL_WORK_THREADS");
    if (!e || !*e)
        return 0;
    char *end;
    long n = strtol(e, &end, 10);
    return (*end || n < 1 || n > MAX_THREADS) ? 0 : (int)n;
}

static int setup(vigil_loop *loop, const struct vigil_work_options *o)
{
    int size = o->threads ? o->threads : env_threads();
    if (size == 0)
        size = DEFAULT_THREADS;
    int max = o->max_threads;
    if (max == 0) {
        max = size * 4 > size + 16 ? size * 4 : size + 16;
        if (max > MAX_THREADS)
            max = MAX_THREADS;
    }
    if (max < size)
        return -EINVAL;
    struct vigil__workq *q = calloc(1, sizeof *q + (size_t)max * sizeof q->thr[0]);
    if (!q)
        return -ENOMEM;
    q->loop = loop;
    q->size = size;
    q->max = max;
    q->maxb = max - size;
    q->block_ns = o->block_ns == 0 ? DEFAULT_BLOCK_NS : o->block_ns;
    q->canc_tail = &q->canc_head;
    q->later.run = later_run;
    atomic_init(&q->done, NULL);
    atomic_init(&q->signalled, 0);
    atomic_init(&q->wakeups, 0);
    int r = vigil__workq_pool_init(q);
    if (r < 0)
        goto out_free;
    q->bell_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (q->bell_fd < 0) {
        r = -errno;
        goto out_pool;
    }
    q->bell_io.data = q;
    r = vigil__io_start_internal(loop, &q->bell_io, q->bell_fd, VIGIL_READ, bell_cb);
    if (r < 0)
        goto out_bell;
    vigil__module_attach(loop, VIGIL__MOD_WORK, q, work_fini);
    return 0;

out_bell:
    close(q->bell_fd);
out_pool:
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
out_free:
    free(q);
    return r;
}

void vigil_work_options_init(struct vigil_work_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

int vigil_work_setup(vigil_loop *loop, const struct vigil_work_options *opt)
{
    if (!loop)
        return -EINVAL;
    struct vigil_work_options o;
    vigil_work_options_init(&o);
    if (opt) {
        if (opt->size < offsetof(struct vigil_work_options, reserved) || opt->size > sizeof o)
            return -EINVAL;
        memcpy(&o, opt, opt->size);
        for (size_t i = 0; i < sizeof o.reserved / sizeof o.reserved[0]; i++)
            if (o.reserved[i])
                return -EINVAL;
        if (o.flags || o.threads < 0 || o.threads > MAX_THREADS || o.max_threads < 0 ||
            o.max_threads > MAX_THREADS)
            return -EINVAL;
    }
    if (vigil__workq_of(loop))
        return -EBUSY;
    return setup(loop, &o);
}

/* ---------------------------------------------------------------- jobs */

int vigil_work_submit(vigil_loop *loop, vigil_work *pub, vigil_work_fn fn, vigil_work_cb cb, uint32_t flags)
{
    if (!loop || !pub || !fn || !cb || (flags & ~VIGIL_WORK_SLOW))
        return -EINVAL;
    struct vigil__work *w = vigil__work(pub);
    if (w->lstate != VIGIL__WORK_IDLE)
        return -EBUSY;
    struct vigil__workq *q = vigil__workq_of(loop);
    if (!q) {
        struct vigil_work_options o;
        vigil_work_options_init(&o);
        int r = setup(loop, &o);
        if (r < 0)
            return r;
        q = vigil__workq_of(loop);
    }
    if (q->freeing)
        return -ECANCELED;
    w->fn = fn;
    w->cb = cb;
    w->status = 0;
    /* With no room for blocked workers (max_threads == threads) a slow job is an
     * ordinary one: the slow lane would never be served. */
    w->lane = (flags & VIGIL_WORK_SLOW) && q->maxb > 0 ? VIGIL__LANE_SLOW : VIGIL__LANE_FAST;
    if (q->draining) {
        w->lstate = VIGIL__WORK_PEND;
        vigil__wlist_push(&q->pend, w);
    } else {
        struct vigil__wlist one = {NULL, NULL, 0};
        vigil__wlist_push(&one, w);
        int r = vigil__workq_publish(q, &one);
        if (r < 0)
            return r;
        w->lstate = VIGIL__WORK_QUEUED;
    }
    q->inflight++;
    loop->active++;
    return 0;
}

int vigil_work_cancel(vigil_loop *loop, vigil_work *pub)
{
    if (!loop || !pub)
        return -EINVAL;
    struct vigil__work *w = vigil__work(pub);
    struct vigil__workq *q = vigil__workq_of(loop);
    if (!q || (w->lstate != VIGIL__WORK_PEND && w->lstate != VIGIL__WORK_QUEUED))
        return -ENOENT;
    if (w->lstate == VIGIL__WORK_PEND)
        vigil__wlist_remove(&q->pend, w);
    else if (!vigil__workq_unqueue(q, w))
        return -EBUSY; /* a worker runs it: it completes with 0 */
    w->lstate = VIGIL__WORK_DONE;
    w->status = -ECANCELED;
    w->next = NULL;
    *q->canc_tail = w;
    q->canc_tail = &w->next;
    vigil__defer(loop, &q->later);
    return 0;
}

int vigil_work_active(const vigil_work *pub)
{
    return pub && ((const struct vigil__work *)(const void *)pub)->lstate != VIGIL__WORK_IDLE;
}

int vigil_work_stats_get(vigil_loop *loop, struct vigil_work_stats *out)
{
    if (!loop || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    struct vigil__workq *q = vigil__workq_of(loop);
    if (!q)
        return 0;
    vigil__workq_pool_stats(q, out);
    out->inflight = q->inflight;
    out->jobs = q->ran;
    out->cancelled = q->cancelled;
    out->wakeups = atomic_load_explicit(&q->wakeups, memory_order_relaxed);
    return 0;
}

/* vigil_loop_free: queued jobs are cancelled, running ones waited for (the workers are
 * joined), then every callback runs here; a submit from one fails with -ECANCELED. */
static void work_fini(vigil_loop *loop, void *state)
{
    struct vigil__workq *q = state;
    q->freeing = true;
    vigil__undefer(loop, &q->later);
    struct vigil__wlist out = {NULL, NULL, 0};
    vigil__workq_pool_fini(q, &out);
    /* Jobs submitted in a drain that had not ended (none: vigil_loop_free is refused
     * from callbacks) and jobs of the lanes: cancelled, after what was cancelled
     * before. */
    struct vigil__work *w;
    while ((w = vigil__wlist_pop(&q->pend)) != NULL) {
        w->status = -ECANCELED;
        vigil__wlist_push(&out, w);
    }
    while ((w = vigil__wlist_pop(&out)) != NULL) {
        w->lstate = VIGIL__WORK_DONE;
        w->next = NULL;
        *q->canc_tail = w;
        q->canc_tail = &w->next;
    }
    drain(loop, q);
    /* Every job has ended: a cancel from those callbacks found nothing (-ENOENT) and
     * queued no drain; take it off anyway, the queue must not point into q. */
    vigil__undefer(loop, &q->later);
    vigil_io_stop(loop, &q->bell_io);
    close(q->bell_fd);
    free(q);
}
