/* The shared-memory message queue: priority lists, the lock, blocking, hand-off
 * and crash recovery; a send that makes the queue non-empty delivers the notification
 * (notify_deliver, below). The POSIX front (names, descriptors, notify registration,
 * the SIGEV_THREAD helper) is posix.c.
 *
 * LOCKING
 *   hdr->lockw guards everything in the segment except the message bytes of a slot
 *   handed to a waiting receiver (owned by that receiver until it frees the slot under
 *   the lock) and the futex words, which are only ever woken/waited on.
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
 *   polling waiter is alive by definition. A dead waiter's record is settled
 *   (rec_reap): its handed-off message goes back to the queue. Records change only
 *   under hdr->lockw; a waiter reads its own state word without it.
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
#include "mq/mq_internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPIN_NS 20000           /* polling before a futex wait */
#define SPIN_PURE_NS 3000       /* of which without yielding the CPU */
#define WAIT_SLICE_NS 1000000000 /* re-check at least this often (a waker may have died) */
#define LOCK_SPIN_NS 2000        /* lock: spin this long, */
#define LOCK_YIELD_NS 50000      /* then yield until this, */
#define LOCK_SLEEP_NS 1000000    /* then sleep in slices of this, checking the owner */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Copies a message: small ones inline (overlapping 8-byte moves, no call), the rest
 * with memcpy. */
static inline void msg_copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 8 && n <= 32) {
        uint64_t a, b, c, e;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        if (n > 16) {
            memcpy(&c, s + 8, 8);
            memcpy(&e, s + n - 16, 8);
            memcpy(d + 8, &c, 8);
            memcpy(d + n - 16, &e, 8);
        }
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
        return;
    }
    memcpy(d, s, n);
}

/* ------------------------------------------------------------------ futexes */

int vigil__futex_wait_rt(_Atomic uint32_t *word, uint32_t val, const struct timespec *abs_rt)
{
    /* Not FUTEX_PRIVATE_FLAG: the word is in memory shared between processes. */
    long r = syscall(SYS_futex, word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, val, abs_rt, NULL,
                     FUTEX_BITSET_MATCH_ANY);
    return r < 0 ? -errno : 0;
}

void vigil__futex_wake(_Atomic uint32_t *word, int n)
{
    syscall(SYS_futex, word, FUTEX_WAKE, n, NULL, NULL, 0);
}

/* ---------------------------------------------------------------- geometry */

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

struct geom {
    size_t off_recs, off_heads, off_slots, stride, total;
};

static int geometry(long maxmsg, long msgsize, struct geom *g)
{
    if (maxmsg < 1 || maxmsg > VIGIL_MQ_MAXMSG_MAX || msgsize < 1 || msgsize > VIGIL_MQ_MSGSIZE_MAX)
        return -EINVAL;
    g->stride = align_up(VIGIL__MQ_SLOT_HDR + (size_t)msgsize, 8);
    if ((size_t)maxmsg * align_up((size_t)msgsize, 8) > (size_t)VIGIL_MQ_BYTES_MAX)
        return -EINVAL;
    g->off_recs = align_up(sizeof(struct vigil__mq_hdr), 64);
    g->off_heads = align_up(g->off_recs + VIGIL__MQ_NREC * sizeof(struct vigil__mq_rec), 64);
    g->off_slots = align_up(g->off_heads + VIGIL__MQ_NPRIO * sizeof(struct vigil__mq_head), 4096);
    g->total = align_up(g->off_slots + (size_t)maxmsg * g->stride, 4096);
    return 0;
}

size_t vigil__mq_bytes(long maxmsg, long msgsize)
{
    struct geom g;
    return geometry(maxmsg, msgsize, &g) < 0 ? 0 : g.total;
}

int vigil__mq_format(void *base, size_t size, uint32_t maxmsg, uint32_t msgsize)
{
    struct geom g;
    int r = geometry(maxmsg, msgsize, &g);
    if (r < 0)
        return r;
    if (size < g.total)
        return -EINVAL;
    struct vigil__mq_hdr *h = base;
    h->version = VIGIL__MQ_VERSION;
    h->hdr_bytes = sizeof *h;
    h->total_bytes = g.total;
    h->maxmsg = maxmsg;
    h->msgsize = msgsize;
    h->stride = (uint32_t)g.stride;
    h->nrec = VIGIL__MQ_NREC;
    h->off_recs = g.off_recs;
    h->off_heads = g.off_heads;
    h->off_slots = g.off_slots;
    /* Everything else is zero: an empty queue (see the layout comment). The magic goes
     * last, with release order, though the creator publishes the name only after this
     * returns (link()), so no other process can see a half-formatted segment. */
    atomic_thread_fence(memory_order_release);
    h->magic = VIGIL__MQ_MAGIC;
    return 0;
}

