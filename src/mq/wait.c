/* Waiting: the waiter records of blocked senders and receivers (take, find the oldest,
 * release, settle a dead one's), the wait on a record's state word (spin, sleep, edges,
 * signals), and the spare word of threads that found every record taken. Calls the
 * lock (queue_int.h) and the futex wrappers; the records' rules are in lock.c (LOCKING,
 * PIPELINED SEND); this file's own rules follow.
 *
 * SIGNALS
 *   The kernel's mq calls fail with EINTR when a handler installed without SA_RESTART
 *   runs while they wait, and go on (restart) after a handler with SA_RESTART; a call
 *   that already has its message (or room) returns it. A vigil wait has three phases:
 *   the spin (polling the record's state in user space), the sleep (one futex sleep to
 *   the caller's deadline; no slices), and edges (the sleep ended with the state
 *   unchanged: a stale wake meant for the record's previous owner, or recovery's
 *   wake-all; the caller looks at the queue under the lock and sleeps again). Each
 *   phase answers as the kernel does:
 *   - the sleep is one futex system call that the kernel itself restarts after an
 *     SA_RESTART handler and fails with EINTR after any other (-ERESTARTSYS): without a
 *     deadline FUTEX_WAIT; with one futex_waitv (Linux 5.16), which returns -ERESTARTSYS
 *     even when timed (its deadline is absolute). FUTEX_WAIT with a timeout would fail
 *     with EINTR after both kinds (it restarts through restart_syscall, which a handler
 *     cancels). futex_waitv is not used without a deadline: on the lab's VM a receiver
 *     woken from it paid ~25% more CPU per message than one woken from FUTEX_WAIT
 *     (mq-lowrate, gap 200 us). Without futex_waitv (older kernels, or a seccomp filter
 *     that refuses it: ENOSYS/EPERM, remembered) a timed sleep is FUTEX_WAIT_BITSET and
 *     then fails with EINTR after an SA_RESTART handler too.
 *   - the spin and the edges run with the thread's signals blocked (one rt_sigprocmask),
 *     so no handler runs unseen in user space. A signal that arrives meanwhile stays
 *     pending. Before the sleep the wait looks at what is pending (rt_sigpending, then
 *     each pending signal's action): a handler without SA_RESTART makes the call fail
 *     with EINTR; a handler with SA_RESTART, SIG_IGN or SIG_DFL (ignored, stop, or fatal)
 *     lets it go on. Then it restores the caller's mask, which runs those handlers. A
 *     wait that ends (message, room, timeout) restores the mask last, after the lock is
 *     released: a handler then runs after the call took its message, as with the kernel.
 *   - a wait that does not spin (predicted long: WAITING THAT PAYS FOR ITSELF) leaves
 *     signals unblocked and sleeps at once.
 *   Left open, because no futex call takes a signal mask (ppoll and pselect do, for file
 *   descriptors only), so unblocking and sleeping cannot be one step: a signal arriving
 *   between the look at what is pending and the futex system call (the return of one
 *   rt_sigprocmask plus a few instructions), between taking the record and the futex
 *   call of a wait that does not spin (a few dozen instructions), or during the return
 *   of a futex call that then turns out to be an edge, runs its handler unseen, and the
 *   call waits on. These windows are fixed, well under a microsecond, and do not grow
 *   with the wait.
 *   Never blocked: SIGKILL and SIGSTOP (the kernel refuses), glibc's internal signals 32
 *   and 33 (cancellation, setxid: blocking them stalls another thread's setuid), and the
 *   synchronous faults SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP (a fault while spinning,
 *   e.g. SIGBUS from a truncated segment, must reach its handler; a blocked fault signal
 *   kills the process). The SA_RESTART answer reads the action when the signal is found
 *   pending: a thread that changes that action in between makes the old one decide.
 *   A process-directed signal that arrives while the waiter has signals blocked goes to
 *   another thread of the process that does not block it, if there is one (the kernel
 *   picks any such thread for the kernel's queues too).
 *   Cost: the block and the restore are two system calls (about 0.1 us each on bare
 *   metal, 0.5 us on the lab's VM), paid only by a wait that spins; one that sleeps at
 *   once makes no system call besides the futex's.
 *
 * WAITING THAT PAYS FOR ITSELF
 *   A spin costs the waiter CPU for as long as it lasts (plus, here, the two system
 *   calls that block and restore its signals); a sleep and a wake cost it a few
 *   microseconds of system time and a wake-up latency, whatever the wait. Each process
 *   keeps, per queue and direction, an average of its recent waits there
 *   (q->wait_est_ns), and one average of its wake-up latency (wake_lat_ns: from the
 *   waker's stamp to the sleeper running again): exponentially weighted, 1/8 per
 *   sample, in the process, never in shared memory. A wait spins only when its queue's
 *   average is under twice the wake-up latency (bounded to WORTH_MIN_NS..WORTH_MAX_NS),
 *   for up to 4x that average (SPIN_MIN_NS..SPIN_MAX_NS); otherwise it sleeps at once.
 *   Twice, because when both sides of a request/response exchange sleep, each one's
 *   wait is the other's wake-up plus its work: a little over one latency, and the
 *   factor lets them find their way back to spinning. One long wait moves the average
 *   by at most WAIT_CAP_NS/8. A wait that slept still learns how long it really waited
 *   (not how long its wake-up took): the waker stamps the record's ready_ns
 *   (CLOCK_MONOTONIC) as it picks it; a stamp is a hint from shared memory, used only
 *   inside [start of the wait, now].
 *   A wait that follows a late resumption starts late: where the other side keeps its
 *   own clock (a producer sending every G us), a receiver that slept and took L to run
 *   again next waits only G - L, and averaging those waits says "short" where the gap
 *   is not (G = 50 us and L = 30 us, an idle vCPU woken from HLT: waits of ~20 us, so
 *   spins of up to 20 us of CPU, where a sleep and a wake cost the receiver ~3 us: a
 *   candidate for mq-lowrate's 1.06-1.23x the kernel's receiver CPU at 50 and 200 us in
 *   three full lab runs on the otherwise idle VM, against ~1.0x by hand on a loaded one,
 *   where the receiver's CPU is never idle; the benchmark's sleeps_per_msg tells). So
 *   each sample counts back in how late the thread's previous wait resumed after its
 *   word changed (vigil__mq_late_ns, per thread: the wake-up latency after a sleep,
 *   next to nothing after a spin): G, not G - L. Unless the thread sent a message in
 *   between (any queue): then the wait is for an answer (request/response), which
 *   started with our send and was not shortened by our lateness; counting it in there
 *   kept 64 KiB round trips, whose waits are ~10 us, sleeping once they had slept
 *   (mq-pingpong: 25 -> 34 us).
 *   A thread whose waits sleep at once times only one of them in VIGIL__MQ_SLEEP_TIMED
 *   (4; a countdown per thread, untimed_left). The two clock reads of a timed wait
 *   cost a receiver 70-90 ns of its ~1.7 us per message on the lab's VM (27 ns each
 *   with the clock's data hot, more after a sleep): vigil's receiver was at 1.12x the
 *   kernel's CPU at 50-200 us between messages, a bare shared futex (the floor of any
 *   queue in shared memory, mq-lowrate's "futex" row) at 1.02-1.03x; with one wait in
 *   four timed, 1.09x (untimed throughout, 1.07x; one in eight, no better than four).
 *   An untimed wait learns nothing, so a pace that quickens takes four times as many
 *   waits to be seen. The untimed wait just before a timed one reads the clock at its
 *   end for the lateness that sample counts back in; other untimed waits leave
 *   vigil__mq_late_ns as an earlier wait of the thread's set it.
 *
 * DEAD WAKERS
 *   The sleep has no slices, so a sleeper does not look for lost wakes itself. A waker
 *   that dies between making a record READY (its commit) and its futex wake leaves the
 *   record READY with its owner asleep: the next send or receive on the queue scans the
 *   records (a busy record keeps every call off the fast path), and wakes such a sleeper
 *   once its record has been READY for STUCK_NS, or settles the record if its thread is
 *   gone (ready_stuck). A waker that dies holding the lock is found by the next caller
 *   that takes it, whose recovery wakes every sleeper (lock.c). Until another call
 *   comes, such a sleeper sleeps on, to its deadline.
 */
