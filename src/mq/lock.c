/* The queue lock and crash recovery: taking and releasing hdr->lockw (the fast halves are
 * qlock/qunlock in queue_int.h), the owner's liveness, the takeover from a dead owner
 * and recover(), which rebuilds the derived state. Calls queue_int.h's helpers and the
 * futex wrappers only. These rules hold for every file of the queue:
 *
 * LOCKING
 *   hdr->lockw guards everything in the segment except the message bytes of a slot
 *   handed to a waiting receiver (owned by that receiver until it frees the slot under
 *   the lock) and the futex words, which are only ever woken/waited on. A few guarded
 *   words are also read without it, as snapshots: curmsgs (mq_getattr, loop watchers),
 *   spare_waiters, fired_token (SIGEV_THREAD helpers). Their writers store them with
 *   relaxed atomics (queue_int.h, notify.c), so no reader sees a torn value.
 *   The lock word holds the owner's thread id. Taking it is one compare-and-swap;
 *   releasing it is one release store plus a read of lock_waiters (a futex wake only
 *   when someone sleeps). A waiter spins, then yields, then sleeps on the word in
 *   short FUTEX_WAITs; between sleeps it asks the kernel whether the owner thread
 *   still exists (kill(tid, 0)): if not, it takes the lock over with a compare-and-swap
 *   from the dead id and settles the dead owner's half-done operation (recover()).
 *   This is cheaper than a robust pthread mutex on the hot path (no robust-list
 *   bookkeeping, no atomic on release) and needs no cooperation from the dying
 *   process; it needs the processes that share a queue to share a PID namespace (so
 *   thread ids mean the same thing) and relies on thread ids not being reused within
 *   the few milliseconds of a check (Linux hands them out cyclically).
 *   The release store may pass the read of lock_waiters (x86 store->load order): a
 *   thread that just went to sleep can miss its wake; it then sleeps one short
 *   timeout (LOCK_SLEEP_NS), never forever.
 *   A blocked thread owns a waiter record (its thread id, its state word). Whoever
 *   would hand it a message, or settles records, asks the kernel whether that thread
 *   still exists when it is asleep or past its polling time (kill(tid, 0)); a
 *   polling waiter is alive by definition, and so is a sender made READY less than
 *   STUCK_NS ago (it holds no message; vigil__mq_reclaim_ready, wait.c). A dead
 *   waiter's record is settled (rec_reap, wait.c): its handed-off message goes back to
 *   the queue. Records change only under hdr->lockw; a waiter reads its own state word
 *   without it.
 *
 * COMMIT POINTS (what survives a SIGKILL anywhere)
 *   Every operation changes the message structure with exactly one store, made under
 *   the lock after everything it publishes is in place:
 *     send       the store that links the slot into its priority list (tail->next or
 *                head), or, for a hand-off, rec->state = READY;
 *     receive    the store of the list head past the slot (the bytes were copied to
 *                the caller before it), or, for a hand-off, rec->state = FREE;
 *   Everything else (curmsgs, bitmaps, tails, free list, shortcuts, nrec_busy) is
 *   derived. When the lock is taken over from a dead owner, the new owner rebuilds the
 *   derived state from the lists and records (recover()): a half-linked slot is
 *   either reachable (committed) or not (its slot returns to the free list), never
 *   half a message. No separate intent record is needed: the one commit store is the
 *   record, and everything around it is recomputed.
 *   A receiver that died holding a handed-off message had not taken it: the slot goes
 *   back to the front of its priority list (when the record is found dead: by
 *   recovery, by a receiver about to sleep, or by a sleeper's periodic look).
 *
 * PIPELINED SEND
 *   A receiver that finds the queue empty takes a waiter record and sleeps on its
 *   state. A sender that finds a live waiting receiver copies the message into a slot,
 *   gives that slot to the record (READY) and wakes it: the receiver copies the bytes
 *   without the lock and takes the lock once to free the slot. Senders blocked on a
 *   full queue are woken one per freed slot, oldest first.
 *
 * HOSTILE MEMORY
 *   Geometry is read once at attach and validated against the file size; every index,
 *   length and count read from the segment afterwards is checked before use and a bad
 *   one returns -EBADMSG. No glibc object lives in the segment (no mutex whose links
 *   or kind a scribbler could turn against its owner): the lock and the records are
 *   plain words.
 */
