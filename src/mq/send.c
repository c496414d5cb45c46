/* Sending: vigil__mq_send, whose fast path is the uncontended case (no waiter, no
 * registration, no watcher, a free slot), and send_locked, every other case: the hand-off
 * to a waiting receiver (PIPELINED SEND in lock.c), the notification, blocking on a full
 * queue. Calls queue_int.h's inline helpers, wait.c and notify.c.
 */
#include "mq/queue_int.h"

/* Pops a free slot (lock held): 0 if none, or -EBADMSG as a huge value is impossible,
 * so a bad free-list head is reported through *err. */
static inline uint32_t slot_alloc(struct vigil__mq *q, int *err)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t ref = h->free_head;
    if (ref) {
        if (!ref_ok(q, ref) || ref > h->fresh) {
            *err = -EBADMSG;
            return 0;
        }
        uint32_t next = slot_at(q, ref)->next;
        if (next && (!ref_ok(q, next) || next > h->fresh)) {
            *err = -EBADMSG;
            return 0;
        }
        h->free_head = next;
        return ref;
    }
    if (h->fresh < q->maxmsg)
        return ++h->fresh; /* the first never-used slot: index fresh, so ref fresh + 1 */
    if (h->fresh > q->maxmsg)
        *err = -EBADMSG;
    return 0;
}

/* Writes the message into its slot (lock held; the slot is ours, not yet linked). */
static inline __attribute__((always_inline)) void slot_fill(struct vigil__mq_slot *s, const char *msg, size_t len,
                                                             unsigned prio)
{
    msg_copy(s->data, msg, len);
    s->len = (uint32_t)len;
    s->prio = prio;
    s->next = 0;
}

/* Links slot ref at the end of list prio and counts it (lock held; h is q->h, passed so
 * that it stays in a register across the copy before). head and tail are the list's,
 * read by the caller (tail checked when head != 0: the list's tail is only meaningful
 * while its head is set); the queue held cur messages. */
static inline __attribute__((always_inline)) void queue_link(struct vigil__mq *q, struct vigil__mq_hdr *h,
                                                              struct vigil__mq_head *hd, uint32_t head,
                                                              uint32_t tail, uint32_t prio, uint32_t ref,
                                                              uint32_t cur)
{
    if (head) {
        slot_at(q, tail)->next = ref; /* commit */
        hd->tail = ref;
    } else {
        hd->head = ref; /* commit */
        hd->tail = ref;
        bit_set(h, prio); /* a non-empty list has its bit already */
    }
    top_note(h, cur, prio, ref);
    curmsgs_set(h, cur + 1);
}

/* Sends into the free slot ref (lock held on entry, released on return): hands it to
 * the oldest waiting receiver (PIPELINED SEND), or links it into its priority list and
 * takes the notification that a message on an empty queue owes. 0 or -EBADMSG. */
static inline int send_slot(struct vigil__mq *q, uint32_t ref, const char *msg, size_t len, unsigned prio)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t cur = h->curmsgs;
    slot_fill(slot_at(q, ref), msg, len, prio);
    struct vigil__mq_rec *w = NULL;
    if (h->nrec_busy) {
        w = vigil__mq_waiter_find(q, VIGIL__REC_RECV);
        cur = h->curmsgs; /* settling a dead receiver may have queued its message */
    }
    struct vigil__mq_fire fire = {0};
    if (w) {
        /* Pipelined send: the oldest waiting receiver gets the slot. The release store
         * is the commit and publishes the slot's bytes to the receiver, which reads
         * them without the lock. */
        w->slot = ref;
        atomic_store_explicit(&w->state, VIGIL__REC_READY, memory_order_seq_cst);
    } else {
        struct vigil__mq_head *hd = &q->heads[prio];
        uint32_t head = hd->head, tail = hd->tail;
        if (head && (!ref_ok(q, tail) || tail > h->fresh)) {
            slot_free(q, ref);
            qunlock(q);
            return -EBADMSG;
        }
        queue_link(q, h, hd, head, tail, prio, ref, cur);
        /* Notification: a message arrives on an empty queue and no receiver waits
         * (none did: w == NULL). */
        if (cur == 0 && h->notify_pid)
            vigil__mq_notify_take(h, &fire);
    }
    unlock_wake(q, w, cur == 0);
    if (fire.pid > 0 && !q->no_signal) /* SIGEV_SIGNAL is 0: the pid says whether one fired */
        vigil__mq_notify_deliver(&fire, h);
    return 0;
}

/* Our record wt->rec waits for room (lock not held on entry). Returns with the lock
 * held and the record given back: 0 (room, or a timeout or a signal that raced with
 * room: sending is then the right answer) or the wait's timeout or signal with the
 * queue still full; or, without the lock, the lock's error. */
