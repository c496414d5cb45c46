/* src/ring/: the one io_uring submission path. The io_uring backend (src/backend/
 * uring.c), file I/O (src/file/engine_uring.c) and mq watchers (src/mq/watch.c) all
 * reach the kernel through these calls: a submission slot (or flush the ring and retry),
 * the tail that publishes slots, io_uring_enter and its harmless errors, an op's
 * completion hook and the point of the turn where completions run.
 * May call: src/sys (probe), liburing's inline ring helpers. Never calls a backend.
 *
 *   struct my_req { struct vigil__ring_op op; ... };
 *   struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);    // NULL: ring broken
 *   io_uring_prep_read(sqe, ...);
 *   vigil__ring_op_prep(loop->ring, sqe, &req->op);            // user_data, in flight
 *   -> the turn's one io_uring_enter submits it; its completion is read from the CQ ring
 *      by the backend (vigil__ring_queue) and run at the turn's completion point
 *      (vigil__ring_complete, after fd events), in the loop thread:
 *   req->op.complete(loop, &req->op, res, cqe_flags);
 *
 * An op's memory must stay valid until its completion ran. vigil__ring_cancel queues an
 * IORING_OP_ASYNC_CANCEL; the op still completes, with -ECANCELED or its result.
 */
#ifndef VIGIL_RING_H
#define VIGIL_RING_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vigil_loop;
struct io_uring_sqe;

struct vigil__ring_op {
    void (*complete)(struct vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t cqe_flags);
};

/* A completion's user_data says what it is (the low two bits; op pointers are at least
 * 4-byte aligned, so theirs are 00):
 *   00  an op: the pointer itself (NULL never appears);
 *   01  an fd's poll (the io_uring backend's own encoding above the tag);
 *   10  a request whose completion means nothing (poll update or remove, cancel). */
#define VIGIL__UD_OP 0x0u
#define VIGIL__UD_POLL 0x1u
#define VIGIL__UD_IGNORE 0x2u
#define VIGIL__UD_TAG 0x3u

/* Op completions read from the CQ ring in one turn, at most this many; the rest wait in
 * the CQ ring for the next turn. As large as the CQ ring (CQ_ENTRIES): a server with
 * 1000 connections gets a receive and a send completion per connection per wave, and
 * with a cap of 1024 the second half waited for a second turn and its io_uring_enter
 * (net-echo at 1000 connections, strace -c over 30,000 requests, 5 runs each: median
 * 0.069 system calls per request against hand-written liburing's 0.052; with 4096,
 * 0.049 against 0.058). The queue is 16 bytes an entry: 64 KiB per loop. */
#define VIGIL__RING_DONE_CAP 4096

struct vigil__ring;

/* Harmless returns of io_uring_enter: the deadline passed (-ETIME), a signal (-EINTR),
 * the CQ ring is full of completions not read yet (-EBUSY, -EAGAIN: reading them is the
 * cure). Every caller treats them as "the enter is over"; anything else is an error. */
static inline bool vigil__ring_benign(int r)
{
    return r >= 0 || r == -ETIME || r == -EINTR || r == -EBUSY || r == -EAGAIN;
}

#ifdef VIGIL_HAVE_LIBURING
#include "sys/sys.h"

#include <liburing.h>

struct vigil__ring_cqe {
    uint64_t user_data;
    int32_t res;
    uint32_t flags;
};

struct vigil__ring {
    struct io_uring ring;
    unsigned setup_flags; /* what io_uring_setup accepted */
    bool enabled;         /* IORING_SETUP_R_DISABLED lifted (the issuer thread is fixed) */
    unsigned inflight;    /* ops submitted whose last completion has not run */
    uint64_t enters;      /* io_uring_enter calls, for tests */
    unsigned turn_posted; /* completions this turn's wait enter(s) posted beyond one per SQE
                             they submitted (CQ tail growth, counted by the io_uring backend's
                             be_turn): read by src/net/uring.c taskrun_rest (did an enter's
                             deferred work stop at the kernel's cap?) */
    unsigned ndone;       /* op completions read, waiting for the completion point */
    struct vigil__ring_cqe done[VIGIL__RING_DONE_CAP];
};

/* Sets up a ring (flags the kernel refuses are dropped, see vigil__uring_setup), or a
 * negative errno with why. */
int vigil__ring_new(struct vigil__ring **out, unsigned entries, unsigned cq_entries, unsigned flags, char *why,
                    size_t whylen);
/* Closes the ring: the kernel cancels everything in flight. */
void vigil__ring_free(struct vigil__ring *r);

/* Lifts IORING_SETUP_R_DISABLED: the calling thread becomes the ring's issuer. */
int vigil__ring_enable(struct vigil__ring *r);

/* Publishes the filled slots; returns how many the kernel has not consumed. */
static inline unsigned vigil__ring_publish(struct vigil__ring *r)
{
    struct io_uring_sq *sq = &r->ring.sq;
    unsigned tail = sq->sqe_tail;
    if (sq->sqe_head != tail) {
        sq->sqe_head = tail;
        /* Release: the SQE contents must be visible to the kernel before the tail that
         * hands them over (pairs with its acquire of the tail). */
        io_uring_smp_store_release(sq->ktail, tail);
    }
    /* Acquire: the kernel's head tells which slots it has read. */
    return tail - io_uring_smp_load_acquire(sq->khead);
}