#include "mq/queue_int.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOCK_SPIN_NS 2000        /* lock: spin this long, */
#define LOCK_YIELD_NS 50000      /* then yield until this, */
#define LOCK_SLEEP_NS 1000000    /* then sleep in slices of this, checking the owner */

/* ------------------------------------------------------------- thread id */

_Thread_local uint32_t vigil__mq_tid_cache __attribute__((tls_model("initial-exec")));
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void tid_reset(void)
{
    vigil__mq_tid_cache = 0;
}

static void atfork_register(void)
{
    pthread_atfork(NULL, NULL, tid_reset);
}

/* The first self_tid() of a thread (or of a forked child). */
uint32_t vigil__mq_tid_fill(void)
{
    pthread_once(&atfork_once, atfork_register);
    vigil__mq_tid_cache = (uint32_t)syscall(SYS_gettid);
    return vigil__mq_tid_cache;
}

/* Does the thread that owns the lock word (or a waiter record) still exist? A value no
 * kernel hands out (0, > PID_MAX_LIMIT) is a scribble: treated as dead, so the lock is
 * taken over and recovery validates everything. */
bool vigil__mq_owner_alive(uint32_t owner)
{
    if (owner == 0 || owner > 4194304u)
        return false;
    return !(kill((pid_t)owner, 0) < 0 && errno == ESRCH);
}

/* -------------------------------------------------------------- recovery */

/* Points the receive shortcut (top_prio, top_ref) at the highest list (lock held). */
static int top_refresh(struct vigil__mq *q)
{
    struct vigil__mq_hdr *h = q->h;
    long p = bit_highest(h);
    if (p < -1)
        return (int)p;
    if (p < 0) {
        h->top_ref = 0;
        return 0;
    }
    h->top_prio = (uint32_t)p;
    h->top_ref = q->heads[p].head;
    h->top_exact = 1;
    h->k2_valid = 0;
    return 0;
}

/* recover(), part 1: walks every priority list, marking its slots with epoch (a slot
 * met twice is a cycle or a slot in two lists); sets each list's tail and bit. Adds the
 * messages found to *count. 0 or -EBADMSG. */
static int recover_lists(struct vigil__mq *q, uint32_t epoch, uint32_t *count)
{
    struct vigil__mq_hdr *h = q->h;
    for (uint32_t p = 0; p < VIGIL__MQ_NPRIO; p++) {
        struct vigil__mq_head *hd = &q->heads[p];
        uint32_t ref = hd->head, last = 0;
        while (ref) {
            if (!ref_ok(q, ref) || ref > h->fresh)
                return -EBADMSG;
            struct vigil__mq_slot *s = slot_at(q, ref);
            if (s->mark == epoch || s->len > q->msgsize || s->prio != p)
                return -EBADMSG; /* a cycle, a slot in two lists, or a bad slot */
            s->mark = epoch;
            (*count)++;
            last = ref;
            ref = s->next;
        }
        hd->tail = last;
        if (last)
            bit_set(h, p);
    }
    return 0;
}

/* recover(), part 2: the records. A dead waiter's record is released; a message handed
 * to a receiver that died before taking it goes back to the front of its priority (and
 * is added to *count); a live receiver's handed-off slot is marked (it is in use).
 * *busy: the records still owned. 0 or -EBADMSG. */
