/* The io_uring backend: a turn's interest changes, the feature modules' SQEs and the
 * timed wait go to the kernel in one io_uring_enter; a turn that must not sleep and has
 * nothing to submit makes no system call at all (it reads the completion ring).
 *
 * Readiness: one one-shot IORING_OP_POLL_ADD per watched fd, re-armed after it fires.
 * That is level-triggered, as on epoll: a re-armed poll on an fd that is still ready
 * completes at once (multishot poll is edge-triggered: QEMU found that out). A mask
 * change of an armed poll is one IORING_OP_POLL_REMOVE with IORING_POLL_UPDATE_EVENTS
 * (the kernel re-arms it with the new mask and re-checks readiness), its own completion
 * skipped on success (IOSQE_CQE_SKIP_SUCCESS); a change that only drops bits is not sent
 * at all (lazy narrowing, see apply()).
 *
 * Why polls and not IORING_OP_EPOLL_CTL on a private epoll plus IORING_OP_EPOLL_WAIT
 * (opcode 59, Linux 6.15): measured with raw liburing on the qemu-loop shape (n pipes,
 * 4 interest toggles and one ready fd per turn, DEFER_TASKRUN ring, 6.18, medians per
 * turn including the write that makes the fd ready, 2026-11-22):
 *                              n=15     n=85     n=200
 *   polls, every change sent   2.89 us  2.99 us  3.11 us
 *   epoll, every change sent   2.88     2.90     2.92
 *   polls, lazy narrowing      1.87     1.87     1.88
 *   epoll, lazy narrowing      2.04     2.04     2.05
 * With lazy narrowing (which either could use) polls win by ~9%: a turn re-arms one
 * poll, where epoll pays its own wakeup path plus an EPOLL_WAIT request per turn; and
 * polls work from 5.17 where EPOLL_WAIT needs 6.15.
 *
 * Per fd (struct vigil__fd): slot->bk holds the arm id of the poll in flight (0: none)
 * and the mask the kernel watches for it; slot->bk_gen is the slot generation that poll was armed for (events carry it). A poll's
 * user_data holds the fd and its arm id; a completion whose arm id is not the slot's
 * current one is stale (removed, or superseded) and dropped. When a poll fires, the slot
 * goes back on the loop's dirty list with applied = 0, so the next turn's batch re-arms
 * it with whatever the watchers want then (nothing, if they stopped).
 *
 * Setup flags (kept when the kernel takes them, dropped one by one when it refuses):
 *   SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG, and R_DISABLED until the first turn so
 *   the issuer is the thread that runs the loop, not the one that created it.
 *   DEFER_TASKRUN runs completion work only when we ask for events, in one batch, never
 *   by interrupting the loop thread. Its cost is that a completion needs an
 *   io_uring_enter to reach the ring; TASKRUN_FLAG tells us when there is such work
 *   (IORING_SQ_TASKRUN in the SQ ring flags), so a non-blocking turn enters only then,
 *   and an idle one stays a memory read (no system call with any of the flag sets).
 *   Measured on the qemu-loop shape through vigil (medians per turn, n = 15/85/200,
 *   including the write that makes an fd ready): DEFER_TASKRUN 2.05/1.97/2.05 us,
 *   COOP_TASKRUN 2.32/2.32/2.35 us, no flags 2.35/2.37/2.34 us. Timed without the
 *   write (as the lab's qemu-loop does) COOP_TASKRUN looks faster (1.29 vs 1.50 us):
 *   it runs the poll's completion inside the writer's write(), outside the window.
 *   DEFER_TASKRUN costs less in total, so it stays.
 *
 * The wait: IORING_ENTER_EXT_ARG with the turn's deadline. The kernel starts a relative
 * timeout only when it begins to wait, after the submission (which can take long: a
 * thousand polls armed), so where the kernel takes IORING_ENTER_ABS_TIMER (6.12) the
 * deadline goes in absolute (CLOCK_MONOTONIC, the ring's default clock); elsewhere it
 * is made relative at the last moment. io_uring_enter returns the number submitted,
 * not EINTR, when a signal ends the wait after a submission, and -ETIME on a timeout:
 * the loop treats every return as "the wait is over", rechecks its timers and goes on.
 */