/* Publishes the slots filled since the last call (tail) and makes one io_uring_enter
 * with everything the kernel has not consumed, min_complete, flags and arg (may be
 * NULL). Lifts R_DISABLED first: the calling thread becomes the ring's issuer.
 * Inline, with the system call issued directly (src/sys/sys.h): it is on every turn
 * that submits or waits, and fs-ops read at one in flight makes three per operation;
 * out of line through glibc's syscall() it cost ~48 instructions and two returns per
 * enter (callgrind, 2026-12-02), against ~15. */
static inline int vigil__ring_enter(struct vigil__ring *r, unsigned min_complete, unsigned flags,
                                    const struct io_uring_getevents_arg *arg)
{
    if (__builtin_expect(!r->enabled, 0)) {
        int e = vigil__ring_enable(r);
        if (e < 0)
            return e;
    }
    unsigned to_submit = vigil__ring_publish(r);
    r->enters++;
    return (int)vigil__syscall6(__NR_io_uring_enter, r->ring.ring_fd, to_submit, min_complete, flags,
                                (long)(uintptr_t)arg, arg ? (long)sizeof *arg : 0);
}
/* Whether an enter is needed for anything but waiting: slots to submit, or one of the
 * kernel's SQ flags in kflags set (IORING_SQ_TASKRUN: deferred completion work;
 * IORING_SQ_CQ_OVERFLOW: completions to flush). */
static inline bool vigil__ring_pending(struct vigil__ring *r, unsigned kflags)
{
    struct io_uring_sq *sq = &r->ring.sq;
    /* The kernel sets these flags in shared memory; a relaxed read is enough, since the
     * enter that follows (or the next turn's check) is what acts on them. */
    return sq->sqe_tail != io_uring_smp_load_acquire(sq->khead) || (IO_URING_READ_ONCE(*sq->kflags) & kflags);
}
/* Submits what the ring holds without waiting (one io_uring_enter, none if empty). */
int vigil__ring_flush(struct vigil__ring *r);

/* The slow half of vigil__ring_sqe: the ring is full, flush it and retry. */
struct io_uring_sqe *vigil__ring_sqe_full(struct vigil__ring *r);

/* A submission slot for this turn's enter, or NULL when the ring is full and could not
 * be flushed (the ring is broken). Never drops a request: a full ring is flushed first
 * (one extra system call in a very large turn). */
static inline struct io_uring_sqe *vigil__ring_sqe_try(struct vigil__ring *r);
static inline struct io_uring_sqe *vigil__ring_sqe(struct vigil__ring *r)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe_try(r);
    return sqe ? sqe : vigil__ring_sqe_full(r);
}
/* vigil__ring_sqe without the flush: NULL when the ring is full (the caller then takes
 * vigil__ring_sqe, on a path of its own). It is liburing's io_uring_get_sqe for these
 * rings: 64-byte SQEs (IORING_SETUP_SQE128 is never asked) and no SQPOLL (the kernel
 * reads SQEs only inside our enters, so a plain read of its head is enough, as liburing
 * does without SQPOLL); its tests of both flags left out, ~6 instructions a slot fewer. */
static inline struct io_uring_sqe *vigil__ring_sqe_try(struct vigil__ring *r)
{
    struct io_uring_sq *sq = &r->ring.sq;
    unsigned tail = sq->sqe_tail;
    if (tail - IO_URING_READ_ONCE(*sq->khead) >= sq->ring_entries)
        return NULL;
    sq->sqe_tail = tail + 1;
    return &sq->sqes[tail & sq->ring_mask];
}

/* A batch's slots taken at once, for a caller that fills many in a row (file requests
 * submitted in groups): vigil__ring_room says how many slots are free now; a batch of
 * at most that many starts with vigil__ring_batch, fills vigil__ring_batch_next's slots
 * (each made an op with vigil__ring_op_set) and hands them all to this turn's enter
 * with vigil__ring_batch_end, which also counts them in flight. One check of the room
 * per batch instead of one per slot, and the ring's position stays in a register while
 * the SQEs are written (written through memory, it would be read again after every
 * store to an SQE). These rings have 64-byte SQEs: IORING_SETUP_SQE128 is never asked. */
struct vigil__ring_batch {
    struct io_uring_sqe *sqes;
    unsigned tail, mask; /* the slots taken: from the ring's sqe_tail (unchanged until the end) to tail */
};
static inline unsigned vigil__ring_room(struct vigil__ring *r)
{
    struct io_uring_sq *sq = &r->ring.sq;
    /* The kernel's head only moves on: a stale read undercounts, never over. */
    return sq->ring_entries - (sq->sqe_tail - IO_URING_READ_ONCE(*sq->khead));
}
static inline struct vigil__ring_batch vigil__ring_batch(struct vigil__ring *r)
{
    struct io_uring_sq *sq = &r->ring.sq;
    return (struct vigil__ring_batch){sq->sqes, sq->sqe_tail, sq->ring_mask};
}
static inline struct io_uring_sqe *vigil__ring_batch_next(struct vigil__ring_batch *b)
{
    return &b->sqes[b->tail++ & b->mask];
}
static inline void vigil__ring_op_set(struct io_uring_sqe *sqe, struct vigil__ring_op *op)
{
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)op | VIGIL__UD_OP);
}
static inline void vigil__ring_batch_end(struct vigil__ring *r, const struct vigil__ring_batch *b)
{
    /* The count from the tails: one counter fewer to keep per slot in the batch's loop. */
    r->inflight += b->tail - r->ring.sq.sqe_tail;
    r->ring.sq.sqe_tail = b->tail;
}