int vigil__mq_attach(struct vigil__mq *q, void *base, size_t size)
{
    struct vigil__mq_hdr *h = base;
    struct geom g;
    memset(q, 0, sizeof *q);
    if (size < sizeof *h)
        return -EBADMSG;
    /* Read the identity once into locals: a concurrent scribbler cannot make us check
     * one value and use another. */
    uint64_t magic = h->magic;
    uint32_t version = h->version, hdr_bytes = h->hdr_bytes, maxmsg = h->maxmsg, msgsize = h->msgsize;
    uint32_t stride = h->stride, nrec = h->nrec;
    uint64_t total = h->total_bytes, off_recs = h->off_recs, off_heads = h->off_heads, off_slots = h->off_slots;
    if (magic != VIGIL__MQ_MAGIC || version != VIGIL__MQ_VERSION || hdr_bytes != sizeof *h || nrec != VIGIL__MQ_NREC)
        return -EBADMSG;
    if (geometry(maxmsg, msgsize, &g) < 0)
        return -EBADMSG;
    if (stride != g.stride || total != g.total || off_recs != g.off_recs || off_heads != g.off_heads ||
        off_slots != g.off_slots || size < g.total)
        return -EBADMSG;
    q->base = base;
    q->size = g.total;
    q->h = h;
    q->recs = (struct vigil__mq_rec *)((unsigned char *)base + g.off_recs);
    q->heads = (struct vigil__mq_head *)((unsigned char *)base + g.off_heads);
    q->slots = (unsigned char *)base + g.off_slots;
    q->maxmsg = maxmsg;
    q->msgsize = msgsize;
    q->stride = (uint32_t)g.stride;
    return 0;
}

static inline struct vigil__mq_slot *slot_at(const struct vigil__mq *q, uint32_t ref)
{
    return (struct vigil__mq_slot *)(q->slots + (size_t)(ref - 1) * q->stride);
}

/* A slot reference read from the segment: 1..maxmsg. */
static inline bool ref_ok(const struct vigil__mq *q, uint32_t ref)
{
    return ref - 1 < q->maxmsg;
}

/* ------------------------------------------------------------ lock, recovery */

static int recover(struct vigil__mq *q);


/* This thread's id, cached (a system call otherwise); reset in a forked child, whose
 * only thread has a new id. */
static _Thread_local uint32_t tid_cache __attribute__((tls_model("initial-exec")));
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void tid_reset(void)
{
    tid_cache = 0;
}

static void atfork_register(void)
{
    pthread_atfork(NULL, NULL, tid_reset);
}

static inline uint32_t self_tid(void)
{
    if (__builtin_expect(tid_cache == 0, 0)) {
        pthread_once(&atfork_once, atfork_register);
        tid_cache = (uint32_t)syscall(SYS_gettid);
    }
    return tid_cache;
}

/* Does the thread that owns the lock word still exist? A value no kernel hands out
 * (0, > PID_MAX_LIMIT) is a scribble: treated as dead, so the lock is taken over and
 * recovery validates everything. */
static bool owner_alive(uint32_t owner)
{
    if (owner == 0 || owner > 4194304u)
        return false;
    return !(kill((pid_t)owner, 0) < 0 && errno == ESRCH);
}

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

static int qlock_slow(struct vigil__mq *q, uint32_t tid)
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
            if (owner_alive(owner))
                return -EAGAIN;
            if (atomic_compare_exchange_strong_explicit(&h->lockw, &owner, tid, memory_order_acquire,
                                                        memory_order_relaxed))
                return takeover(q);
            return -EAGAIN;
        }
        if (i < 64) {
            cpu_relax();
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        long spent = (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec);
        if (spent < LOCK_SPIN_NS) {
            cpu_relax();
            continue;
        }
        if (spent < LOCK_YIELD_NS) {
            /* The owner may be preempted on our CPU: let it finish. */
            sched_yield();
            continue;
        }
        if (!owner_alive(owner)) {
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
        syscall(SYS_futex, &h->lockw, FUTEX_WAIT, owner, &rel, NULL, 0);
        /* Never below zero: an unlocker may have reset the count (qunlock_wake). */
        uint32_t c = atomic_load_explicit(&h->lock_waiters, memory_order_relaxed);
        while (c && !atomic_compare_exchange_weak_explicit(&h->lock_waiters, &c, c - 1, memory_order_relaxed,
                                                           memory_order_relaxed))
            ;
    }
}

/* Takes the queue lock. A dead owner's half-done operation is settled first. */
static inline int qlock(struct vigil__mq *q)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t tid = self_tid(), free_ = 0;
    /* Acquire: what the previous owner wrote under the lock is visible to us. */
    int r = atomic_compare_exchange_strong_explicit(&h->lockw, &free_, tid, memory_order_acquire,
                                                    memory_order_relaxed)
                ? 0
                : qlock_slow(q, tid);
    if (r == 0 && __builtin_expect(h->broken != 0, 0)) {
        atomic_store_explicit(&h->lockw, 0, memory_order_release);
        return -EBADMSG;
    }
    return r;
}

/* Someone counted itself asleep on the lock: wake one. A thread killed while asleep
 * leaves the count high for good; after many wakes in a row that found nobody, the
 * count is reset (a live waiter caught between counting itself and sleeping then
 * sleeps one LOCK_SLEEP_NS slice too long, never forever). */
static __attribute__((noinline)) void qunlock_wake(struct vigil__mq *q, uint32_t n)
{
    long woken = syscall(SYS_futex, &q->h->lockw, FUTEX_WAKE, 1, NULL, NULL, 0);
    if (woken > 0) {
        q->idle_wakes = 0;
    } else if (++q->idle_wakes >= 64) {
        q->idle_wakes = 0;
        atomic_compare_exchange_strong_explicit(&q->h->lock_waiters, &n, 0, memory_order_relaxed,
                                                memory_order_relaxed);
    }
}

static inline void qunlock(struct vigil__mq *q)
{
    struct vigil__mq_hdr *h = q->h;
    /* Release: everything we wrote under the lock is visible to the next owner. */
    atomic_store_explicit(&h->lockw, 0, memory_order_release);
    uint32_t n = atomic_load_explicit(&h->lock_waiters, memory_order_relaxed);
    if (__builtin_expect(n != 0, 0))
        qunlock_wake(q, n);
}

