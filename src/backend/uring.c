/* The io_uring backend: a turn's interest changes, the feature modules' SQEs and the
 * timed wait go to the kernel in one io_uring_enter; a turn that must not sleep and has
 * nothing to submit makes no system call at all (it reads the completion ring).
 *
 * Readiness: one-shot IORING_OP_POLL_ADDs per watched fd (one per direction), re-armed
 * after they fire. That is level-triggered, as on epoll: a re-armed poll on an fd that
 * is still ready completes at once, inside the submission (multishot poll is
 * edge-triggered: QEMU found that out). A direction newly wanted gets its poll; a
 * change that only drops bits is not sent at all (lazy narrowing, see apply()); removals
 * are POLL_REMOVEs whose own completion is skipped (IOSQE_CQE_SKIP_SUCCESS).
 *
 * What a turn delivers, compared with epoll (level-triggered readiness when the turn
 * runs): a poll's completion carries the bits of the wake-up that ended it, not a fresh
 * look at the file. Two things follow:
 *   - a completion may carry fewer bits than are ready (a peer's write wakes a socket's
 *     poll with READ while the socket is also writable): so each direction of an fd has
 *     a poll of its own (READ|PRI, WRITE), and the two reports of one turn are merged
 *     into one event (see apply());
 *   - a completion read in this turn may describe a wake-up from before the program
 *     drained the fd: the event is delivered (spurious), never dropped. A spurious
 *     event is the one difference from epoll left; vigil.h says so.
 *
 * Why polls and not IORING_OP_EPOLL_CTL on a private epoll plus IORING_OP_EPOLL_WAIT
 * (opcode 59, Linux 6.15): with lazy narrowing (which either could use) a turn re-arms
 * one poll, where epoll pays its own wakeup path plus an EPOLL_WAIT request per turn
 * (polls were ~9% faster on the qemu-loop shape: docs/figures.md, "Design
 * measurements"); and polls work from 5.17 where EPOLL_WAIT needs 6.15.
 *
 * Per fd (struct vigil__fd, bk.uring): the arm ids of the polls in flight (0: none), the
 * bits the kernel watches for them and the slot generation they were armed for (events
 * carry it). A poll's user_data holds the fd and its arm id; a completion whose arm id is
 * not one of the slot's is stale (removed, or superseded) and dropped. When a poll
 * fires, its direction's bits leave slot->applied and the slot goes back on the loop's
 * dirty list, so the next turn's batch re-arms it if the watchers still want it.
 *
 * Setup flags (kept when the kernel takes them, dropped one by one when it refuses):
 *   SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG, and R_DISABLED until the first turn so
 *   the issuer is the thread that runs the loop, not the one that created it.
 *   DEFER_TASKRUN runs completion work only when we ask for events, in one batch, never
 *   by interrupting the loop thread. Its cost is that a completion needs an
 *   io_uring_enter to reach the ring; TASKRUN_FLAG tells us when there is such work
 *   (IORING_SQ_TASKRUN in the SQ ring flags), so a non-blocking turn enters only then,
 *   and an idle one stays a memory read (no system call with any of the flag sets).
 *   DEFER_TASKRUN costs less in total than COOP_TASKRUN or no flags, so it stays
 *   (docs/figures.md, "Design measurements").
 *
 * The wait: IORING_ENTER_EXT_ARG with the turn's deadline. The kernel starts a relative
 * timeout only when it begins to wait, after the submission (which can take long: a
 * thousand polls armed), so where the kernel takes IORING_ENTER_ABS_TIMER (6.12) the
 * deadline goes in absolute (CLOCK_MONOTONIC, the ring's default clock); elsewhere it
 * is made relative at the last moment. io_uring_enter returns the number submitted,
 * not EINTR, when a signal ends the wait after a submission, and -ETIME on a timeout:
 * the loop treats every return as "the wait is over", rechecks its timers and goes on.
 */
#include "loop/turn.h"
#include "ring/ring.h"
#include "sys/clock.h"
#include "sys/probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef VIGIL_HAVE_LIBURING

/* Newer than liburing 2.3's uapi header; kernel values. */
#ifndef IORING_ENTER_ABS_TIMER
#define IORING_ENTER_ABS_TIMER (1U << 5)
#endif

#define SQ_ENTRIES 1024  /* a turn with more SQEs submits in chunks of this (a server with 1000
                            connections sends up to one per connection per turn) */