static int send_room_wait(struct vigil__mq *q, struct vigil__mq_wait *wt, bool *locked)
{
    struct vigil__mq_hdr *h = q->h;
    struct vigil__mq_rec *me = wt->rec;
    int r;
    for (;;) {
        r = vigil__mq_wait_word(wt);
        int lr = qlock(q);
        if (lr < 0) {
            *locked = false;
            return lr; /* corrupt queue: our record stays; settled as a dead waiter's once we exit */
        }
        if (atomic_load_explicit(&me->state, memory_order_relaxed) != VIGIL__REC_WAITING || r < 0 ||
            h->curmsgs < q->maxmsg)
            break;
        qunlock(q);
    }
    *locked = true;
    vigil__mq_rec_release(q, me);
    /* Room is a free slot, not only curmsgs < maxmsg: the slots still handed to
     * receivers (one that died holding its message keeps it until a receive on the empty
     * queue or a recovery settles it) are not counted, and a timed send that took
     * curmsgs alone for room looped here past its deadline for good. Found by
     * fuzz/mq_fuzz.c (fuzz/crashes/mq/send-timeout-slots-handed-off.bin). */
    if (r < 0 && (h->curmsgs >= q->maxmsg || (!h->free_head && h->fresh >= q->maxmsg)))
        return r;
    return 0;
}

/* The whole send, every case (lock held on entry, released on return); wt is the
 * call's wait, ended by the caller. Each pass looks for a free slot (send_slot); a
 * full queue is waited on (send_room_wait), then looked at again. */
static inline int send_wait(struct vigil__mq *q, const char *msg, size_t len, unsigned prio,
                            const struct timespec *abs_rt, int nonblock, struct vigil__mq_wait *wt)
{
    struct vigil__mq_hdr *h = q->h;
    int r;
    for (;;) {
        uint32_t cur = h->curmsgs;
        if (cur > q->maxmsg) {
            r = -EBADMSG;
            goto out_unlock;
        }
        int err = 0;
        uint32_t ref = 0;
        if (cur < q->maxmsg) {
            ref = slot_alloc(q, &err);
            if (err) {
                r = err;
                goto out_unlock;
            }
        }
        if (ref)
            return send_slot(q, ref, msg, len, prio);
        /* Full (or every free slot is in a hand-off that is finishing). */
        r = vigil__mq_wait_enter(q, VIGIL__REC_SEND, abs_rt, nonblock, wt);
        if (r < 0)
            return r;
        if (r > 0)
            continue;
        bool locked;
        r = send_room_wait(q, wt, &locked);
        if (!locked)
            return r;
        if (r < 0)
            goto out_unlock;
    }
out_unlock:
    qunlock(q);
    return r;
}

/* Cold: not only kept out of line, but the branches that lead here are laid out as
 * unlikely and moved with the other rare blocks of vigil__mq_send into .text.unlikely,
 * so the fast path's hot code is denser. With noinline alone its speed depended on
 * where the linker happened to put it: on an AMD EPYC (Zen 2) VM, mq-full's rising
 * send+receive pair took 28 or 38-43 ns at the same instruction count as src/mq was
 * shifted by 16-byte steps (34 of 47 placements slow); with cold, 0 of 47
 * (receive_locked likewise; lab/mq-full/bench.py's docstring). */
static __attribute__((noinline, cold)) int send_locked(struct vigil__mq *q, const char *msg, size_t len, unsigned prio,
                                                       const struct timespec *abs_rt, int nonblock)
{
    struct vigil__mq_wait wt = {0};
    int r = send_wait(q, msg, len, prio, abs_rt, nonblock, &wt);
    vigil__mq_wait_end(&wt); /* signals back as the caller had them, the lock released */
    return r;
}

/* The uncontended case, kept small: a lock, a copy, a few stores, an unlock. Anything
 * else (or anything that looks corrupt) goes to send_locked with the lock still held. */
int vigil__mq_send(struct vigil__mq *q, const char *msg, size_t len, unsigned prio,
                   const struct timespec *abs_rt, int nonblock)
{
    struct vigil__mq_hdr *h = q->h;
    vigil__mq_late_ns = 0; /* our next wait is for an answer, if any (wait.c) */
    if (prio >= VIGIL__MQ_NPRIO)
        return -EINVAL;
    if (len > q->msgsize)
        return -EMSGSIZE;
    int r = qlock(q);
    if (r < 0)
        return r;
    uint32_t cur = h->curmsgs, ref = h->free_head;
    struct vigil__mq_head *hd = &q->heads[prio];
    uint32_t head = hd->head;
    /* One test for the rare cases: waiters, a registration, watchers, spares. */
    if (__builtin_expect((h->nrec_busy | h->notify_pid | atomic_load_explicit(&h->watchers, memory_order_relaxed) |
                          h->spare_waiters) != 0 ||
                             cur >= q->maxmsg || !ref_ok(q, ref) || ref > h->fresh,
                         0))
        return send_locked(q, msg, len, prio, abs_rt, nonblock);
    struct vigil__mq_slot *s = slot_at(q, ref);
    uint32_t nfree = s->next;
    uint32_t tail = hd->tail;
    if (__builtin_expect((nfree && (!ref_ok(q, nfree) || nfree > h->fresh)) ||
                             (head && (!ref_ok(q, tail) || tail > h->fresh)),
                         0))
        return send_locked(q, msg, len, prio, abs_rt, nonblock); /* reports it */
    h->free_head = nfree;
    slot_fill(s, msg, len, prio);
    queue_link(q, h, hd, head, tail, prio, ref, cur);
    qunlock(q);
    return 0;
}
