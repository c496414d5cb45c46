/* Receiving: vigil__mq_receive, whose fast path is the uncontended case (no waiter, no
 * watcher, the first message known), and receive_locked, every other case: finding the
 * first message through the bitmap, waking a blocked sender, blocking on an empty queue
 * and taking a message handed off by a sender (PIPELINED SEND in lock.c). Calls
 * queue_int.h's inline helpers and wait.c.
 */
#include "mq/queue_int.h"

/* Wakes the oldest blocked sender, if any (lock held). Returns it for the wake after
 * unlock. */
static struct vigil__mq_rec *room_wake(struct vigil__mq *q)
{
    if (!q->h->nrec_busy)
        return NULL;
    struct vigil__mq_rec *w = vigil__mq_waiter_find(q, VIGIL__REC_SEND);
    if (w)
        atomic_store_explicit(&w->state, VIGIL__REC_READY, memory_order_seq_cst);
    return w;
}

/* Takes the first message (lock held; h is q->h, passed so that it stays in a register
 * across the copy): slot ref, head of list p (p < NPRIO, ref a used slot: checked by
 * the caller); the queue held cur > 0 messages. Copies it to buf and
 * unlinks it. Returns its length, or -EBADMSG (nothing changed) if the list does not
 * start at ref or the slot's length or link is bad. */
static inline __attribute__((always_inline)) ssize_t take_first(struct vigil__mq *q, struct vigil__mq_hdr *h,
                                                                uint32_t p, uint32_t ref, uint32_t cur, char *buf)
{
    struct vigil__mq_head *hd = &q->heads[p];
    struct vigil__mq_slot *s = slot_at(q, ref);
    uint32_t mlen = s->len, next = s->next;
    if (__builtin_expect(hd->head != ref || mlen > q->msgsize || (next && (!ref_ok(q, next) || next > h->fresh)), 0))
        return -EBADMSG;
    /* Copy first: if we die here the message is still queued. */
    msg_copy(buf, s->data, mlen);
    hd->head = next; /* commit: the message is ours */
    curmsgs_set(h, cur - 1);
    h->top_ref = next;
    if (!next)
        top_after_empty(q, p, cur);
    slot_free(q, ref);
    return mlen;
}

/* Our record is READY (lock not held): the slot in it is ours until we free it. Copies
 * the message without the lock, then frees the slot and the record under it. */
static ssize_t handoff_take(struct vigil__mq *q, struct vigil__mq_rec *me, char *buf, unsigned *prio)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t ref = me->slot;
    if (!ref_ok(q, ref))
        goto bad;
    struct vigil__mq_slot *s = slot_at(q, ref);
    uint32_t mlen = s->len, mprio = s->prio;
    if (mlen > q->msgsize)
        goto bad;
    msg_copy(buf, s->data, mlen);
    int lr = qlock(q);
    if (lr < 0)
        return lr;
    vigil__mq_rec_release(q, me); /* commit: state FREE, the message is delivered */
    if (ref <= h->fresh)
        slot_free(q, ref);
    struct vigil__mq_rec *w = room_wake(q);
    unlock_wake(q, w, true);
    if (prio)
        *prio = mprio;
    return mlen;
bad:
    if (qlock(q) == 0) {
        vigil__mq_rec_release(q, me);
        qunlock(q);
    }
    return -EBADMSG;
}

/* The queue holds cur > 0 messages (lock held on entry, released on return): takes
 * the first, wakes the oldest blocked sender. Returns its length, or -EBADMSG. */
static inline ssize_t receive_first(struct vigil__mq *q, uint32_t cur, char *buf, unsigned *prio)
{
    struct vigil__mq_hdr *h = q->h;
    /* The shortcut names the first message: its slot and its list head load in
     * parallel instead of a chain through the bitmap. */
    uint32_t p = h->top_prio, ref = h->top_ref;
    if (ref == 0 && h->top_exact) {
        if (p >= VIGIL__MQ_NPRIO)
            goto bad;
        ref = q->heads[p].head;
        h->top_ref = ref;
    } else if (ref == 0) {
        /* Not known since the last list emptied: walk the bitmap. */
        long hp = bit_highest(h);
        if (hp < 0 || (uint32_t)hp > p)
            goto bad;
        p = (uint32_t)hp;
        ref = q->heads[p].head;
        h->top_prio = p;
        h->top_ref = ref;
    }
    if (p >= VIGIL__MQ_NPRIO || !ref_ok(q, ref) || ref > h->fresh)
        goto bad;
    ssize_t mlen = take_first(q, h, p, ref, cur, buf);
    if (mlen < 0) {
        qunlock(q);
        return mlen;
    }
    /* The next receive starts from this slot; in a deep queue it was written long ago
     * and has left L1: fetch it while the caller does other work. */
    if (ref_ok(q, h->top_ref))
        __builtin_prefetch(slot_at(q, h->top_ref));
    else if (h->top_exact && h->top_prio < VIGIL__MQ_NPRIO)
        __builtin_prefetch(&q->heads[h->top_prio]);
    struct vigil__mq_rec *w = room_wake(q);
    unlock_wake(q, w, cur == q->maxmsg);
    if (prio)
        *prio = (unsigned)p;
    return mlen;
bad:
    qunlock(q);
    return -EBADMSG;
}