/* Bitmap helpers (lock held). */
static inline void bit_set(struct vigil__mq_hdr *h, uint32_t p)
{
    uint64_t old = h->lvl[p >> 6];
    h->lvl[p >> 6] = old | 1ull << (p & 63);
    if (!old) { /* the upper levels already know a non-empty word */
        h->top[p >> 12] |= 1ull << ((p >> 6) & 63);
        h->top2 |= 1ull << (p >> 12);
    }
}

/* Highest non-empty priority, -1 if none, -EBADMSG if the levels disagree. Three
 * loads and three bit scans, whatever the priorities in use. */
static inline long bit_highest(const struct vigil__mq_hdr *h)
{
    uint64_t t2 = h->top2 & 0xff; /* 8 top words: a scribbled bit past them is ignored */
    if (!t2)
        return -1;
    uint32_t t = 63 - (uint32_t)__builtin_clzll(t2);
    uint64_t tw = h->top[t];
    if (!tw)
        return -EBADMSG;
    uint32_t w = t * 64 + 63 - (uint32_t)__builtin_clzll(tw);
    uint64_t lw = h->lvl[w];
    if (!lw)
        return -EBADMSG;
    return (long)w * 64 + 63 - __builtin_clzll(lw);
}

/* Receive shortcuts, kept under the lock (derived state, rebuilt by recovery):
 *   top_ref != 0   the first message to receive, head of list top_prio;
 *   top_ref == 0, top_exact: top_prio is the first list; its head is loaded by the
 *                  next receive (the line was prefetched after the last one);
 *   top_ref == 0, !top_exact (queue not empty): every message is below top_prio, the first one is
 *                  not known yet: the next receive walks the bitmap;
 *   k2_valid       k2_prio is the highest non-empty list other than top_prio, so when
 *                  the top list empties the next one is known without a walk (a queue
 *                  used like a stack: send above everything, receive it back).
 * top_note: a message went into list prio (queue held cur messages before, the list was
 * empty unless prio is the top); ref is its slot. */
static inline void top_note(struct vigil__mq_hdr *h, uint32_t cur, uint32_t prio, uint32_t ref)
{
    if (cur == 0) {
        h->top_prio = prio;
        h->top_ref = ref;
        h->k2_valid = 0;
    } else if (h->top_ref == 0 && !h->top_exact) {
        if (prio >= h->top_prio) { /* above everything queued */
            h->top_prio = prio;
            h->top_ref = ref;
            h->k2_valid = 0;
        }
    } else if (prio > h->top_prio) {
        h->k2_prio = h->top_prio; /* the old first list is the runner-up now */
        h->k2_valid = 1;
        h->top_prio = prio;
        h->top_ref = ref;
    } else if (prio < h->top_prio && h->k2_valid && prio > h->k2_prio) {
        h->k2_prio = prio;
    }
}

/* The first list (priority p) just emptied; the queue held cur messages before the
 * receive (lock held). Clears p's bits and names the next first message where that
 * needs no bitmap walk: the runner-up if known, else the word we hold; otherwise the
 * next receive walks. */
static inline void top_after_empty(struct vigil__mq *q, uint32_t p, uint32_t cur)
{
    struct vigil__mq_hdr *h = q->h;
    /* hd->tail is left stale: nobody reads it while the head is 0. */
    uint64_t w = h->lvl[p >> 6] & ~(1ull << (p & 63));
    h->lvl[p >> 6] = w;
    if (!w) {
        uint64_t t = h->top[p >> 12] & ~(1ull << ((p >> 6) & 63));
        h->top[p >> 12] = t;
        if (!t)
            h->top2 &= ~(1ull << (p >> 12));
    }
    uint32_t np = p;
    if (h->k2_valid && cur > 1 && h->k2_prio < p)
        np = h->k2_prio;
    else if (w)
        np = (p & ~63u) + 63 - (uint32_t)__builtin_clzll(w);
    h->k2_valid = 0;
    h->top_ref = 0;
    if (np != p) {
        h->top_prio = np;
        h->top_exact = 1; /* head loaded by the next receive, unless a send goes above */
    } else {
        h->top_exact = 0;
        /* Unknown, below p: the next receive looks it up, unless a send at p or above
         * names it first (the usual case with rising priorities). top_prio stays p,
         * the bound. */
    }
}

/* Points the receive shortcut (top_prio, top_ref) at the highest list, after that
 * list emptied or on recovery (lock held). */
static inline int top_refresh(struct vigil__mq *q)
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

/* Puts a message back at the front of its priority (lock held): a dead receiver's
 * handed-off message, sent before anything queued since. */
static inline void front_push(struct vigil__mq *q, uint32_t ref, struct vigil__mq_slot *s, uint32_t prio)
{
    /* prio: the slot's priority, read once and checked by the caller (the shared copy
     * may change under us). */
    struct vigil__mq_hdr *h = q->h;
    struct vigil__mq_head *hd = &q->heads[prio];
    uint32_t head = hd->head;
    s->next = head;
    if (!head)
        hd->tail = ref;
    hd->head = ref; /* commit: the message is queued again */
    bit_set(h, prio);
    if (h->curmsgs && (h->top_ref || h->top_exact) && prio == h->top_prio)
        h->top_ref = ref; /* in front of the first list's head */
    else
        top_note(h, h->curmsgs, prio, ref);
    h->curmsgs++;
}

