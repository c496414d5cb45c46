/* Waiting: the waiter records of blocked senders and receivers (take, find the oldest,
 * release, settle a dead one's), the spin-then-futex sleep on a word, and the spare word
 * of threads that found every record taken. Calls the lock (queue_int.h) and the futex
 * wrappers; the records' rules are in lock.c (LOCKING, PIPELINED SEND).
 */
#include "mq/queue_int.h"

#include <sched.h>

#define SPIN_NS 20000           /* polling before a futex wait */
#define SPIN_PURE_NS 3000       /* of which without yielding the CPU */
#define WAIT_SLICE_NS 1000000000 /* re-check at least this often (a waker may have died) */

static inline int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int ts_valid(const struct timespec *ts)
{
    return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L && ts->tv_sec >= 0;
}

/* --------------------------------------------------------------- records */

/* Puts a message back at the front of its priority (lock held): a dead receiver's
 * handed-off message, sent before anything queued since. prio: the slot's priority,
 * read once and checked by the caller. */
static void front_push(struct vigil__mq *q, uint32_t ref, struct vigil__mq_slot *s, uint32_t prio)
{
    struct vigil__mq_hdr *h = q->h;
    list_push_front(q, ref, s, prio);
    if (h->curmsgs && (h->top_ref || h->top_exact) && prio == h->top_prio)
        h->top_ref = ref; /* in front of the first list's head */
    else
        top_note(h, h->curmsgs, prio, ref);
    curmsgs_set(h, h->curmsgs + 1);
}

/* Releases a record (lock held): the caller's own, or a dead waiter's. */
void vigil__mq_rec_release(struct vigil__mq *q, struct vigil__mq_rec *r)
{
    atomic_store_explicit(&r->state, VIGIL__REC_FREE, memory_order_relaxed);
    r->owner_tid = 0;
    if (q->h->nrec_busy)
        q->h->nrec_busy--;
}

/* Settles the record of a waiter found dead (lock held): a message handed to a
 * receiver that died before taking it goes back to the front of its priority, as it was
 * sent before anything queued since; then the record is free. */
static int rec_reap(struct vigil__mq *q, struct vigil__mq_rec *r)
{
    struct vigil__mq_hdr *h = q->h;
    int ret = 0;
    if (atomic_load_explicit(&r->state, memory_order_relaxed) == VIGIL__REC_READY && r->kind == VIGIL__REC_RECV) {
        uint32_t ref = r->slot;
        struct vigil__mq_slot *s = ref_ok(q, ref) && ref <= h->fresh ? slot_at(q, ref) : NULL;
        uint32_t sprio = s ? s->prio : VIGIL__MQ_NPRIO; /* read once: checked, then used */
        if (!s || sprio >= VIGIL__MQ_NPRIO || s->len > q->msgsize || h->curmsgs >= q->maxmsg) {
            ret = -EBADMSG;
        } else {
            front_push(q, ref, s, sprio);
        }
    }
    vigil__mq_rec_release(q, r);
    return ret;
}

/* Oldest live waiter of a kind in state WAITING, or NULL (lock held). A waiter that is
 * polling (within its spin time) is taken as alive without asking; one that sleeps
 * or overstayed its spin is checked with the kernel (one kill(tid, 0)) and settled
 * if dead (rec_reap). */
struct vigil__mq_rec *vigil__mq_waiter_find(struct vigil__mq *q, uint32_t kind)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t hwm = h->rec_hwm < VIGIL__MQ_NREC ? h->rec_hwm : VIGIL__MQ_NREC;
    for (;;) {
        struct vigil__mq_rec *best = NULL;
        uint32_t best_age = 0, now = h->ticket;
        for (uint32_t i = 0; i < hwm; i++) {
            struct vigil__mq_rec *r = &q->recs[i];
            if (atomic_load_explicit(&r->state, memory_order_relaxed) != VIGIL__REC_WAITING || r->kind != kind)
                continue;
            uint32_t age = now - r->ticket;
            if (!best || age > best_age) {
                best = r;
                best_age = age;
            }
        }
        if (!best)
            return NULL;
        if (!atomic_load_explicit(&best->sleeping, memory_order_relaxed) &&
            mono_ns() <= (int64_t)best->spin_until_ns)
            return best;
        if (vigil__mq_owner_alive(best->owner_tid))
            return best;
        rec_reap(q, best);
    }
}

/* Settles every dead waiter's record (lock held; one kill(tid, 0) per waiter). Called
 * before a receiver decides to sleep on an "empty" queue, and by sleepers now and then:
 * a dead receiver may hold a handed-off message. */
int vigil__mq_reclaim_ready(struct vigil__mq *q)
{
    uint32_t hwm = q->h->rec_hwm < VIGIL__MQ_NREC ? q->h->rec_hwm : VIGIL__MQ_NREC;
    uint32_t me = self_tid();
    for (uint32_t i = 0; i < hwm; i++) {
        struct vigil__mq_rec *r = &q->recs[i];
        if (atomic_load_explicit(&r->state, memory_order_relaxed) == VIGIL__REC_FREE)
            continue;
        uint32_t tid = r->owner_tid;
        if (tid == me || vigil__mq_owner_alive(tid))
            continue;
        int rr = rec_reap(q, r);
        if (rr < 0)
            return rr;
    }
    return 0;
}