static int recover_records(struct vigil__mq *q, uint32_t epoch, uint32_t *count, uint32_t *busy)
{
    struct vigil__mq_hdr *h = q->h;
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++) {
        struct vigil__mq_rec *r = &q->recs[i];
        uint32_t st = atomic_load_explicit(&r->state, memory_order_relaxed);
        if (st == VIGIL__REC_FREE)
            continue;
        bool alive = vigil__mq_owner_alive(r->owner_tid);
        if (st == VIGIL__REC_READY && r->kind == VIGIL__REC_RECV) {
            uint32_t ref = r->slot;
            if (!ref_ok(q, ref) || ref > h->fresh)
                return -EBADMSG;
            struct vigil__mq_slot *s = slot_at(q, ref);
            uint32_t sprio = s->prio; /* read once: checked, then used */
            if (s->mark == epoch && !alive) {
                /* Already in a list: whoever settled this dead receiver (rec_reap, or
                 * an earlier recover()) pushed the message back (the commit) and died
                 * before freeing the record. The list holds the message; only the
                 * record is left to free. Found by fuzz/mq_fuzz.c
                 * (fuzz/crashes/mq/recover-settler-died.bin, fuzz/README.md). */
                atomic_store_explicit(&r->state, VIGIL__REC_FREE, memory_order_relaxed);
                r->owner_tid = 0;
                continue;
            }
            if (s->mark == epoch || s->len > q->msgsize || sprio >= VIGIL__MQ_NPRIO)
                return -EBADMSG;
            s->mark = epoch;
            if (!alive) {
                list_push_front(q, ref, s, sprio);
                (*count)++;
            }
        }
        if (alive) {
            (*busy)++;
            continue;
        }
        atomic_store_explicit(&r->state, VIGIL__REC_FREE, memory_order_relaxed);
        r->owner_tid = 0;
    }
    return 0;
}

/* recover(), last part: whoever sleeps may have missed the wake the dead process owed:
 * wakes them all (they re-check), including loop watchers and spare waiters. */
static void recover_wake_all(struct vigil__mq *q)
{
    struct vigil__mq_hdr *h = q->h;
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++)
        if (atomic_load_explicit(&q->recs[i].state, memory_order_relaxed) != VIGIL__REC_FREE)
            vigil__futex_wake(&q->recs[i].state, INT_MAX);
    atomic_fetch_add_explicit(&h->spare_seq, 1, memory_order_relaxed);
    vigil__futex_wake(&h->spare_seq, INT_MAX);
    atomic_fetch_add_explicit(&h->state_seq, 1, memory_order_relaxed);
    vigil__futex_wake(&h->state_seq, INT_MAX);
}

/* Rebuilds everything derived from the lists (lock taken over from a dead owner): the
 * lists' tails and the bitmap, the records, the free list (every slot no list or live
 * record holds), curmsgs, nrec_busy and the shortcuts; then wakes every sleeper. */
static int recover(struct vigil__mq *q)
{
    struct vigil__mq_hdr *h = q->h;
    if (h->fresh > q->maxmsg)
        return -EBADMSG;
    uint32_t epoch = ++h->epoch;
    if (epoch == 0)
        epoch = ++h->epoch; /* 0 is the mark of a never-marked slot */
    h->top2 = 0;
    memset(h->top, 0, sizeof h->top);
    memset(h->lvl, 0, sizeof h->lvl);
    uint32_t count = 0, busy = 0;
    if (recover_lists(q, epoch, &count) < 0 || recover_records(q, epoch, &count, &busy) < 0)
        return -EBADMSG;
    if (count > q->maxmsg)
        return -EBADMSG;
    h->rec_hwm = VIGIL__MQ_NREC; /* scan all until records are taken afresh */
    h->free_head = 0;
    for (uint32_t ref = h->fresh; ref >= 1; ref--)
        if (slot_at(q, ref)->mark != epoch)
            slot_free(q, ref);
    curmsgs_set(h, count);
    h->nrec_busy = busy;
    if (top_refresh(q) < 0)
        return -EBADMSG;
    recover_wake_all(q);
    return 0;
}

/* ------------------------------------------------------------------ lock */

/* Finishes taking the lock from a dead owner (we hold it now). */
static int takeover(struct vigil__mq *q)
{
    int r = recover(q);
    if (r < 0) {
        /* Corrupt beyond repair: every later call fails fast. */
        q->h->broken = 1;
        atomic_store_explicit(&q->h->lockw, 0, memory_order_release);
        return r;
    }
    return 0;
}