#define CQ_ENTRIES 4096  /* completions beyond this wait in the kernel (FEAT_NODROP) */
#define ARM_MASK 0x3fffffffu /* arm ids: 30 bits of user_data, never 0 */
#define IO_EVENTS (VIGIL_READ | VIGIL_PRI | VIGIL_WRITE)

struct uring_state {
    struct vigil__ring *ring;  /* also loop->ring: file I/O and mq watchers share it */
    uint32_t arm_seq;          /* last poll arm id handed out */
    bool abs_timer;            /* the kernel takes IORING_ENTER_ABS_TIMER (6.12+) */
    unsigned spurious;         /* this wait's polls that fired only for unwanted bits */
};

static inline uint64_t poll_ud(int fd, uint32_t arm)
{
    return ((uint64_t)(uint32_t)fd << 32) | ((uint64_t)arm << 2) | VIGIL__UD_POLL;
}

static int be_init(vigil_loop *loop)
{
    struct uring_state *u = calloc(1, sizeof *u);
    if (!u)
        return -ENOMEM;
    unsigned flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
                     IORING_SETUP_R_DISABLED;
    int r = vigil__ring_new(&u->ring, SQ_ENTRIES, CQ_ENTRIES, flags, loop->bk_reason, sizeof loop->bk_reason);
    if (r < 0)
        goto out_free;
    /* Needed: completions never dropped (NODROP, 5.5), the timed wait in the enter
     * (EXT_ARG, 5.11), skipped completions for updates (CQE_SKIP, 5.17; poll updates
     * came in 5.13). */
    static const struct { unsigned feat; const char *what; } need[] = {
        {IORING_FEAT_NODROP, "IORING_FEAT_NODROP"},
        {IORING_FEAT_EXT_ARG, "IORING_FEAT_EXT_ARG"},
        {IORING_FEAT_CQE_SKIP, "IORING_FEAT_CQE_SKIP"},
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if (!(u->ring->ring.features & need[i].feat)) {
            snprintf(loop->bk_reason, sizeof loop->bk_reason, "io_uring lacks %s (kernel too old)", need[i].what);
            r = -ENOSYS;
            goto out_ring;
        }
    }
    static const uint8_t ops[] = {IORING_OP_POLL_ADD, IORING_OP_POLL_REMOVE, IORING_OP_ASYNC_CANCEL};
    r = vigil__uring_probe_ops(&u->ring->ring, ops, (int)sizeof ops, loop->bk_reason, sizeof loop->bk_reason);
    if (r < 0)
        goto out_ring;
    u->abs_timer = true; /* until the kernel says otherwise (EINVAL) */
    loop->bk = u;
    loop->ring = u->ring;
    return 0;

out_ring:
    vigil__ring_free(u->ring);
out_free:
    free(u);
    return r;
}

static void be_fini(vigil_loop *loop)
{
    struct uring_state *u = loop->bk;
    if (!u)
        return;
    /* Closing the ring cancels every poll and op in flight. */
    vigil__ring_free(u->ring);
    free(u);
    loop->bk = NULL;
    loop->ring = NULL;
}

static uint32_t arm_next(struct uring_state *u)
{
    u->arm_seq = (u->arm_seq + 1) & ARM_MASK;
    if (u->arm_seq == 0)
        u->arm_seq = 1;
    return u->arm_seq;
}

/* The two directions of an fd, each with a poll of its own (see the top of the file). */
static const uint32_t dir_bits[2] = {VIGIL_READ | VIGIL_PRI, VIGIL_WRITE};

/* Removes fd's poll in flight for direction d: its completion (-ECANCELED, or an event
 * that raced) carries an arm id the slot no longer has, and is dropped. */
static int remove_poll(struct uring_state *u, int fd, struct vigil__fd *slot, int d)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(u->ring);
    if (!sqe)
        return -EBUSY;
    io_uring_prep_poll_remove(sqe, poll_ud(fd, slot->bk.uring.arm[d]));
    io_uring_sqe_set_data64(sqe, VIGIL__UD_IGNORE);
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    slot->bk.uring.arm[d] = 0;
    slot->bk.uring.kmask &= (uint8_t)~dir_bits[d];
    return 0;
}

static int add_poll(struct uring_state *u, int fd, struct vigil__fd *slot, int d, uint32_t mask)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(u->ring);
    if (!sqe)
        return -EBUSY;
    uint32_t arm = arm_next(u);
    io_uring_prep_poll_add(sqe, fd, mask);
    io_uring_sqe_set_data64(sqe, poll_ud(fd, arm));
    slot->bk.uring.arm[d] = arm;
    slot->bk.uring.kmask |= (uint8_t)mask;
    return 0;
}