/* Takes a free record for the calling thread (lock held). NULL if all are busy. */
static struct vigil__mq_rec *rec_take(struct vigil__mq *q, uint32_t kind)
{
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++) {
        struct vigil__mq_rec *r = &q->recs[i];
        if (atomic_load_explicit(&r->state, memory_order_relaxed) != VIGIL__REC_FREE)
            continue;
        r->kind = kind;
        r->ticket = q->h->ticket++;
        if (q->h->rec_hwm < i + 1 || q->h->rec_hwm > VIGIL__MQ_NREC)
            q->h->rec_hwm = i + 1;
        r->slot = 0;
        r->owner_tid = self_tid();
        r->spin_until_ns = (uint64_t)mono_ns() + SPIN_NS + SPIN_NS / 2;
        atomic_store_explicit(&r->sleeping, 0, memory_order_relaxed);
        atomic_store_explicit(&r->state, VIGIL__REC_WAITING, memory_order_relaxed);
        q->h->nrec_busy++;
        return r;
    }
    return NULL;
}

/* ---------------------------------------------------------------- sleeping */

/* Per thread: how many more waits skip the pure spin because recent ones found the
 * other side not running on another CPU (it shares ours, or is descheduled). */
static _Thread_local unsigned spin_skip __attribute__((tls_model("initial-exec")));

/* Sleeps while *word == val: spins first (if spin), then futex waits in slices.
 * sleeping (may be NULL) is set while in FUTEX_WAIT so a waker skips the wake system
 * call when nobody sleeps. Returns 0 when the word changed or a slice ended (the caller
 * re-checks), -ETIMEDOUT at abs_rt, -EINTR on a signal. */
int vigil__mq_wait_word(_Atomic uint32_t *word, uint32_t val, const struct timespec *abs_rt, bool spin,
                        _Atomic uint32_t *sleeping)
{
    if (spin) {
        /* The other side usually answers within microseconds: polling the shared word
         * is far cheaper than sleep + wake. Bounded in time, not iterations (a pause
         * costs 10-150 cycles depending on the CPU). Pure spinning only helps when the
         * other side runs on another CPU; when it shares ours, every spun microsecond
         * delays it, so past SPIN_PURE_NS (or at once, after pure spins failed
         * recently) we yield the CPU between polls instead. Acquire pairs with the
         * waker's release store of the state. */
        long pure = spin_skip ? 0 : SPIN_PURE_NS;
        if (spin_skip)
            spin_skip--;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (unsigned i = 1;; i++) {
            if (atomic_load_explicit(word, memory_order_acquire) != val)
                return 0;
            if (pure) {
                cpu_relax();
                if (i & 31)
                    continue;
            }
            clock_gettime(CLOCK_MONOTONIC, &t);
            long spent = (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec);
            if (spent > SPIN_NS)
                break;
            if (spent > pure) {
                if (pure) {
                    pure = 0;
                    spin_skip = 64;
                }
                sched_yield();
            }
        }
    }
    struct timespec now, slice;
    clock_gettime(CLOCK_REALTIME, &now);
    slice = now;
    slice.tv_sec += WAIT_SLICE_NS / 1000000000;
    const struct timespec *until = &slice;
    bool real = false;
    if (abs_rt && (abs_rt->tv_sec < slice.tv_sec ||
                   (abs_rt->tv_sec == slice.tv_sec && abs_rt->tv_nsec <= slice.tv_nsec))) {
        until = abs_rt;
        real = true;
    }
    /* seq_cst store then the futex's own re-check of *word: a waker that stores the
     * word and then reads sleeping (also seq_cst) either sees 1 and wakes us, or its
     * store came first and FUTEX_WAIT returns at once (EAGAIN). */
    if (sleeping)
        atomic_store(sleeping, 1);
    int r = vigil__futex_wait_rt(word, val, until);
    if (sleeping)
        atomic_store_explicit(sleeping, 0, memory_order_relaxed);
    if (r == -ETIMEDOUT)
        return real ? -ETIMEDOUT : 0;
    if (r == -EINTR)
        return -EINTR;
    return 0;
}

/* Called locked when every waiter record is taken: sleeps on the shared spare word
 * until a record may be free, then takes the lock again. Returns the wait's result;
 * *locked is false (and the result the lock's error) when the lock could not be
 * taken back. */
static int spare_wait(struct vigil__mq *q, const struct timespec *abs_rt, bool *locked)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t seq = atomic_load_explicit(&h->spare_seq, memory_order_relaxed);
    spare_waiters_set(h, h->spare_waiters + 1);
    qunlock(q);
    int r = vigil__mq_wait_word(&h->spare_seq, seq, abs_rt, false, NULL);
    int lr = qlock(q);
    *locked = lr >= 0;
    if (lr < 0)
        return lr;
    if (h->spare_waiters)
        spare_waiters_set(h, h->spare_waiters - 1);
    return r;
}

/* A send found the queue full, or a receive found it empty (lock held): the start of a
 * blocking wait, the same for both. Returns
 *   0      *me is the caller's record (kind), in state WAITING; the lock is released:
 *          sleep on me->state;
 *   1      every record was taken: the caller slept on the spare word and holds the
 *          lock again: look at the queue again;
 *   < 0    nonblock (-EAGAIN), a bad abs_rt (-EINVAL), the spare wait's timeout or
 *          signal, or the lock's error; the lock is released. */
int vigil__mq_wait_enter(struct vigil__mq *q, uint32_t kind, const struct timespec *abs_rt, int nonblock,
                         struct vigil__mq_rec **me)
{
    int r;
    if (nonblock) {
        r = -EAGAIN;
        goto out_unlock;
    }
    if (abs_rt && !ts_valid(abs_rt)) {
        r = -EINVAL;
        goto out_unlock;
    }
    *me = rec_take(q, kind);
    if (!*me) {
        /* More blocked threads than records: wait on the shared spare word. */
        bool locked;
        r = spare_wait(q, abs_rt, &locked);
        if (!locked)
            return r;
        if (r < 0)
            goto out_unlock;
        return 1;
    }
    qunlock(q);
    return 0;
out_unlock:
    qunlock(q);
    return r;
}