/* Pushes a slot on the free list (lock held). */
static inline void slot_free(struct vigil__mq *q, uint32_t ref)
{
    slot_at(q, ref)->next = q->h->free_head;
    q->h->free_head = ref;
}

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

/* Rebuilds everything derived from the lists (lock taken over from a dead owner). */
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
    uint32_t count = 0;
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
            count++;
            last = ref;
            ref = s->next;
        }
        hd->tail = last;
        if (last)
            bit_set(h, p);
    }
    /* Records: a dead waiter's record is released; a message handed to a receiver
     * that died before taking it goes back to the front of its priority. */
    uint32_t busy = 0;
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++) {
        struct vigil__mq_rec *r = &q->recs[i];
        uint32_t st = atomic_load_explicit(&r->state, memory_order_relaxed);
        if (st == VIGIL__REC_FREE)
            continue;
        bool alive = owner_alive(r->owner_tid);
        if (st == VIGIL__REC_READY && r->kind == VIGIL__REC_RECV) {
            uint32_t ref = r->slot;
            if (!ref_ok(q, ref) || ref > h->fresh)
                return -EBADMSG;
            struct vigil__mq_slot *s = slot_at(q, ref);
            uint32_t sprio = s->prio; /* read once: checked, then used */
            if (s->mark == epoch || s->len > q->msgsize || sprio >= VIGIL__MQ_NPRIO)
                return -EBADMSG;
            s->mark = epoch;
            if (!alive) {
                struct vigil__mq_head *hd = &q->heads[sprio];
                uint32_t head = hd->head;
                s->next = head;
                if (!head)
                    hd->tail = ref;
                hd->head = ref; /* commit: the message is queued again */
                bit_set(h, sprio);
                count++;
            }
        }
        if (alive) {
            busy++;
            continue;
        }
        atomic_store_explicit(&r->state, VIGIL__REC_FREE, memory_order_relaxed);
        r->owner_tid = 0;
    }
    if (count > q->maxmsg)
        return -EBADMSG;
    h->rec_hwm = VIGIL__MQ_NREC; /* scan all until records are taken afresh */
    h->free_head = 0;
    for (uint32_t ref = h->fresh; ref >= 1; ref--)
        if (slot_at(q, ref)->mark != epoch)
            slot_free(q, ref);
    h->curmsgs = count;
    h->nrec_busy = busy;
    if (top_refresh(q) < 0)
        return -EBADMSG;
    /* Whoever sleeps may have missed the wake the dead process owed: wake them all
     * (they re-check), including loop watchers. */
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++)
        if (atomic_load_explicit(&q->recs[i].state, memory_order_relaxed) != VIGIL__REC_FREE)
            vigil__futex_wake(&q->recs[i].state, INT_MAX);
    atomic_fetch_add_explicit(&h->spare_seq, 1, memory_order_relaxed);
    vigil__futex_wake(&h->spare_seq, INT_MAX);
    atomic_fetch_add_explicit(&h->state_seq, 1, memory_order_relaxed);
    vigil__futex_wake(&h->state_seq, INT_MAX);
    return 0;
}

/* -------------------------------------------------------------- waiters */

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
    atomic_store_explicit(&r->state, VIGIL__REC_FREE, memory_order_relaxed);
    r->owner_tid = 0;
    if (h->nrec_busy)
        h->nrec_busy--;
    return ret;
}

static inline int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Oldest live waiter of a kind in state WAITING, or NULL (lock held). A waiter that is
 * polling (within its spin time) is taken as alive without asking; one that sleeps
 * or overstayed its spin is checked with the kernel (one kill(tid, 0)) and settled
 * if dead (rec_reap). */
static struct vigil__mq_rec *waiter_find(struct vigil__mq *q, uint32_t kind)
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
        if (owner_alive(best->owner_tid))
            return best;
        rec_reap(q, best);
    }
}

/* Settles every dead waiter's record (lock held; one kill(tid, 0) per waiter). Called
 * before a receiver decides to sleep on an "empty" queue, and by sleepers now and then:
 * a dead receiver may hold a handed-off message. */