/* Our record wt->rec waits for a sender's hand-off (lock not held on entry). Returns
 *   1    the record is READY: the lock is not held, the message is ours (handoff_take);
 *   0    no hand-off, but the queue must be looked at again (a message queued past us,
 *        or a timeout or a signal that raced with one): the record is given back, the
 *        lock is held;
 *   < 0  the wait's timeout or signal on a still empty queue, or the lock's or the
 *        records' error: the lock is not held. */
static int receive_handoff_wait(struct vigil__mq *q, struct vigil__mq_wait *wt)
{
    struct vigil__mq_hdr *h = q->h;
    struct vigil__mq_rec *me = wt->rec;
    for (;;) {
        int wr = vigil__mq_wait_word(wt);
        if (atomic_load_explicit(&me->state, memory_order_acquire) == VIGIL__REC_READY)
            return 1;
        int lr = qlock(q);
        if (lr < 0)
            return lr;
        if (atomic_load_explicit(&me->state, memory_order_relaxed) == VIGIL__REC_READY) {
            qunlock(q);
            return 1;
        }
        if (wr == 0 && !h->curmsgs && h->nrec_busy > 1) {
            /* An edge (woken, nothing for us): a receiver that died may hold a message
             * handed to it; put such messages back in the queue. */
            int rr = vigil__mq_reclaim_ready(q);
            if (rr < 0) {
                vigil__mq_rec_release(q, me);
                qunlock(q);
                return rr;
            }
        }
        if (wr < 0 || h->curmsgs) {
            /* Timed out, interrupted, or a message queued past us (recovery put one
             * back and woke us): give the record back, still locked. */
            vigil__mq_rec_release(q, me);
            if (wr < 0 && !h->curmsgs) {
                qunlock(q);
                return wr;
            }
            return 0;
        }
        qunlock(q);
    }
}

/* The whole receive, every case (lock held on entry, released on return); wt is the
 * call's wait, ended by the caller. Each pass looks at the queue: a message is taken
 * (receive_first); an empty queue is waited on, first for a dead receiver's handed-off
 * message to be put back, then for a hand-off to our own record. */
static inline ssize_t receive_wait(struct vigil__mq *q, char *buf, size_t len, unsigned *prio,
                                   const struct timespec *abs_rt, int nonblock, struct vigil__mq_wait *wt)
{
    struct vigil__mq_hdr *h = q->h;
    for (;;) {
        uint32_t cur = h->curmsgs;
        if (cur > q->maxmsg) {
            qunlock(q);
            return -EBADMSG;
        }
        if (cur)
            return receive_first(q, cur, buf, prio);
        if (h->nrec_busy) {
            /* A receiver that died holding a handed-off message left it in its record. */
            int r = vigil__mq_reclaim_ready(q);
            if (r < 0) {
                qunlock(q);
                return r;
            }
            if (h->curmsgs)
                continue;
        }
        int er = vigil__mq_wait_enter(q, VIGIL__REC_RECV, abs_rt, nonblock, wt);
        if (er < 0)
            return er;
        if (er > 0)
            continue;
        int hr = receive_handoff_wait(q, wt);
        if (hr < 0)
            return hr;
        if (hr > 0)
            return handoff_take(q, wt->rec, buf, prio);
    }
}

/* Cold, as send_locked and for the same reason (send.c): the fast path's speed must not
 * depend on where the linker puts it. */
static __attribute__((noinline, cold)) ssize_t receive_locked(struct vigil__mq *q, char *buf, size_t len,
                                                              unsigned *prio, const struct timespec *abs_rt,
                                                              int nonblock)
{
    struct vigil__mq_wait wt = {0};
    ssize_t r = receive_wait(q, buf, len, prio, abs_rt, nonblock, &wt);
    vigil__mq_wait_end(&wt); /* signals back as the caller had them, the lock released */
    return r;
}

/* The uncontended case, kept small: a lock, a copy, a few stores, an unlock. Anything
 * else (or anything that looks corrupt) goes to receive_locked with the lock still held. */
ssize_t vigil__mq_receive(struct vigil__mq *q, char *buf, size_t len, unsigned *prio,
                          const struct timespec *abs_rt, int nonblock)
{
    struct vigil__mq_hdr *h = q->h;
    if (len < q->msgsize)
        return -EMSGSIZE;
    ssize_t r = qlock(q);
    if (r < 0)
        return r;
    uint32_t cur = h->curmsgs, p = h->top_prio, ref = h->top_ref;
    if (ref == 0 && h->top_exact && p < VIGIL__MQ_NPRIO) {
        ref = q->heads[p].head; /* the first list is known, its head not yet */
        h->top_ref = ref;
    }
    if (__builtin_expect((h->nrec_busy | atomic_load_explicit(&h->watchers, memory_order_relaxed) |
                          h->spare_waiters) != 0 ||
                             cur - 1 >= q->maxmsg || p >= VIGIL__MQ_NPRIO || !ref_ok(q, ref) || ref > h->fresh,
                         0))
        return receive_locked(q, buf, len, prio, abs_rt, nonblock);
    ssize_t mlen = take_first(q, h, p, ref, cur, buf);
    if (__builtin_expect(mlen < 0, 0))
        return receive_locked(q, buf, len, prio, abs_rt, nonblock); /* reports it */
    uint32_t nref = h->top_ref, np = h->top_prio;
    qunlock(q);
    /* Start fetching what the next receive reads first. */
    if (nref - 1 < q->maxmsg)
        __builtin_prefetch(slot_at(q, nref));
    else if (np < VIGIL__MQ_NPRIO)
        __builtin_prefetch(&q->heads[np]);
    if (prio)
        *prio = p;
    return mlen;
}
