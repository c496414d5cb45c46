/* The io_uring op mechanism for feature modules (src/uring.h): their SQEs ride in the
 * same io_uring_enter as the turn's interest changes and wait; their completions come
 * back through op->complete during the turn (backend_uring.c reaps them).
 */
#include "loop/loop.h"
#include "ring/ring.h"

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef VIGIL_HAVE_LIBURING

static struct vigil__uring *ring_of(struct vigil_loop *loop)
{
    return loop && loop->backend == &vigil__backend_uring ? loop->bk : NULL;
}

int vigil__uring_enable(struct vigil__uring *u)
{
    if (u->enabled)
        return 0;
    int r = io_uring_register(u->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
    if (r < 0)
        return r;
    u->enabled = true;
    return 0;
}

int vigil__uring_submit(struct vigil__uring *u)
{
    int r = vigil__uring_enable(u);
    if (r < 0)
        return r;
    struct io_uring_sq *sq = &u->ring.sq;
    unsigned tail = sq->sqe_tail;
    if (sq->sqe_head != tail) {
        sq->sqe_head = tail;
        /* Release: the SQE contents must be visible to the kernel before the tail that
         * publishes them (pairs with its acquire of the tail). */
        io_uring_smp_store_release(sq->ktail, tail);
    }
    unsigned pending = tail - io_uring_smp_load_acquire(sq->khead);
    if (pending == 0)
        return 0;
    u->enters++;
    long n = syscall(__NR_io_uring_enter, u->ring.ring_fd, pending, 0, 0, NULL, 0);
    return n < 0 ? -errno : (int)n;
}

struct io_uring_sqe *vigil__uring_sqe(struct vigil_loop *loop)
{
    struct vigil__uring *u = ring_of(loop);
    if (!u)
        return NULL;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        /* The SQ ring is full: hand what it holds to the kernel now (one extra system
         * call in this turn), never drop a request. */
        if (vigil__uring_submit(u) < 0)
            return NULL;
        sqe = io_uring_get_sqe(&u->ring);
        if (!sqe)
            return NULL;
    }
    /* Counted now: the caller turns it into an op with vigil__uring_sqe_op. */
    u->inflight++;
    return sqe;
}

void vigil__uring_sqe_op(struct io_uring_sqe *sqe, struct vigil__uring_op *op)
{
    /* An op pointer is at least 4-byte aligned: its low bits are the op tag (00). */
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)op);
}

int vigil__uring_cancel(struct vigil_loop *loop, struct vigil__uring_op *op)
{
    struct vigil__uring *u = ring_of(loop);
    if (!u)
        return -ENOSYS;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        int r = vigil__uring_submit(u);
        if (r < 0)
            return r;
        sqe = io_uring_get_sqe(&u->ring);
        if (!sqe)
            return -EBUSY;
    }
    io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)op, 0);
    /* The op itself completes (-ECANCELED or its result); the cancel's own completion
     * (0, -ENOENT when it already finished, -EALREADY when running) tells us nothing. */
    io_uring_sqe_set_data64(sqe, VIGIL__UD_IGNORE);
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    return 0;
}

struct io_uring *vigil__uring_ring(struct vigil_loop *loop)
{
    struct vigil__uring *u = ring_of(loop);
    return u ? &u->ring : NULL;
}

unsigned vigil__uring_inflight(struct vigil_loop *loop)
{
    struct vigil__uring *u = ring_of(loop);
    return u ? u->inflight : 0;
}

#else /* !VIGIL_HAVE_LIBURING: the backend refuses at init, so these see no ring */

struct io_uring_sqe *vigil__uring_sqe(struct vigil_loop *loop)
{
    (void)loop;
    return NULL;
}

void vigil__uring_sqe_op(struct io_uring_sqe *sqe, struct vigil__uring_op *op)
{
    (void)sqe;
    (void)op;
}

int vigil__uring_cancel(struct vigil_loop *loop, struct vigil__uring_op *op)
{
    (void)loop;
    (void)op;
    return -ENOSYS;
}

struct io_uring *vigil__uring_ring(struct vigil_loop *loop)
{
    (void)loop;
    return NULL;
}

unsigned vigil__uring_inflight(struct vigil_loop *loop)
{
    (void)loop;
    return 0;
}

#endif