static int reclaim_ready(struct vigil__mq *q)
{
    uint32_t hwm = q->h->rec_hwm < VIGIL__MQ_NREC ? q->h->rec_hwm : VIGIL__MQ_NREC;
    uint32_t me = self_tid();
    for (uint32_t i = 0; i < hwm; i++) {
        struct vigil__mq_rec *r = &q->recs[i];
        if (atomic_load_explicit(&r->state, memory_order_relaxed) == VIGIL__REC_FREE)
            continue;
        uint32_t tid = r->owner_tid;
        if (tid == me || owner_alive(tid))
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

/* Releases the caller's record (lock held). */
static void rec_release(struct vigil__mq *q, struct vigil__mq_rec *r)
{
    atomic_store_explicit(&r->state, VIGIL__REC_FREE, memory_order_relaxed);
    r->owner_tid = 0;
    if (q->h->nrec_busy)
        q->h->nrec_busy--;
}

static int ts_valid(const struct timespec *ts)
{
    return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L && ts->tv_sec >= 0;
}

/* Per thread: how many more waits skip the pure spin because recent ones found the
 * other side not running on another CPU (it shares ours, or is descheduled). */
static _Thread_local unsigned spin_skip __attribute__((tls_model("initial-exec")));

/* Sleeps while *word == val: spins first (if spin), then futex waits in slices.
 * sleeping (may be NULL) is set while in FUTEX_WAIT so a waker skips the wake system
 * call when nobody sleeps. Returns 0 when the word changed or a slice ended (the caller
 * re-checks), -ETIMEDOUT at abs_rt, -EINTR on a signal. */
static int wait_word(_Atomic uint32_t *word, uint32_t val, const struct timespec *abs_rt, bool spin,
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
    h->spare_waiters++;
    qunlock(q);
    int r = wait_word(&h->spare_seq, seq, abs_rt, false, NULL);
    int lr = qlock(q);
    *locked = lr >= 0;
    if (lr < 0)
        return lr;
    if (h->spare_waiters)
        h->spare_waiters--;
    return r;
}

/* Wakes a record's waiter if it sleeps in the kernel (after its state changed). */
static inline void rec_wake(struct vigil__mq_rec *r)
{
    /* seq_cst fence: orders our earlier state store before this load (see wait_word). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&r->sleeping, memory_order_relaxed))
        vigil__futex_wake(&r->state, 1);
}

/* ---------------------------------------------------------------- send */

/* After a change (lock held): bumps the words of loop watchers (if the change turned
 * the queue non-empty or non-full) and of threads waiting without a record, if there
 * are any; the caller wakes them after unlocking. Returns a bit mask: 1 watchers,
 * 2 spare waiters. */
static inline unsigned watch_bump(struct vigil__mq_hdr *h, bool turned)
{
    unsigned m = 0;
    /* Loop watchers are level-triggered and arm a wait only while their condition
     * is false: they need a wake only when the queue turns non-empty or non-full. */
    if (turned && atomic_load_explicit(&h->watchers, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&h->state_seq, 1, memory_order_release);
        m |= 1;
    }
    if (h->spare_waiters) {
        atomic_fetch_add_explicit(&h->spare_seq, 1, memory_order_release);
        m |= 2;
    }
    return m;
}

static inline void watch_wake(struct vigil__mq_hdr *h, unsigned m)
{
    if (m & 1)
        vigil__futex_wake(&h->state_seq, INT_MAX);
    if (m & 2)
        vigil__futex_wake(&h->spare_seq, INT_MAX);
}

static void notify_deliver(const struct vigil__mq_fire *f, struct vigil__mq_hdr *h);

/* The whole send, every case (lock held on entry, released on return). */
static __attribute__((noinline)) int send_locked(struct vigil__mq *q, const char *msg, size_t len, unsigned prio,
                                                 const struct timespec *abs_rt, int nonblock)
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
        if (ref) {
            struct vigil__mq_slot *s = slot_at(q, ref);
            msg_copy(s->data, msg, len);
            s->len = (uint32_t)len;
            s->prio = prio;
            s->next = 0;
            struct vigil__mq_rec *w = NULL;
            if (h->nrec_busy) {
                w = waiter_find(q, VIGIL__REC_RECV);
                cur = h->curmsgs; /* settling a dead receiver may have queued its message */
            }
            struct vigil__mq_fire fire = {0};
            if (w) {
                /* Pipelined send: the oldest waiting receiver gets the slot. The
                 * release store is the commit and publishes the slot's bytes to the
                 * receiver, which reads them without the lock. */
                w->slot = ref;
                atomic_store_explicit(&w->state, VIGIL__REC_READY, memory_order_seq_cst);
            } else {
                struct vigil__mq_head *hd = &q->heads[prio];
                if (hd->head) {
                    /* The list's tail is only meaningful while its head is set. */
                    uint32_t tail = hd->tail;
                    if (!ref_ok(q, tail) || tail > h->fresh) {
                        slot_free(q, ref);
                        r = -EBADMSG;
                        goto out_unlock;
                    }
                    slot_at(q, tail)->next = ref; /* commit */
                    hd->tail = ref;
                } else {
                    hd->head = ref; /* commit */
                    hd->tail = ref;
                    bit_set(h, prio); /* a non-empty list has its bit already */
                }
                top_note(h, cur, prio, ref);
                h->curmsgs = cur + 1;
                /* Notification: a message arrives on an empty queue and no receiver
                 * waits (none did: w == NULL). One-shot: unregister now. */
                if (cur == 0 && h->notify_pid) {
                    fire.kind = h->notify_kind;
                    fire.pid = h->notify_pid;
                    fire.signo = h->notify_signo;
                    fire.value = h->notify_value;
                    h->fired_token = h->notify_token;
                    h->notify_pid = 0;
                    if (fire.kind == SIGEV_THREAD)
                        atomic_fetch_add_explicit(&h->notify_seq, 1, memory_order_release);
                }
            }
            unsigned bumped = watch_bump(h, cur == 0);
            qunlock(q);
            if (w)
                rec_wake(w);
            watch_wake(h, bumped);
            if (fire.pid > 0 && !q->no_signal) /* SIGEV_SIGNAL is 0: the pid says whether one fired */
                notify_deliver(&fire, h);
            return 0;
        }
        /* Full (or every free slot is in a hand-off that is finishing). */
        if (nonblock) {
            r = -EAGAIN;
            goto out_unlock;
        }
        if (abs_rt && !ts_valid(abs_rt)) {
            r = -EINVAL;
            goto out_unlock;
        }
        struct vigil__mq_rec *me = rec_take(q, VIGIL__REC_SEND);
        if (!me) {
            /* More blocked threads than records: wait on the shared spare word. */
            bool locked;
            r = spare_wait(q, abs_rt, &locked);
            if (!locked)
                return r;
            if (r < 0)
                goto out_unlock;
            continue;
        }
        qunlock(q);
        for (;;) {
            r = wait_word(&me->state, VIGIL__REC_WAITING, abs_rt, true, &me->sleeping);
            int lr = qlock(q);
            if (lr < 0)
                return lr; /* our record stays; its robust mutex frees it later */
            if (atomic_load_explicit(&me->state, memory_order_relaxed) != VIGIL__REC_WAITING || r < 0 ||
                h->curmsgs < q->maxmsg)
                break;
            qunlock(q);
        }
        rec_release(q, me);
        if (r < 0 && h->curmsgs >= q->maxmsg)
            goto out_unlock;
        /* Room (or a timeout that raced with room: sending is then the right answer). */
    }
out_unlock:
    qunlock(q);
    return r;
}

/* ------------------------------------------------------------- receive */

/* Wakes the oldest blocked sender, if any (lock held). Returns it for the wake after
 * unlock. */
static struct vigil__mq_rec *room_wake(struct vigil__mq *q)
{
    if (!q->h->nrec_busy)
        return NULL;
    struct vigil__mq_rec *w = waiter_find(q, VIGIL__REC_SEND);
    if (w)
        atomic_store_explicit(&w->state, VIGIL__REC_READY, memory_order_seq_cst);
    return w;
}

/* The whole receive, every case (lock held on entry, released on return). */
static __attribute__((noinline)) ssize_t receive_locked(struct vigil__mq *q, char *buf, size_t len, unsigned *prio,
                                                        const struct timespec *abs_rt, int nonblock)
{
    struct vigil__mq_hdr *h = q->h;
    ssize_t r;
    for (;;) {
        uint32_t cur = h->curmsgs;
        if (cur > q->maxmsg) {
            r = -EBADMSG;
            goto out_unlock;
        }
        if (cur) {
            /* The shortcut names the first message: its slot and its list head load
             * in parallel instead of a chain through the bitmap. */
            uint32_t p = h->top_prio, ref = h->top_ref;
            if (ref == 0 && h->top_exact) {
                if (p >= VIGIL__MQ_NPRIO) {
                    r = -EBADMSG;
                    goto out_unlock;
                }
                ref = q->heads[p].head;
                h->top_ref = ref;
            } else if (ref == 0) {
                /* Not known since the last list emptied: walk the bitmap. */
                long hp = bit_highest(h);
                if (hp < 0 || (uint32_t)hp > p) {
                    r = -EBADMSG;
                    goto out_unlock;
                }
                p = (uint32_t)hp;
                ref = q->heads[p].head;
                h->top_prio = p;
                h->top_ref = ref;
            }
            if (p >= VIGIL__MQ_NPRIO || !ref_ok(q, ref) || ref > h->fresh) {
                r = -EBADMSG;
                goto out_unlock;
            }
            struct vigil__mq_head *hd = &q->heads[p];
            if (hd->head != ref) {
                r = -EBADMSG;
                goto out_unlock;
            }
            struct vigil__mq_slot *s = slot_at(q, ref);
            uint32_t mlen = s->len, next = s->next;
            if (mlen > q->msgsize || (next && (!ref_ok(q, next) || next > h->fresh))) {
                r = -EBADMSG;
                goto out_unlock;
            }
            /* Copy first: if we die here the message is still queued. */
            msg_copy(buf, s->data, mlen);
            hd->head = next; /* commit: the message is ours */
            h->curmsgs = cur - 1;
            h->top_ref = next;
            if (!next)
                top_after_empty(q, p, cur);
            slot_free(q, ref);
            /* The next receive starts from this slot; in a deep queue it was written
             * long ago and has left L1: fetch it while the caller does other work. */
            if (ref_ok(q, h->top_ref))
                __builtin_prefetch(slot_at(q, h->top_ref));
            else if (h->top_exact && h->top_prio < VIGIL__MQ_NPRIO)
                __builtin_prefetch(&q->heads[h->top_prio]);
            struct vigil__mq_rec *w = room_wake(q);
            unsigned bumped = watch_bump(h, cur == q->maxmsg);
            qunlock(q);
            if (w)
                rec_wake(w);
            watch_wake(h, bumped);
            if (prio)
                *prio = (unsigned)p;
            return mlen;
        }
        if (h->nrec_busy) {
            /* A receiver that died holding a handed-off message left it in its record. */
            r = reclaim_ready(q);
            if (r < 0)
                goto out_unlock;
            if (h->curmsgs)
                continue;
        }
        if (nonblock) {
            r = -EAGAIN;
            goto out_unlock;
        }
        if (abs_rt && !ts_valid(abs_rt)) {
            r = -EINVAL;
            goto out_unlock;
        }
        struct vigil__mq_rec *me = rec_take(q, VIGIL__REC_RECV);
        if (!me) {
            /* More blocked threads than records: wait on the shared spare word. */
            bool locked;
            r = spare_wait(q, abs_rt, &locked);
            if (!locked)
                return r;
            if (r < 0)
                goto out_unlock;
            continue;
        }
        qunlock(q);
        int wr;
        for (;;) {
            wr = wait_word(&me->state, VIGIL__REC_WAITING, abs_rt, true, &me->sleeping);
            if (atomic_load_explicit(&me->state, memory_order_acquire) == VIGIL__REC_READY)
                break;
            int lr = qlock(q);
            if (lr < 0)
                return lr;
            if (atomic_load_explicit(&me->state, memory_order_relaxed) == VIGIL__REC_READY) {
                qunlock(q);
                break;
            }
            if (wr == 0 && !h->curmsgs && h->nrec_busy > 1) {
                /* A slice ended (or a spurious wake): a receiver that died may hold a
                 * message handed to it; put such messages back in the queue. */
                int rr = reclaim_ready(q);
                if (rr < 0) {
                    rec_release(q, me);
                    r = rr;
                    goto out_unlock;
                }
            }
            if (wr < 0 || h->curmsgs) {
                /* Timed out, interrupted, or a message queued past us (a slice ended
                 * after a waker died): give the record back, still locked. */
                rec_release(q, me);
                if (wr < 0 && !h->curmsgs) {
                    r = wr;
                    goto out_unlock;
                }
                goto again;
            }
            qunlock(q);
        }
        {
            /* Hand-off: the slot is ours until we free it; copy without the lock. */
            uint32_t ref = me->slot;
            if (!ref_ok(q, ref)) {
                r = -EBADMSG;
                if (qlock(q) == 0) {
                    rec_release(q, me);
                    qunlock(q);
                }
                return r;
            }
            struct vigil__mq_slot *s = slot_at(q, ref);
            uint32_t mlen = s->len, mprio = s->prio;
            if (mlen > q->msgsize) {
                r = -EBADMSG;
                if (qlock(q) == 0) {
                    rec_release(q, me);
                    qunlock(q);
                }
                return r;
            }
            msg_copy(buf, s->data, mlen);
            int lr = qlock(q);
            if (lr < 0)
                return lr;
            rec_release(q, me); /* commit: state FREE, the message is delivered */
            if (ref <= h->fresh)
                slot_free(q, ref);
            struct vigil__mq_rec *w = room_wake(q);
            unsigned bumped = watch_bump(h, true);
            qunlock(q);
            if (w)
                rec_wake(w);
            watch_wake(h, bumped);
            if (prio)
                *prio = mprio;
            return mlen;
        }
    again:;
    }
out_unlock:
    qunlock(q);
    return r;
}

long vigil__mq_curmsgs(struct vigil__mq *q)
{
    /* A racy snapshot, like the kernel's mq_getattr (it may be stale on return). */
    uint32_t c = __atomic_load_n(&q->h->curmsgs, __ATOMIC_RELAXED);
    return c > q->maxmsg ? -EBADMSG : (long)c;
}

/* -------------------------------------------------------------- notify */

static void notify_deliver(const struct vigil__mq_fire *f, struct vigil__mq_hdr *h)
{
    if (f->kind == SIGEV_SIGNAL) {
        if (f->signo <= 0 || f->signo >= NSIG)
            return; /* not a value vigil_mq_notify stored: scribbled */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        si.si_signo = f->signo;
        si.si_code = SI_MESGQ;
        si.si_pid = getpid();
        si.si_uid = getuid();
        si.si_value.sival_ptr = (void *)(uintptr_t)f->value;
        /* EPERM (another user's process) or ESRCH (it died): dropped, as documented. */
        syscall(SYS_rt_sigqueueinfo, f->pid, f->signo, &si);
    } else if (f->kind == SIGEV_THREAD) {
        vigil__futex_wake(&h->notify_seq, INT_MAX);
    }
}

int vigil__mq_notify_set(struct vigil__mq *q, int32_t pid, const struct sigevent *sev, uint64_t token)
{
    struct vigil__mq_hdr *h = q->h;
    int r = qlock(q);
    if (r < 0)
        return r;
    int32_t owner = h->notify_pid;
    if (!sev) {
        if (owner == pid)
            h->notify_pid = 0;
        qunlock(q);
        return 0;
    }
    /* One registration per queue, even for the same process (as the kernel). A
     * registered process that no longer exists does not hold the queue forever. */
    if (owner && (owner == pid || !(kill(owner, 0) < 0 && errno == ESRCH))) {
        qunlock(q);
        return -EBUSY;
    }
    h->notify_pid = pid;
    h->notify_kind = sev->sigev_notify;
    h->notify_signo = sev->sigev_signo;
    h->notify_value = (uint64_t)(uintptr_t)sev->sigev_value.sival_ptr;
    h->notify_token = token;
    qunlock(q);
    return 0;
}

void vigil__mq_notify_drop(struct vigil__mq *q, int32_t pid)
{
    if (qlock(q) < 0)
        return;
    if (q->h->notify_pid == pid)
        q->h->notify_pid = 0;
    qunlock(q);
}

/* -------------------------------------------------------------- checker */

int vigil__mq_check(struct vigil__mq *q, char *why, size_t why_len)
{
#define FAIL(...)                                   \
    do {                                            \
        snprintf(why, why_len, __VA_ARGS__);        \
        r = -EBADMSG;                               \
        goto out;                                   \
    } while (0)
    struct vigil__mq_hdr *h = q->h;
    int r = qlock(q);
    if (r < 0) {
        snprintf(why, why_len, "lock: %d", r);
        return r;
    }
    if (h->fresh > q->maxmsg)
        FAIL("fresh %u > maxmsg %u", h->fresh, q->maxmsg);
    uint32_t count = 0, nfree = 0, busy = 0;
    for (uint32_t p = 0; p < VIGIL__MQ_NPRIO; p++) {
        struct vigil__mq_head *hd = &q->heads[p];
        bool bit = (h->lvl[p >> 6] >> (p & 63)) & 1;
        if (!!hd->head != bit)
            FAIL("prio %u: head %u, bit %d", p, hd->head, bit);
        uint32_t ref = hd->head, last = 0, n = 0;
        while (ref) {
            if (!ref_ok(q, ref) || ref > h->fresh || ++n > q->maxmsg)
                FAIL("prio %u: bad ref %u", p, ref);
            struct vigil__mq_slot *s = slot_at(q, ref);
            if (s->prio != p || s->len > q->msgsize)
                FAIL("prio %u: slot %u prio %u len %u", p, ref, s->prio, s->len);
            last = ref;
            ref = s->next;
        }
        if (hd->head && hd->tail != last)
            FAIL("prio %u: tail %u, last %u", p, hd->tail, last);
        count += n;
    }
    for (uint32_t w = 0; w < VIGIL__MQ_NPRIO / 64; w++)
        if (!!h->lvl[w] != (int)((h->top[w >> 6] >> (w & 63)) & 1))
            FAIL("bitmap word %u disagrees with the top level", w);
    if (count != h->curmsgs)
        FAIL("curmsgs %u, counted %u", h->curmsgs, count);
    if (count) {
        long p = bit_highest(h);
        if (p < 0 || (h->top_ref && (h->top_prio != (uint32_t)p || h->top_ref != q->heads[p].head)) ||
            (!h->top_ref && h->top_exact && (uint32_t)p != h->top_prio) ||
            (!h->top_ref && (uint32_t)p > h->top_prio))
            FAIL("shortcut: top %u/%u, highest %ld", h->top_prio, h->top_ref, p);
        if (h->k2_valid) {
            long second = -1;
            for (long pp = p - 1; pp >= 0 && second < 0; pp--)
                if (q->heads[pp].head)
                    second = pp;
            if (second < 0 || (uint32_t)second != h->k2_prio)
                FAIL("runner-up %u, found %ld", h->k2_prio, second);
        }
    }
    for (uint32_t ref = h->free_head; ref; ref = slot_at(q, ref)->next) {
        if (!ref_ok(q, ref) || ref > h->fresh || ++nfree > q->maxmsg)
            FAIL("free list: bad ref %u", ref);
    }
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++) {
        uint32_t st = atomic_load_explicit(&q->recs[i].state, memory_order_relaxed);
        if (st != VIGIL__REC_FREE)
            busy++;
    }
    if (busy != h->nrec_busy)
        FAIL("nrec_busy %u, counted %u", h->nrec_busy, busy);
    if (busy == 0 && count + nfree != h->fresh)
        FAIL("slots: %u queued + %u free != %u used", count, nfree, h->fresh);
out:
    qunlock(q);
    return r;
#undef FAIL
}