/* Brings fd's polls in line with slot->wanted. Returns 0, or -EBUSY when no SQE could be
 * had: the slot then stays dirty for the next turn.
 *
 * One poll per direction (READ|PRI, WRITE): a poll's completion carries the bits of the
 * wake-up that ended it, and a peer's write wakes a socket's waiters with READ only, so a
 * single READ|WRITE poll would report READ while the socket is writable too. With a
 * poll per direction, each reports its own bit whenever it is ready, as epoll does.
 *
 * Narrowing is lazy: when the watchers drop bits (READ|WRITE -> READ), the armed poll
 * keeps watching and nothing is sent; the loop filters events by each watcher's mask
 * anyway. If a dropped bit does become ready, its poll completes for nothing once and
 * is not re-armed. Widening (READ -> READ|WRITE) arms the missing direction's poll; a
 * new POLL_ADD looks at the file at once and completes in the submission if the bit is
 * ready. A loop that toggles write interest on an fd that is rarely writable (QEMU's
 * pattern) arms the WRITE poll once and then sends nothing. */
static int apply(vigil_loop *loop, struct uring_state *u, int fd)
{
    struct vigil__fd *slot = &loop->fds[fd];
    uint32_t want = slot->wanted & IO_EVENTS;
    bool verified = slot->bk.uring.verified && slot->bk.uring.arm_gen == slot->gen;
    bool armed = slot->bk.uring.arm[0] || slot->bk.uring.arm[1];
    if (slot->reset || want == 0 || (armed && slot->bk.uring.arm_gen != slot->gen)) {
        /* The registration is dead (all its watchers stopped: the number may now name
         * another file; a poll kept lazily for an older generation counts too), or
         * nobody wants events. */
        for (int d = 0; d < 2; d++)
            if (slot->bk.uring.arm[d] && remove_poll(u, fd, slot, d) < 0)
                return -EBUSY;
        verified = false;
    }
    slot->reset = 0;
    if (want == 0) {
        slot->applied = 0;
        return 0;
    }
    if (!verified && !slot->bk.uring.arm[0] && !slot->bk.uring.arm[1]) {
        /* A new registration (not a re-arm): io_uring polls a regular file as always
         * ready, epoll refuses it with EPERM; give epoll's answer. Re-arms of the same
         * generation skip this fstat. */
        int r = vigil__fd_pollable(fd);
        if (r < 0) {
            slot->bk.uring.verified = 0;
            vigil__fd_failed(loop, fd, r);
            return 0;
        }
        slot->bk.uring.verified = 1;
        slot->bk.uring.arm_gen = slot->gen;
    }
    for (int d = 0; d < 2; d++) {
        uint32_t m = want & dir_bits[d];
        if (!m || !(m & ~slot->bk.uring.kmask))
            continue; /* not wanted (kept lazily if armed), or covered by the armed poll */
        if (slot->bk.uring.arm[d] && remove_poll(u, fd, slot, d) < 0)
            return -EBUSY; /* READ -> READ|PRI: a new poll with both */
        if (add_poll(u, fd, slot, d, m) < 0)
            return -EBUSY;
    }
    slot->applied = want;
    return 0;
}

/* A poll completion: an event for the loop (merged with this turn's earlier event for
 * the same fd, if any), or a failure to report. */
static int poll_done(vigil_loop *loop, struct uring_state *u, uint64_t ud, int32_t res, int n)
{
    int fd = (int)(uint32_t)(ud >> 32);
    uint32_t arm = (uint32_t)(ud >> 2) & ARM_MASK;
    if (fd >= loop->nfds)
        return n;
    struct vigil__fd *slot = &loop->fds[fd];
    int d = slot->bk.uring.arm[0] == arm ? 0 : slot->bk.uring.arm[1] == arm ? 1 : -1;
    if (d < 0)
        return n; /* removed or superseded: not this registration's news */
    /* The one-shot poll is spent: that direction is not registered now. The slot goes
     * back on the dirty list, and the next apply re-arms it if the watchers want it. */
    slot->bk.uring.arm[d] = 0;
    slot->bk.uring.kmask &= (uint8_t)~dir_bits[d];
    slot->applied &= ~dir_bits[d];
    if (res < 0 && res != -ECANCELED && slot->gen == slot->bk.uring.arm_gen) {
        for (int o = 0; o < 2; o++) /* the other direction's poll goes with the fd */
            if (slot->bk.uring.arm[o])
                remove_poll(u, fd, slot, o);
        vigil__fd_failed(loop, fd, res); /* -EBADF: closed before the poll was armed */
        return n;
    }
    vigil__fd_mark_dirty(loop, fd);
    /* Only bits someone may want: a completion for a lazily kept bit alone is not an
     * event (ERR and HUP always are). */
    uint32_t rev = (uint32_t)(res > 0 ? res : 0) & (slot->wanted | VIGIL_ERR | VIGIL_HUP);
    if (!rev) {
        if (res > 0)
            u->spurious++;
        return n;
    }
    if (slot->bk.uring.ev_index) {
        loop->ev[slot->bk.uring.ev_index - 1].revents |= rev;
        return n;
    }
    loop->ev[n].fd = fd;
    loop->ev[n].gen = slot->bk.uring.arm_gen;
    loop->ev[n].revents = rev;
    slot->bk.uring.ev_index = (uint16_t)(n + 1);
    return n + 1;
}