#include "loop/loop.h"
#include "sys/probe.h"
#include "ring/ring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef VIGIL_HAVE_LIBURING

/* Newer than liburing 2.3's uapi header; kernel values. */
#ifndef IORING_ENTER_ABS_TIMER
#define IORING_ENTER_ABS_TIMER (1U << 5)
#endif

#define SQ_ENTRIES 256   /* a turn with more SQEs submits in chunks of this */
#define CQ_ENTRIES 4096  /* completions beyond this wait in the kernel (FEAT_NODROP) */
/* slot->bk, backend-private: the arm id of the poll in flight (0: none), the mask that
 * poll was armed with in the kernel (which may be wider than slot->applied, see apply()),
 * and whether the fd's pollability was checked for generation slot->bk_gen. */
#define ARM_MASK 0x07ffffffu
#define KMASK_SHIFT 27 /* VIGIL_READ|VIGIL_PRI|VIGIL_WRITE (0x7) in bits 27..29 */
#define BK_VERIFIED 0x40000000u
#define IO_EVENTS (VIGIL_READ | VIGIL_PRI | VIGIL_WRITE)

static inline uint64_t poll_ud(int fd, uint32_t arm)
{
    return ((uint64_t)(uint32_t)fd << 32) | ((uint64_t)arm << 2) | VIGIL__UD_POLL;
}

static int uring_init(struct vigil_loop *loop)
{
    struct vigil__uring *u = calloc(1, sizeof *u);
    if (!u)
        return -ENOMEM;
    unsigned flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
                     IORING_SETUP_R_DISABLED;
    int r = vigil__uring_setup(&u->ring, SQ_ENTRIES, CQ_ENTRIES, &flags, loop->bk_reason, sizeof loop->bk_reason);
    if (r < 0)
        goto out_free;
    u->setup_flags = flags;
    u->enabled = !(flags & IORING_SETUP_R_DISABLED);
    /* Needed: completions never dropped (NODROP, 5.5), the timed wait in the enter
     * (EXT_ARG, 5.11), skipped completions for updates (CQE_SKIP, 5.17; poll updates
     * came in 5.13). */
    static const struct { unsigned feat; const char *what; } need[] = {
        {IORING_FEAT_NODROP, "IORING_FEAT_NODROP"},
        {IORING_FEAT_EXT_ARG, "IORING_FEAT_EXT_ARG"},
        {IORING_FEAT_CQE_SKIP, "IORING_FEAT_CQE_SKIP"},
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if (!(u->ring.features & need[i].feat)) {
            snprintf(loop->bk_reason, sizeof loop->bk_reason, "io_uring lacks %s (kernel too old)", need[i].what);
            r = -ENOSYS;
            goto out_ring;
        }
    }
    static const uint8_t ops[] = {IORING_OP_POLL_ADD, IORING_OP_POLL_REMOVE, IORING_OP_ASYNC_CANCEL};
    r = vigil__uring_probe_ops(&u->ring, ops, (int)sizeof ops, loop->bk_reason, sizeof loop->bk_reason);
    if (r < 0)
        goto out_ring;
    u->abs_timer = true; /* until the kernel says otherwise (EINVAL) */
    loop->bk = u;
    return 0;

out_ring:
    io_uring_queue_exit(&u->ring);
out_free:
    free(u);
    return r;
}

static void uring_fini(struct vigil_loop *loop)
{
    struct vigil__uring *u = loop->bk;
    if (!u)
        return;
    /* Closing the ring cancels every poll and op in flight. */
    io_uring_queue_exit(&u->ring);
    free(u);
    loop->bk = NULL;
}

/* An SQE for the turn's batch; when the SQ ring is full, what it holds goes to the
 * kernel first (a chunk: one more system call for a very large batch). */