/* ------------------------------------------------------------ fast paths */

/* The uncontended cases, kept small (no waiter, no notification, no watcher, the first
 * message known): a lock, a copy, a few stores, an unlock. Anything else goes to the
 * whole operation above, with the lock still held. */

int vigil__mq_send(struct vigil__mq *q, const char *msg, size_t len, unsigned prio,
                   const struct timespec *abs_rt, int nonblock)
{
    struct vigil__mq_hdr *h = q->h;
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
    msg_copy(s->data, msg, len);
    s->len = (uint32_t)len;
    s->prio = prio;
    s->next = 0;
    if (head) {
        slot_at(q, tail)->next = ref; /* commit */
        hd->tail = ref;
    } else {
        hd->head = ref; /* commit */
        hd->tail = ref;
        bit_set(h, prio);
    }
    top_note(h, cur, prio, ref);
    h->curmsgs = cur + 1;
    qunlock(q);
    return 0;
}

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
    struct vigil__mq_head *hd = &q->heads[p];
    struct vigil__mq_slot *s = slot_at(q, ref);
    uint32_t mlen = s->len, next = s->next;
    if (__builtin_expect(hd->head != ref || mlen > q->msgsize || (next && (!ref_ok(q, next) || next > h->fresh)), 0))
        return receive_locked(q, buf, len, prio, abs_rt, nonblock); /* reports it */
    /* Copy first: if we die here the message is still queued. */
    msg_copy(buf, s->data, mlen);
    hd->head = next; /* commit: the message is ours */
    h->curmsgs = cur - 1;
    h->top_ref = next;
    if (!next)
        top_after_empty(q, p, cur);
    slot_free(q, ref);
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