#include "mq/queue_int.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#define SPIN_MAX_NS 20000       /* the longest spin */
#define SPIN_MIN_NS 2000        /* the shortest (a wait predicted very short) */
#define SPIN_PURE_NS 3000       /* of a spin, polling without yielding the CPU */
#define WORTH_MIN_NS 5000       /* spin when recent waits averaged under twice the */
#define WORTH_MAX_NS 25000      /* wake-up latency, kept within these bounds */
#define WAIT_CAP_NS 64000       /* one long wait moves the average by at most cap/8 */
#define STUCK_NS 10000000       /* READY this long with its owner asleep: a lost wake */

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449     /* the same number on every architecture */
#endif

_Atomic(vigil__mq_wait_hook_fn) vigil__mq_wait_hook;

static inline void hook(int phase, struct vigil__mq_rec *r)
{
    vigil__mq_wait_hook_fn f = atomic_load_explicit(&vigil__mq_wait_hook, memory_order_relaxed);
    if (__builtin_expect(f != NULL, 0))
        f(phase, r);
}

/* This process's wake-up latency (a waker's stamp to the sleeper running again),
 * averaged over its sleeps on every queue: what a sleep costs in time. */
static _Atomic uint32_t wake_lat_ns = 10000;

_Thread_local uint32_t vigil__mq_late_ns __attribute__((tls_model("initial-exec")));