/* qlock() found the lock held: spin, yield, then sleep in slices, taking the lock over
 * if its owner died. */
int vigil__mq_lock_slow(struct vigil__mq *q, uint32_t tid)
{
    struct vigil__mq_hdr *h = q->h;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 1;; i++) {
        uint32_t owner = atomic_load_explicit(&h->lockw, memory_order_relaxed);
        if (owner == 0) {
            /* Acquire: pairs with the release store of the previous owner's unlock. */
            if (atomic_compare_exchange_weak_explicit(&h->lockw, &owner, tid, memory_order_acquire,
                                                      memory_order_relaxed))
                return 0;
            continue;
        }
        if (owner == tid)
            return -EBADMSG; /* "held by us" while we do not hold it: scribbled */
        if (q->trylock_only) {
            if (vigil__mq_owner_alive(owner))
                return -EAGAIN;
            if (atomic_compare_exchange_strong_explicit(&h->lockw, &owner, tid, memory_order_acquire,
                                                        memory_order_relaxed))
                return takeover(q);
            return -EAGAIN;
        }
        if (i < 64) {
            vigil__cpu_relax();
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        long spent = (long)(vigil__ts_to_ns(&t) - vigil__ts_to_ns(&t0));
        if (spent < LOCK_SPIN_NS) {
            vigil__cpu_relax();
            continue;
        }
        if (spent < LOCK_YIELD_NS) {
            /* The owner may be preempted on our CPU: let it finish. */
            sched_yield();
            continue;
        }
        if (!vigil__mq_owner_alive(owner)) {
            /* Only one taker wins the swap from the dead id. */
            if (atomic_compare_exchange_strong_explicit(&h->lockw, &owner, tid, memory_order_acquire,
                                                        memory_order_relaxed))
                return takeover(q);
            continue;
        }
        /* Sleep on the word; the count tells the owner to wake us (the RMW is a full
         * barrier: our count is visible before the futex re-reads the word). */
        atomic_fetch_add_explicit(&h->lock_waiters, 1, memory_order_seq_cst);
        struct timespec rel = {0, LOCK_SLEEP_NS};
        vigil__futex_wait_rel(&h->lockw, owner, &rel);
        /* Never below zero: an unlocker may have reset the count (vigil__mq_unlock_wake). */
        uint32_t c = atomic_load_explicit(&h->lock_waiters, memory_order_relaxed);
        while (c && !atomic_compare_exchange_weak_explicit(&h->lock_waiters, &c, c - 1, memory_order_relaxed,
                                                           memory_order_relaxed))
            ;
    }
}

/* qunlock() saw n threads counted asleep on the lock: wake one. A thread killed while
 * asleep leaves the count high for good; after many wakes in a row that found nobody,
 * the count is reset (a live waiter caught between counting itself and sleeping then
 * sleeps one LOCK_SLEEP_NS slice too long, never forever). */
__attribute__((noinline)) void vigil__mq_unlock_wake(struct vigil__mq *q, uint32_t n)
{
    /* idle_wakes is shared by the process's threads and updated outside the lock:
     * relaxed loads and stores, and a load-add-store that may lose a concurrent
     * update. Only a heuristic rides on it (when to reset the count), no ordering. */
    int woken = vigil__futex_wake(&q->h->lockw, 1);
    unsigned idle = atomic_load_explicit(&q->idle_wakes, memory_order_relaxed);
    if (woken > 0) {
        if (idle)
            atomic_store_explicit(&q->idle_wakes, 0, memory_order_relaxed);
    } else if (idle + 1 < 64) {
        atomic_store_explicit(&q->idle_wakes, idle + 1, memory_order_relaxed);
    } else {
        atomic_store_explicit(&q->idle_wakes, 0, memory_order_relaxed);
        atomic_compare_exchange_strong_explicit(&q->h->lock_waiters, &n, 0, memory_order_relaxed,
                                                memory_order_relaxed);
    }
}