/* Makes sqe an op: its completion runs op->complete. Counted in flight until then. */
static inline void vigil__ring_op_prep(struct vigil__ring *r, struct io_uring_sqe *sqe, struct vigil__ring_op *op)
{
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)op | VIGIL__UD_OP);
    r->inflight++;
}

/* The next completion the kernel posted, or NULL (a memory read, no system call). Call
 * vigil__ring_seen once done reading it. */
static inline struct io_uring_cqe *vigil__ring_peek(struct vigil__ring *r)
{
    struct io_uring *ring = &r->ring;
    unsigned head = *ring->cq.khead;
    /* Acquire: the CQE contents are read after the tail that published them. */
    if (head == io_uring_smp_load_acquire(ring->cq.ktail))
        return NULL;
    return &ring->cq.cqes[head & ring->cq.ring_mask];
}
static inline void vigil__ring_seen(struct vigil__ring *r)
{
    /* Release: done reading this CQE before the kernel may reuse its slot. */
    io_uring_smp_store_release(r->ring.cq.khead, *r->ring.cq.khead + 1);
}

/* The completions posted and not seen yet, [*head, *tail): read each with
 * vigil__ring_cqe_at, then give the slots back at once with vigil__ring_seen_to. Those
 * posted meanwhile (a flush while reading) wait for the next read. */
static inline void vigil__ring_peek_all(struct vigil__ring *r, unsigned *head, unsigned *tail)
{
    *head = *r->ring.cq.khead;
    /* Acquire: the CQE contents are read after the tail that published them. */
    *tail = io_uring_smp_load_acquire(r->ring.cq.ktail);
}
static inline struct io_uring_cqe *vigil__ring_cqe_at(struct vigil__ring *r, unsigned i)
{
    return &r->ring.cq.cqes[i & r->ring.cq.ring_mask];
}
static inline void vigil__ring_seen_to(struct vigil__ring *r, unsigned head)
{
    /* Release: done reading these CQEs before the kernel may reuse their slots. */
    io_uring_smp_store_release(r->ring.cq.khead, head);
}

/* Queues a completion of an op read from the CQ ring, for the completion point; false
 * when this turn's queue is full (leave the CQE in the ring). */
static inline bool vigil__ring_queue(struct vigil__ring *r, uint64_t ud, int32_t res, uint32_t flags)
{
    if (r->ndone == VIGIL__RING_DONE_CAP)
        return false;
    r->done[r->ndone++] = (struct vigil__ring_cqe){ud, res, flags};
    return true;
}
#endif

/* Asks the kernel to cancel op (its completion still runs). -ENOSYS without a ring. */
int vigil__ring_cancel(struct vigil__ring *r, struct vigil__ring_op *op);
/* The completion point of a turn: runs the queued op completions in CQ order, counted
 * as one callback of the loop (loop->in_callback) while they run: an op's completion
 * may call the program's callback without counting it itself. */
void vigil__ring_complete(struct vigil_loop *loop, struct vigil__ring *r);
#ifdef VIGIL_HAVE_LIBURING
/* vigil__ring_complete's walk, inline for the io_uring backend's turn (turn.h, which
 * counts it as a callback as vigil__ring_complete does), which
 * runs it every turn with a completion: no call of its own, no registers saved for it
 * (two turns per request on a one-connection echo server). A completion may queue new
 * SQEs (a retry, a re-armed wait) but never reads the CQ ring, so the queue cannot grow
 * under this walk. */
static inline void vigil__ring_complete_inline(struct vigil_loop *loop, struct vigil__ring *r)
{
    unsigned n = r->ndone;
    for (const struct vigil__ring_cqe *c = r->done, *end = r->done + n; c != end; c++) {
        struct vigil__ring_op *op = (struct vigil__ring_op *)(uintptr_t)c->user_data;
        uint32_t flags = c->flags;
        if (!(flags & IORING_CQE_F_MORE))
            r->inflight--;
        op->complete(loop, op, c->res, flags);
    }
    r->ndone = 0;
}
#endif
/* Used while vigil_loop_free drains: waits for at least one completion, runs every op
 * completion the CQ ring holds (other CQEs are the dying backend's: dropped). */
int vigil__ring_drain(struct vigil_loop *loop, struct vigil__ring *r);
/* Ops in flight (keeps vigil_loop_free waiting); 0 without a ring. */
unsigned vigil__ring_inflight(const struct vigil__ring *r);

#endif