/* Per thread: untimed waits left before the next timed one (WAITING THAT PAYS FOR
 * ITSELF). 0: the next wait that sleeps at once is timed. */
static _Thread_local unsigned untimed_left __attribute__((tls_model("initial-exec")));

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

/* A READY record whose owner still sleeps STUCK_NS after its waker's stamp: the waker
 * died (or stopped) between the commit and its wake (DEAD WAKERS). Wakes the sleeper,
 * or settles the record if its thread is gone (lock held; *now: 0 until read). A
 * scribbled stamp costs at most one spare wake per STUCK_NS. */
static int ready_stuck(struct vigil__mq *q, struct vigil__mq_rec *r, int64_t *now)
{
    if (!atomic_load_explicit(&r->sleeping, memory_order_relaxed))
        return 0;
    if (!*now)
        *now = vigil__clock_ns(CLOCK_MONOTONIC);
    uint64_t t = atomic_load_explicit(&r->ready_ns, memory_order_relaxed);
    if ((uint64_t)*now - t < STUCK_NS) /* a stamp from the future wraps: stuck */
        return 0;
    atomic_store_explicit(&r->ready_ns, (uint64_t)*now, memory_order_relaxed);
    if (!vigil__mq_owner_alive(r->owner_tid))
        return rec_reap(q, r);
    vigil__futex_wake(&r->state, INT_MAX);
    return 0;
}

/* A record READY for STUCK_NS or more (*now: 0 until read). */
static bool ready_old(struct vigil__mq_rec *r, int64_t *now)
{
    if (!*now)
        *now = vigil__clock_ns(CLOCK_MONOTONIC);
    uint64_t t = atomic_load_explicit(&r->ready_ns, memory_order_relaxed);
    return (uint64_t)*now - t >= STUCK_NS; /* a stamp from the future wraps: old */
}

/* Oldest live waiter of a kind in state WAITING, or NULL (lock held); the caller makes
 * it READY at once, so it is stamped now (ready_ns). A waiter that is polling (within
 * its spin time) is taken as alive without asking; one that sleeps or overstayed its
 * spin is checked with the kernel (one kill(tid, 0)) and settled if dead (rec_reap).
 * READY records met on the way whose owners still sleep are looked at (ready_stuck). */