static struct io_uring_sqe *sqe_get(struct vigil__uring *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        vigil__uring_submit(u);
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

static uint32_t arm_next(struct vigil__uring *u)
{
    u->arm_seq = (u->arm_seq + 1) & ARM_MASK;
    if (u->arm_seq == 0)
        u->arm_seq = 1;
    return u->arm_seq;
}

static inline uint32_t bk_arm(const struct vigil__fd *slot) { return (uint32_t)slot->bk & ARM_MASK; }
static inline uint32_t bk_kmask(const struct vigil__fd *slot) { return ((uint32_t)slot->bk >> KMASK_SHIFT) & 7u; }
static inline void bk_set(struct vigil__fd *slot, uint32_t arm, uint32_t kmask, bool verified)
{
    slot->bk = (int32_t)(arm | (kmask << KMASK_SHIFT) | (verified ? BK_VERIFIED : 0));
}

/* Brings fd's poll in line with slot->wanted. Returns 0, or -EBUSY when no SQE could be
 * had: the slot then stays dirty for the next turn.
 *
 * Narrowing is lazy: when the watchers drop a bit (READ|WRITE -> READ), the armed poll
 * keeps the wider mask and nothing is sent; the loop filters events by each watcher's
 * mask anyway. If a dropped bit does become ready, the poll completes for nothing once
 * and is re-armed with the exact mask. Widening (READ -> READ|WRITE) must reach the
 * kernel, unless the armed mask already covers it. A loop that toggles write interest
 * on an fd that is rarely writable (QEMU's pattern) thus sends no update at all. */
static int apply(struct vigil_loop *loop, struct vigil__uring *u, int fd)
{
    struct vigil__fd *slot = &loop->fds[fd];
    struct io_uring_sqe *sqe;
    uint32_t want = slot->wanted & IO_EVENTS;
    uint32_t arm = bk_arm(slot);
    bool verified = (slot->bk & BK_VERIFIED) && slot->bk_gen == slot->gen;
    if (arm && (slot->reset || want == 0)) {
        /* The registration is dead (all its watchers stopped: the number may now name
         * another file), or nobody wants events: remove the poll. Its completion
         * (-ECANCELED, or an event that raced) carries an arm id no slot has: dropped. */
        if (!(sqe = sqe_get(u)))
            return -EBUSY;
        io_uring_prep_poll_remove(sqe, poll_ud(fd, arm));
        io_uring_sqe_set_data64(sqe, VIGIL__UD_IGNORE);
        sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
        arm = 0;
        verified = false;
        bk_set(slot, 0, 0, false);
    }
    slot->reset = 0;
    if (want == 0) {
        slot->applied = 0;
        return 0;
    }
    if (arm) {
        uint32_t kmask = bk_kmask(slot);
        if (want & ~kmask) {
            /* Same file, same generation, a bit the kernel does not watch: update the
             * armed poll in place (to exactly want). If it fired meanwhile, the update
             * finds nothing (-ENOENT, ignored) and the firing re-arms next turn. */
            if (!(sqe = sqe_get(u)))
                return -EBUSY;
            io_uring_prep_poll_update(sqe, poll_ud(fd, arm), 0, want, IORING_POLL_UPDATE_EVENTS);
            io_uring_sqe_set_data64(sqe, VIGIL__UD_IGNORE);
            sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
            bk_set(slot, arm, want, true);
        }
    } else {
        if (!verified) {
            /* A new registration (not a re-arm): io_uring polls a regular file as
             * always ready, epoll refuses it with EPERM; give epoll's answer. Re-arms
             * of the same generation skip this fstat. */
            int r = vigil__fd_pollable(fd);
            if (r < 0) {
                bk_set(slot, 0, 0, false);
                vigil__fd_failed(loop, fd, r);
                return 0;
            }
        }
        if (!(sqe = sqe_get(u)))
            return -EBUSY;
        arm = arm_next(u);
        io_uring_prep_poll_add(sqe, fd, want);
        io_uring_sqe_set_data64(sqe, poll_ud(fd, arm));
        bk_set(slot, arm, want, true);
        slot->bk_gen = slot->gen;
    }
    slot->applied = want;
    return 0;
}

/* A poll completion: an event for the loop, or a failure to report. */
static int poll_done(struct vigil_loop *loop, uint64_t ud, int32_t res, int n)
{
    int fd = (int)(uint32_t)(ud >> 32);
    uint32_t arm = (uint32_t)(ud >> 2) & ARM_MASK;
    if (fd >= loop->nfds)
        return n;
    struct vigil__fd *slot = &loop->fds[fd];
    if (bk_arm(slot) != arm)
        return n; /* removed or superseded: not this registration's news */
    bk_set(slot, 0, 0, (slot->bk & BK_VERIFIED) != 0);
    /* The one-shot poll is spent: nothing is registered now. Back on the dirty list,
     * the next turn re-arms it with what the watchers want then (exactly). */
    slot->applied = 0;
    if (res < 0 && res != -ECANCELED && slot->gen == slot->bk_gen) {
        vigil__fd_failed(loop, fd, res); /* -EBADF: closed before the poll was armed */
        return n;
    }
    if (!slot->dirty && (slot->wanted || slot->reset)) {
        slot->dirty = 1;
        loop->dirty[loop->ndirty++] = fd;
    }
    /* Only bits someone may want: a completion for a lazily kept bit alone is not an
     * event (ERR and HUP always are). */
    uint32_t rev = (uint32_t)(res > 0 ? res : 0) & (slot->wanted | VIGIL_ERR | VIGIL_HUP);
    if (!rev && res > 0)
        ((struct vigil__uring *)loop->bk)->spurious++;
    if (rev) {
        loop->ev[n].fd = fd;
        loop->ev[n].gen = slot->bk_gen;
        loop->ev[n].revents = rev;
        n++;
    }
    return n;
}

/* Reads completions from the ring (no system call): poll events into loop->ev (at most
 * its capacity; the rest wait in the ring for the next turn), ops to their callbacks. */
static int reap(struct vigil_loop *loop, struct vigil__uring *u)
{
    struct io_uring *ring = &u->ring;
    int n = 0;
    for (;;) {
        unsigned head = *ring->cq.khead;
        /* Acquire: the CQE contents are read after the tail that published them. */
        unsigned tail = io_uring_smp_load_acquire(ring->cq.ktail);
        if (head == tail)
            break;
        struct io_uring_cqe *cqe = &ring->cq.cqes[head & ring->cq.ring_mask];
        uint64_t ud = cqe->user_data;
        int32_t res = cqe->res;
        uint32_t cflags = cqe->flags;
        unsigned tag = (unsigned)(ud & VIGIL__UD_TAG);
        if (tag == VIGIL__UD_POLL && n == VIGIL__EV_CAP)
            break; /* loop->ev is full */
        /* Release: we are done reading this CQE before the kernel may reuse its slot.
         * Advanced one at a time, so an op's callback below sees a consistent ring. */
        io_uring_smp_store_release(ring->cq.khead, head + 1);
        if (tag == VIGIL__UD_POLL) {
            n = poll_done(loop, ud, res, n);
        } else if (tag == VIGIL__UD_OP && ud) {
            struct vigil__uring_op *op = (struct vigil__uring_op *)(uintptr_t)ud;
            if (!(cflags & IORING_CQE_F_MORE))
                u->inflight--;
            u->ops_done++;
            op->complete(loop, op, res, cflags);
        }
    }
    return n;
}

static int enter(struct vigil__uring *u, unsigned to_submit, unsigned min_complete, unsigned flags,
                 const struct io_uring_getevents_arg *arg)
{
    u->enters++;
    long r = syscall(__NR_io_uring_enter, u->ring.ring_fd, to_submit, min_complete, flags, arg,
                     arg ? sizeof *arg : 0);
    return r < 0 ? -errno : (int)r;
}

/* Hands the SQ ring to the kernel and waits as w says: one io_uring_enter, or none
 * when the turn must not sleep and there is nothing to submit or run. */
static int submit_wait(struct vigil__uring *u, const struct vigil__wait *w)
{
    struct io_uring_sq *sq = &u->ring.sq;
    unsigned tail = sq->sqe_tail;
    if (sq->sqe_head != tail) {
        sq->sqe_head = tail;
        /* Release: SQE contents before the tail that hands them to the kernel. */
        io_uring_smp_store_release(sq->ktail, tail);
    }
    unsigned to_submit = tail - io_uring_smp_load_acquire(sq->khead);
    /* The kernel sets these flags in shared memory; a relaxed read is enough, since the
     * enter below (or the next turn's check) is what acts on them. */
    unsigned sq_flags = IO_URING_READ_ONCE(*sq->kflags);
    bool have_cqes = io_uring_cq_ready(&u->ring) > 0;
    int r = 0;
    if (w->timeout_ns == 0 || have_cqes) {
        /* Must not sleep (or need not: completions are waiting). Enter only to submit,
         * to run deferred completion work the kernel flagged, or to flush overflow. */
        if (to_submit || (sq_flags & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)))
            r = enter(u, to_submit, 0, IORING_ENTER_GETEVENTS, NULL);
    } else if (w->timeout_ns < 0) {
        r = enter(u, to_submit, 1, IORING_ENTER_GETEVENTS, NULL);
    } else {
        struct __kernel_timespec ts;
        struct io_uring_getevents_arg arg = {.ts = (uint64_t)(uintptr_t)&ts};
        unsigned flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
        if (u->abs_timer) {
            ts.tv_sec = w->deadline_ns / 1000000000;
            ts.tv_nsec = w->deadline_ns % 1000000000;
            r = enter(u, to_submit, 1, flags | IORING_ENTER_ABS_TIMER, &arg);
            if (r == -EINVAL) {
                u->abs_timer = false; /* older than 6.12 */
                to_submit = tail - io_uring_smp_load_acquire(sq->khead);
            }
        }
        if (!u->abs_timer) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            int64_t rel = w->deadline_ns - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
            if (rel < 0)
                rel = 0;
            ts.tv_sec = rel / 1000000000;
            ts.tv_nsec = rel % 1000000000;
            r = enter(u, to_submit, rel ? 1 : 0, flags, &arg);
        }
    }
    return r;
}