/* Reads completions from the CQ ring (no system call): poll events into loop->ev from
 * index n (at most its capacity; the rest wait in the ring for the next turn), op
 * completions into the ring's queue for the turn's completion point. The ring's tail
 * is read once and its head written once, as liburing's peek_batch + cq_advance do:
 * per completion, two loads and a store fewer (file-batch: 32 completions a group).
 * The ring's array, its mask and the queue's end are kept in locals: the queue's
 * entries are stores of the same types as those fields, so the compiler would read
 * them again after each entry (file-batch, callgrind: 26 instructions per completion,
 * 20 with the locals).
 *
 * PREFETCH: an op's own memory (its hook, and for a file request the state and result
 * beside it) is read at the completion point, and after a turn of large reads it is
 * out of the cache; fetched here while the rest of the ring is read, its miss overlaps
 * that walk. file-batch, 8 KiB O_DIRECT reads that zero 2 MiB per turn, perf record -e
 * cpu-clock over 1.2 million reads (2026-12-02): the file engine's completion 259 ->
 * 121 samples, this walk 104 -> 175 (it now waits for the line fills): about 2 ns per
 * read less in all, of ~700. */
static int reap_mixed(vigil_loop *loop, struct uring_state *u, unsigned head, unsigned end,
                      struct vigil__ring_cqe *d, int n);

static inline __attribute__((always_inline)) int reap(vigil_loop *loop, struct uring_state *u, int n, unsigned *ptail)
{
    struct vigil__ring *r = u->ring;
    struct io_uring_cqe *cqes = r->ring.cq.cqes;
    unsigned mask = r->ring.cq.ring_mask, head, tail;
    struct vigil__ring_cqe *d = r->done + r->ndone;
    vigil__ring_peek_all(r, &head, &tail);
    *ptail = tail;
    /* The queue's room bounds the walk once, not per entry: at most that many CQEs are
     * read this turn (a poll among them takes none of it, so a turn with a full queue
     * may leave a few the room would have allowed; they wait in the ring, and the next
     * turn, which does not sleep while the CQ ring holds any, reads them). */
    unsigned end = tail, room = VIGIL__RING_DONE_CAP - r->ndone;
    if (tail - head > room)
        end = head + room;
    /* Ops only, the common run (a server's receives and sends): no call in this loop, so
     * its values stay in the registers they came in (callgrind, echo_server under
     * net-echo 1 x 64 B on io_uring: ~20 register moves a turn fewer than with the
     * poll's call in it). The first CQE of another kind hands the rest of the walk, and
     * its end, to reap_mixed (a tail call: qemu-loop's turns, a poll completion each,
     * cost what they did with the one loop). An op's tag is 00: one test of the two
     * bits, then the rare null. */
    for (; head != end; head++) {
        struct io_uring_cqe *cqe = &cqes[head & mask];
        uint64_t ud = cqe->user_data;
        if (__builtin_expect((ud & VIGIL__UD_TAG) != VIGIL__UD_OP, 0))
            return reap_mixed(loop, u, head, end, d, n);
        if (!ud)
            continue;
        *d++ = (struct vigil__ring_cqe){ud, cqe->res, cqe->flags};
        __builtin_prefetch((const void *)(uintptr_t)ud, 1);
    }
    r->ndone = (unsigned)(d - r->done);
    vigil__ring_seen_to(r, head);
    return n;
}

/* reap's walk from head on, once it met a CQE that is not an op's (polls' events too),
 * and its end: the queue's length and the CQ ring's head. Returns the events in
 * loop->ev. */