struct vigil__mq_rec *vigil__mq_waiter_find(struct vigil__mq *q, uint32_t kind)
{
    struct vigil__mq_hdr *h = q->h;
    uint32_t hwm = h->rec_hwm < VIGIL__MQ_NREC ? h->rec_hwm : VIGIL__MQ_NREC;
    int64_t now = 0;
    for (;;) {
        struct vigil__mq_rec *best = NULL;
        uint32_t best_age = 0, tnow = h->ticket;
        for (uint32_t i = 0; i < hwm; i++) {
            struct vigil__mq_rec *r = &q->recs[i];
            uint32_t st = atomic_load_explicit(&r->state, memory_order_relaxed);
            if (st == VIGIL__REC_READY) {
                ready_stuck(q, r, &now);
                continue;
            }
            if (st != VIGIL__REC_WAITING || r->kind != kind)
                continue;
            uint32_t age = tnow - r->ticket;
            if (!best || age > best_age) {
                best = r;
                best_age = age;
            }
        }
        if (!best)
            return NULL;
        if (!now)
            now = vigil__clock_ns(CLOCK_MONOTONIC);
        if ((!atomic_load_explicit(&best->sleeping, memory_order_relaxed) && now <= (int64_t)best->spin_until_ns) ||
            vigil__mq_owner_alive(best->owner_tid)) {
            atomic_store_explicit(&best->ready_ns, (uint64_t)now, memory_order_relaxed);
            return best;
        }
        rec_reap(q, best);
    }
}

/* Settles every dead waiter's record and wakes live sleepers whose wake was lost (lock
 * held; one kill(tid, 0) per waiter). Called before a receiver decides to sleep on an
 * "empty" queue, and after an edge: a dead receiver may hold a handed-off message. Not
 * asked about: a sender made READY less than STUCK_NS ago. It holds no message, and
 * the receive that emptied the queue has usually just woken it (asking cost that
 * receive a system call while the sender was on its way to free the record); a dead
 * one is settled by a later call, once its stamp is that old. */
int vigil__mq_reclaim_ready(struct vigil__mq *q)
{
    uint32_t hwm = q->h->rec_hwm < VIGIL__MQ_NREC ? q->h->rec_hwm : VIGIL__MQ_NREC;
    uint32_t me = self_tid();
    int64_t now = 0;
    for (uint32_t i = 0; i < hwm; i++) {
        struct vigil__mq_rec *r = &q->recs[i];
        uint32_t st = atomic_load_explicit(&r->state, memory_order_relaxed);
        if (st == VIGIL__REC_FREE)
            continue;
        uint32_t tid = r->owner_tid;
        if (tid == me)
            continue;
        int rr = 0;
        if (st == VIGIL__REC_READY) {
            rr = ready_stuck(q, r, &now);
            if (rr == 0 && r->kind == VIGIL__REC_SEND && !ready_old(r, &now))
                continue;
        }
        if (rr == 0 && atomic_load_explicit(&r->state, memory_order_relaxed) != VIGIL__REC_FREE &&
            !vigil__mq_owner_alive(tid))
            rr = rec_reap(q, r);
        if (rr < 0)
            return rr;
    }
    return 0;
}

/* Takes a free record for the calling thread (lock held), polling until spin_until_ns
 * (CLOCK_MONOTONIC). NULL if all are busy. */
static struct vigil__mq_rec *rec_take(struct vigil__mq *q, uint32_t kind, int64_t spin_until_ns)
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
        r->spin_until_ns = (uint64_t)spin_until_ns;
        atomic_store_explicit(&r->ready_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&r->sleeping, 0, memory_order_relaxed);
        atomic_store_explicit(&r->state, VIGIL__REC_WAITING, memory_order_relaxed);
        q->h->nrec_busy++;
        return r;
    }
    return NULL;
}

/* ----------------------------------------------------------------- signals */

#define SIGBIT(s) (1ull << ((s) - 1))
/* What a wait blocks (SIGNALS): all but SIGKILL, SIGSTOP, glibc's 32 and 33 and the
 * synchronous faults. Kernel sigsets are 64 bits here: the raw calls skip glibc's
 * 128-byte sets. */
#define WAIT_BLOCK                                                                                    \
    (~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP) | SIGBIT(32) | SIGBIT(33) | SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | \
       SIGBIT(SIGILL) | SIGBIT(SIGFPE) | SIGBIT(SIGTRAP)))

static void sig_block(struct vigil__mq_wait *w)
{
    uint64_t set = WAIT_BLOCK;
    if (!w->masked && syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &w->old_mask, sizeof set) == 0)
        w->masked = true;
}

static void sig_restore(struct vigil__mq_wait *w)
{
    if (!w->masked)
        return;
    w->masked = false;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &w->old_mask, NULL, sizeof w->old_mask);
}