static int uring_turn(struct vigil_loop *loop, const int *dirty, int ndirty, const struct vigil__wait *w)
{
    struct vigil__uring *u = loop->bk;
    if (!u->enabled) {
        int r = vigil__uring_enable(u);
        if (r < 0)
            return r;
    }
    /* 1. The changes, into the SQ ring. A failure to get an SQE leaves the rest dirty. */
    for (int i = 0; i < ndirty; i++)
        if (apply(loop, u, dirty[i]) < 0)
            break;
    for (int round = 0;; round++) {
        /* 2. One enter for the submission and the wait, or none at all. */
        int r = submit_wait(u, w);
        /* -ETIME: the deadline passed; -EINTR: a signal; -EBUSY/-EAGAIN: the CQ ring is
         * full of completions we have not read yet (reading them below is the cure). */
        if (r < 0 && r != -ETIME && r != -EINTR && r != -EBUSY && r != -EAGAIN)
            return r;
        /* 3. Completions. */
        u->spurious = u->ops_done = 0;
        int n = reap(loop, u);
        if (n > 0 || u->ops_done || !u->spurious || w->timeout_ns == 0 || r == -ETIME || r == -EINTR ||
            loop->fail_head >= 0 || round == 2)
            return n;
        /* The wait ended only for polls that fired on a bit nobody wants any more (lazy
         * narrowing): nothing happened that the loop asked about, and this turn was
         * meant to sleep. Re-arm those exactly and wait again, to the same deadline.
         * They are on the dirty list (appended by poll_done, or there since the turn
         * began); apply() leaves the others as they are. */
        for (int i = 0; i < loop->ndirty; i++)
            if (!loop->fds[loop->dirty[i]].failed && apply(loop, u, loop->dirty[i]) < 0)
                break;
    }
}

#else /* !VIGIL_HAVE_LIBURING */

static int uring_init(struct vigil_loop *loop)
{
    snprintf(loop->bk_reason, sizeof loop->bk_reason, "built without liburing");
    return -ENOSYS;
}

static void uring_fini(struct vigil_loop *loop)
{
    (void)loop;
}

static int uring_turn(struct vigil_loop *loop, const int *dirty, int ndirty, const struct vigil__wait *w)
{
    (void)loop; (void)dirty; (void)ndirty; (void)w;
    return -ENOSYS;
}

#endif

const struct vigil__backend vigil__backend_uring = {
    .name = "uring",
    .init = uring_init,
    .fini = uring_fini,
    .turn = uring_turn,
};