static __attribute__((noinline)) int reap_mixed(vigil_loop *loop, struct uring_state *u, unsigned head,
                                                unsigned end, struct vigil__ring_cqe *d, int n)
{
    struct vigil__ring *r = u->ring;
    struct io_uring_cqe *cqes = r->ring.cq.cqes; /* in locals, as in reap */
    unsigned mask = r->ring.cq.ring_mask;
    for (; head != end; head++) {
        struct io_uring_cqe *cqe = &cqes[head & mask];
        uint64_t ud = cqe->user_data;
        unsigned tag = (unsigned)(ud & VIGIL__UD_TAG);
        if (tag == VIGIL__UD_OP && ud) {
            *d++ = (struct vigil__ring_cqe){ud, cqe->res, cqe->flags};
            __builtin_prefetch((const void *)(uintptr_t)ud, 1);
        } else if (tag == VIGIL__UD_POLL) {
            if (n == VIGIL__EV_CAP)
                break; /* loop->ev is full */
            n = poll_done(loop, u, ud, cqe->res, n);
        }
    }
    r->ndone = (unsigned)(d - r->done);
    vigil__ring_seen_to(r, head);
    return n;
}

/* The wait to a deadline (w->timeout_ns > 0). Inline too: out of line, it cost a loop
 * with timers (qemu-loop, 15 fds) ~20 instructions a turn, and saved the echo server
 * nothing (callgrind). */
static inline __attribute__((always_inline)) int enter_timed(struct uring_state *u, const struct vigil__wait *w)
{
    struct vigil__ring *r = u->ring;
    struct __kernel_timespec ts;
    struct io_uring_getevents_arg arg = {.ts = (uint64_t)(uintptr_t)&ts};
    unsigned flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
    if (u->abs_timer) {
        struct timespec d = vigil__ns_to_ts(w->deadline_ns);
        ts.tv_sec = d.tv_sec;
        ts.tv_nsec = d.tv_nsec;
        int e = vigil__ring_enter(r, 1, flags | IORING_ENTER_ABS_TIMER, &arg);
        if (e != -EINVAL)
            return e;
        u->abs_timer = false; /* older than 6.12 */
    }
    int64_t rel = w->deadline_ns - vigil__clock_ns(CLOCK_MONOTONIC);
    if (rel < 0)
        rel = 0;
    struct timespec d = vigil__ns_to_ts(rel);
    ts.tv_sec = d.tv_sec;
    ts.tv_nsec = d.tv_nsec;
    return vigil__ring_enter(r, rel ? 1 : 0, flags, &arg);
}

/* Hands the SQ ring to the kernel and waits as w says: one io_uring_enter, or none
 * when the turn must not sleep and there is nothing to submit or run. */
static inline __attribute__((always_inline)) int submit_wait(struct uring_state *u, const struct vigil__wait *w)
{
    struct vigil__ring *r = u->ring;
    if (w->timeout_ns == 0) {
        /* Must not sleep. Enter only to submit, to run deferred completion work the
         * kernel flagged, or to flush overflow. */
        bool due = vigil__ring_pending(r, IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW);
        return due ? vigil__ring_enter(r, 0, IORING_ENTER_GETEVENTS, NULL) : 0;
    }
    if (io_uring_cq_ready(&r->ring) > 0) {
        /* Need not sleep: completions are waiting (an earlier enter posted them, such as
         * src/net/uring.c's taskrun_rest). Enter only to submit or to flush overflow:
         * deferred work the kernel flagged alone is run by the next turn's enter, first
         * in line, at no system call of its own. Entering for it here was a third of the
         * echo server's enters (net-echo 100 x 64 B, perf trace over 30,000 requests:
         * 271 such enters of 1,166, beside 567 waits and 328 drains). */
        bool due = vigil__ring_pending(r, IORING_SQ_CQ_OVERFLOW);
        return due ? vigil__ring_enter(r, 0, IORING_ENTER_GETEVENTS, NULL) : 0;
    }
    if (w->timeout_ns < 0)
        return vigil__ring_enter(r, 1, IORING_ENTER_GETEVENTS, NULL);
    return enter_timed(u, w);
}

/* Applies the dirty fds; stops at the first that cannot get an SQE (it stays dirty). A
 * slot whose failure is pending is left alone: its watchers are about to stop. */
static void apply_dirty(vigil_loop *loop, struct uring_state *u)
{
    for (int i = 0; i < loop->ndirty; i++) {
        int fd = loop->dirty[i];
        if (!loop->fds[fd].failed && apply(loop, u, fd) < 0)
            break;
    }
}