/* Signals blocked by sig_block: does a pending signal that the caller's own mask lets
 * through have a handler without SA_RESTART (the call then fails with EINTR)? */
static bool sig_interrupts(const struct vigil__mq_wait *w)
{
    uint64_t pend = 0;
    if (syscall(SYS_rt_sigpending, &pend, sizeof pend) < 0)
        return false;
    pend &= WAIT_BLOCK & ~w->old_mask;
    while (pend) {
        int s = __builtin_ctzll(pend) + 1;
        pend &= pend - 1;
        struct sigaction sa;
        if (sigaction(s, NULL, &sa) < 0 || sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
            continue; /* no handler runs: ignored, or a stop (the call goes on), or death */
        if (!(sa.sa_flags & SA_RESTART))
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------- sleeping */

/* futex_waitv works here until it said otherwise (ENOSYS, or EPERM from a seccomp
 * filter). */
static _Atomic int waitv_ok = 1;

/* Sleeps while *word == val until abs_rt (absolute CLOCK_REALTIME, NULL: none), as
 * SIGNALS says (the kernel restarts it after an SA_RESTART handler). 0 on a wake,
 * -EAGAIN (the word differs), -ETIMEDOUT, -EINTR. */
static int futex_sleep(_Atomic uint32_t *word, uint32_t val, const struct timespec *abs_rt)
{
    if (abs_rt && atomic_load_explicit(&waitv_ok, memory_order_relaxed)) {
        struct {
            uint64_t val, uaddr;
            uint32_t flags, reserved;
        } fw = {val, (uint64_t)(uintptr_t)word, FUTEX2_SIZE_U32_, 0};
        struct {
            int64_t tv_sec, tv_nsec; /* struct __kernel_timespec */
        } kts, *kt = NULL;
        if (abs_rt) {
            kts.tv_sec = abs_rt->tv_sec;
            kts.tv_nsec = abs_rt->tv_nsec;
            kt = &kts;
        }
        long r = syscall(SYS_futex_waitv, &fw, 1, 0, kt, CLOCK_REALTIME);
        if (r >= 0)
            return 0;
        if (errno != ENOSYS && errno != EPERM)
            return -errno;
        atomic_store_explicit(&waitv_ok, 0, memory_order_relaxed);
    }
    return vigil__futex_wait_rt(word, val, abs_rt);
}

/* Per thread: how many more waits skip the pure spin because recent ones found the
 * other side not running on another CPU (it shares ours, or is descheduled). */
static _Thread_local unsigned spin_skip __attribute__((tls_model("initial-exec")));

/* Polls *word (signals blocked) for up to budget_ns. true if it changed. */
static bool spin(struct vigil__mq_wait *w, long budget_ns)
{
    /* The other side usually answers within microseconds: polling the shared word is
     * far cheaper than sleep + wake. Bounded in time, not iterations (a pause costs
     * 10-150 cycles depending on the CPU). Pure spinning only helps when the other side
     * runs on another CPU; when it shares ours, every spun microsecond delays it, so
     * past SPIN_PURE_NS (or at once, after pure spins failed recently) we yield the CPU
     * between polls instead. Acquire pairs with the waker's store of the state. */
    long pure = spin_skip ? 0 : (budget_ns < SPIN_PURE_NS ? budget_ns : SPIN_PURE_NS);
    if (spin_skip)
        spin_skip--;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(w->word, memory_order_acquire) != w->val)
            return true;
        if (pure) {
            vigil__cpu_relax();
            if (i & 31)
                continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        long spent = (long)(vigil__ts_to_ns(&t) - vigil__ts_to_ns(&t0));
        if (spent > budget_ns)
            return false;
        if (spent > pure) {
            if (pure) {
                pure = 0;
                spin_skip = 64;
            }
            sched_yield();
        }
    }
}

static void ewma(_Atomic uint32_t *avg, int64_t sample, int64_t cap)
{
    if (sample > cap)
        sample = cap;
    int64_t e = atomic_load_explicit(avg, memory_order_relaxed);
    atomic_store_explicit(avg, (uint32_t)(e + (sample - e) / 8), memory_order_relaxed);
}

/* The word changed: folds how long this wait lasted into the process's average for
 * the queue and direction, and, if it slept, how long its wake-up took (WAITING THAT
 * PAYS FOR ITSELF). */
static void learn(struct vigil__mq_wait *w, bool slept)
{
    if (!w->rec || (!w->t0_ns && untimed_left))
        return; /* untimed, and so is the next wait */
    int64_t now = vigil__clock_ns(CLOCK_MONOTONIC);
    /* Read after the acquire load that saw the word change: the waker stamped first
     * (rec_take cleared the stamp when this wait began). */
    uint64_t stamp = atomic_load_explicit(&w->rec->ready_ns, memory_order_relaxed);
    if (!w->t0_ns) {
        /* Untimed, the next one timed: only its lateness, for that sample. */
        int64_t late = stamp && stamp <= (uint64_t)now ? now - (int64_t)stamp : 0;
        vigil__mq_late_ns = (uint32_t)(late < WAIT_CAP_NS ? late : WAIT_CAP_NS);
        return;
    }
    bool valid = stamp >= (uint64_t)w->t0_ns && stamp <= (uint64_t)now;
    int64_t end = valid ? (int64_t)stamp : now;
    /* The thread's lateness since its previous wait back in, unless it sent since
     * (WAITING THAT PAYS FOR ITSELF); this one's kept for the next. */
    ewma(&w->q->wait_est_ns[w->kind - 1], end - w->t0_ns + vigil__mq_late_ns, WAIT_CAP_NS);
    vigil__mq_late_ns = (uint32_t)(now - end < WAIT_CAP_NS ? now - end : WAIT_CAP_NS);
    if (slept && valid)
        ewma(&wake_lat_ns, now - end, 1000000);
}

/* How long to spin before sleeping: 0 (sleep at once) unless recent waits on this queue
 * and direction averaged under twice a wake-up's latency (within WORTH_MIN_NS..
 * WORTH_MAX_NS), then 4x that average, within SPIN_MIN_NS..SPIN_MAX_NS. Twice: when
 * both sides of a request/response exchange sleep, each waits for the other's wake-up
 * plus its work, a little over one latency; the factor lets them find back to spinning. */
static long spin_budget(struct vigil__mq *q, uint32_t kind)
{
    int64_t avg = atomic_load_explicit(&q->wait_est_ns[kind - 1], memory_order_relaxed);
    int64_t worth = 2 * (int64_t)atomic_load_explicit(&wake_lat_ns, memory_order_relaxed);
    worth = worth < WORTH_MIN_NS ? WORTH_MIN_NS : worth > WORTH_MAX_NS ? WORTH_MAX_NS : worth;
    if (avg > worth || avg > SPIN_MAX_NS)
        return 0; /* a sleep is cheaper, or the wait would outlast the longest spin anyway */
    long b = 4 * (long)avg;
    return b < SPIN_MIN_NS ? SPIN_MIN_NS : b > SPIN_MAX_NS ? SPIN_MAX_NS : b;
}

/* Waits while *w->word == w->val (lock not held). First call: spins (signals blocked)
 * if w->spin_ns, then sleeps; later calls (after an edge) sleep. Returns
 *   0           the word changed (signals as the caller had them), or an edge: woken
 *               with the word unchanged, signals blocked (the caller looks at the queue
 *               and calls again, or ends the wait);
 *   -ETIMEDOUT  at w->abs_rt;
 *   -EINTR      a handler without SA_RESTART ran (SIGNALS).
 * sleeping (may be NULL) is set while in the futex call so a waker skips the wake
 * system call when nobody sleeps. */
int vigil__mq_wait_word(struct vigil__mq_wait *w)
{
    if (w->spin_ns) {
        long budget = w->spin_ns;
        w->spin_ns = 0;
        sig_block(w);
        hook(VIGIL__MQ_PHASE_SPIN, w->rec);
        if (spin(w, budget)) {
            sig_restore(w);
            learn(w, false);
            return 0;
        }
    }
    if (w->masked) {
        bool intr = sig_interrupts(w);
        sig_restore(w); /* the pending handlers run here */
        if (intr)
            return -EINTR;
    }
    hook(VIGIL__MQ_PHASE_SLEEP, w->rec);
    /* seq_cst store then the futex's own re-check of *word: a waker that stores the
     * word and then reads sleeping (after a seq_cst fence, rec_wake) either sees 1 and
     * wakes us, or its store came first and the futex call returns at once (EAGAIN). */
    if (w->sleeping)
        atomic_store(w->sleeping, 1);
    int r = futex_sleep(w->word, w->val, w->abs_rt);
    if (w->sleeping)
        atomic_store_explicit(w->sleeping, 0, memory_order_relaxed);
    if (r == -ETIMEDOUT || r == -EINTR)
        return r;
    if (atomic_load_explicit(w->word, memory_order_acquire) != w->val) {
        learn(w, r == 0);
        return 0;
    }
    if (w->rec) {
        /* An edge: the caller looks at the queue with signals blocked. */
        sig_block(w);
        hook(VIGIL__MQ_PHASE_EDGE, w->rec);
    }
    return 0;
}

/* Ends a wait: the caller's signal mask is back (pending handlers run now). Call it
 * after the lock is released; more than once is harmless. */
void vigil__mq_wait_end(struct vigil__mq_wait *w)
{
    sig_restore(w);
}

/* Called locked when every waiter record is taken: sleeps on the shared spare word
 * until a record may be free, then takes the lock again. Returns the wait's result;
 * *locked is false (and the result the lock's error) when the lock could not be
 * taken back. No spin and no edges (a wake sends the caller back to the queue). */
static int spare_wait(struct vigil__mq *q, const struct timespec *abs_rt, bool *locked)
{
    struct vigil__mq_hdr *h = q->h;
    struct vigil__mq_wait sw = {.q = q, .word = &h->spare_seq, .abs_rt = abs_rt};
    sw.val = atomic_load_explicit(&h->spare_seq, memory_order_relaxed);
    spare_waiters_set(h, h->spare_waiters + 1);
    qunlock(q);
    int r = vigil__mq_wait_word(&sw);
    int lr = qlock(q);
    *locked = lr >= 0;
    if (lr < 0)
        return lr;
    if (h->spare_waiters)
        spare_waiters_set(h, h->spare_waiters - 1);
    return r;
}

/* A send found the queue full, or a receive found it empty (lock held): the start of a
 * blocking wait, the same for both. w's signal state (SIGNALS) is kept from an earlier
 * wait of the same call; the rest is set here. Returns
 *   0      w->rec is the caller's record (kind), in state WAITING; the lock is
 *          released: call vigil__mq_wait_word(w) until the state changes;
 *   1      every record was taken: the caller slept on the spare word and holds the
 *          lock again: look at the queue again;
 *   < 0    nonblock (-EAGAIN), a bad abs_rt (-EINVAL), the spare wait's timeout or
 *          signal, or the lock's error; the lock is released. */
int vigil__mq_wait_enter(struct vigil__mq *q, uint32_t kind, const struct timespec *abs_rt, int nonblock,
                         struct vigil__mq_wait *w)
{
    int r;
    if (nonblock) {
        r = -EAGAIN;
        goto out_unlock;
    }
    if (abs_rt && !vigil__ts_valid(abs_rt)) {
        r = -EINVAL;
        goto out_unlock;
    }
    long budget = spin_budget(q, kind);
    int64_t now = 0; /* 0: untimed (WAITING THAT PAYS FOR ITSELF) */
    if (budget || !untimed_left) {
        now = vigil__clock_ns(CLOCK_MONOTONIC);
        untimed_left = budget ? 0 : VIGIL__MQ_SLEEP_TIMED - 1;
    } else {
        untimed_left--;
    }
    w->rec = rec_take(q, kind, budget ? now + budget + budget / 2 : 0);
    if (!w->rec) {
        /* More blocked threads than records: wait on the shared spare word. */
        bool locked;
        r = spare_wait(q, abs_rt, &locked);
        if (!locked)
            return r;
        if (r < 0)
            goto out_unlock;
        return 1;
    }
    w->q = q;
    w->word = &w->rec->state;
    w->val = VIGIL__REC_WAITING;
    w->sleeping = &w->rec->sleeping;
    w->abs_rt = abs_rt;
    w->t0_ns = now;
    w->kind = kind;
    w->spin_ns = budget;
    qunlock(q);
    return 0;
out_unlock:
    qunlock(q);
    return r;
}