/* ------------------------------------------------------------ loop watchers */

int vigil__mq_ready(struct vigil__mq *q, uint32_t events)
{
    /* Racy snapshots, read after the caller loaded state_seq (acquire): a change made
     * after that load also bumped state_seq, so a wait armed with the loaded value
     * returns at once. */
    uint32_t cur = __atomic_load_n(&q->h->curmsgs, __ATOMIC_RELAXED);
    if (cur > q->maxmsg)
        return -EBADMSG;
    int m = 0;
    if ((events & 0x001u) && cur > 0)
        m |= 0x001; /* VIGIL_READ */
    if ((events & 0x004u) && cur < q->maxmsg)
        m |= 0x004; /* VIGIL_WRITE */
    return m;
}

int vigil__mq_watchers(struct vigil__mq *q, int delta)
{
    /* Counted across processes; a watcher that dies leaves the count high, which only
     * costs the queue's users a futex wake on each turn to non-empty/non-full. */
    if (delta < 0) {
        if (atomic_load_explicit(&q->h->watchers, memory_order_relaxed))
            atomic_fetch_sub_explicit(&q->h->watchers, 1, memory_order_relaxed);
        return 0;
    }
    /* Changed under the lock: a sender that locks after us sees the count and wakes;
     * one that locked before us finished its change before our first look. */
    int r = qlock(q);
    if (r < 0)
        return r;
    atomic_fetch_add_explicit(&q->h->watchers, 1, memory_order_relaxed);
    qunlock(q);
    return 0;
}