/* One enter for the submission and the wait (or none at all, see submit_wait), then the
 * completions it left: events into loop->ev from *n on, op completions queued. Returns
 * the enter's result. What the enter posted beyond one completion per SQE it submitted
 * (the enter returns how many) is counted: src/net/uring.c, taskrun_rest, tells from it
 * whether the kernel may have stopped its deferred work at its per-enter cap. The tail
 * after the enter is the one reap reads, not a load of its own: with DEFER_TASKRUN
 * nothing posts between the two (completions reach the ring only inside this thread's
 * enters); on a kernel that refused the flag, what the kernel posts in between counts as
 * the enter's too, and the count is a guess either way (counting more only drains
 * more, see taskrun_rest). */
static inline __attribute__((always_inline)) int wait_reap(vigil_loop *loop, struct uring_state *u,
                                                           const struct vigil__wait *w, int *n)
{
    struct vigil__ring *rg = u->ring;
    unsigned tail0 = io_uring_smp_load_acquire(rg->ring.cq.ktail);
    int r = submit_wait(u, w);
    if (!vigil__ring_benign(r))
        return r;
    u->spurious = 0;
    unsigned tail;
    *n = reap(loop, u, *n, &tail);
    unsigned posted = tail - tail0, sub = r > 0 ? (unsigned)r : 0;
    rg->turn_posted += posted > sub ? posted - sub : 0;
    return r;
}

/* The rest of a turn whose wait ended only for polls that fired on a bit nobody wants
 * any more (lazy narrowing): nothing happened that the loop asked about, and the turn was
 * meant to sleep. Re-arm those exactly and wait again, to the same deadline, at most
 * twice more. Out of line: rare, and be_turn is inlined into the run loop. */
static __attribute__((noinline)) int turn_rewait(vigil_loop *loop, struct uring_state *u,
                                                 const struct vigil__wait *w)
{
    int n = 0;
    for (int round = 1;; round++) {
        apply_dirty(loop, u);
        unsigned ops_before = u->ring->ndone;
        int r = wait_reap(loop, u, w, &n);
        if (!vigil__ring_benign(r))
            return r;
        if (n > 0 || u->ring->ndone > ops_before || !u->spurious || r == -ETIME || r == -EINTR ||
            loop->fail_head >= 0 || round >= 2)
            return n;
    }
}

/* Step 2 of the turn (turn.h). Inlined into the run loop (be_run) as the epoll and poll
 * backends' steps are: the call, its saved registers and its return were ~20
 * instructions of every turn (callgrind, echo_server under net-echo 1 x 64 B, two turns
 * a request); what a turn rarely needs (changes to apply, the wait again after spurious
 * polls, poll completions) stays out of line. */
static inline __attribute__((always_inline)) int be_turn(vigil_loop *loop, const struct vigil__wait *w)
{
    struct uring_state *u = loop->bk;
    if (loop->ndirty)
        apply_dirty(loop, u);
    u->ring->turn_posted = 0;
    unsigned ops_before = u->ring->ndone;
    int n = 0;
    int r = wait_reap(loop, u, w, &n);
    if (!vigil__ring_benign(r))
        return r;
    if (__builtin_expect(u->spurious != 0, 0) && n == 0 && u->ring->ndone == ops_before && w->timeout_ns != 0 &&
        r != -ETIME && r != -EINTR && loop->fail_head < 0) {
        n = turn_rewait(loop, u, w);
        if (n < 0)
            return n;
    }
    for (int i = 0; i < n; i++)
        loop->fds[loop->ev[i].fd].bk.uring.ev_index = 0;
    return n;
}

static int be_run(vigil_loop *loop, enum vigil_run_mode mode)
{
    return vigil__run(loop, mode, be_turn, true);
}

#else /* !VIGIL_HAVE_LIBURING */

static int be_init(vigil_loop *loop)
{
    snprintf(loop->bk_reason, sizeof loop->bk_reason, "built without liburing");
    return -ENOSYS;
}

static void be_fini(vigil_loop *loop)
{
    (void)loop;
}

static int be_run(vigil_loop *loop, enum vigil_run_mode mode)
{
    (void)loop;
    (void)mode;
    return -ENOSYS;
}

#endif

const struct vigil__backend vigil__backend_uring = {
    .name = "uring",
    .init = be_init,
    .fini = be_fini,
    .run = be_run,
};
