/* The one io_uring submission path (see ring.h): setup, slot, tail, enter, cancel, and
 * the completion point. Only the loop thread calls these.
 */
#include "ring/ring.h"
#include "loop/loop.h"
#include "sys/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef VIGIL_HAVE_LIBURING

int vigil__ring_new(struct vigil__ring **out, unsigned entries, unsigned cq_entries, unsigned flags, char *why,
                    size_t whylen)
{
    struct vigil__ring *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    int e = vigil__uring_setup(&r->ring, entries, cq_entries, &flags, why, whylen);
    if (e < 0) {
        free(r);
        return e;
    }
    r->setup_flags = flags;
    r->enabled = !(flags & IORING_SETUP_R_DISABLED);
    *out = r;
    return 0;
}

void vigil__ring_free(struct vigil__ring *r)
{
    if (!r)
        return;
    vigil__uring_exit(&r->ring);
    free(r);
}

int vigil__ring_enable(struct vigil__ring *r)
{
    int e = io_uring_register(r->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
    if (e < 0)
        return e;
    r->enabled = true;
    return 0;
}

int vigil__ring_flush(struct vigil__ring *r)
{
    if (r->ring.sq.sqe_tail == io_uring_smp_load_acquire(r->ring.sq.khead))
        return 0;
    return vigil__ring_enter(r, 0, 0, NULL);
}

struct io_uring_sqe *vigil__ring_sqe_full(struct vigil__ring *r)
{
    int e = vigil__ring_flush(r);
    if (e < 0 && !vigil__ring_benign(e))
        return NULL;
    return io_uring_get_sqe(&r->ring);
}

int vigil__ring_cancel(struct vigil__ring *r, struct vigil__ring_op *op)
{
    if (!r)
        return -ENOSYS;
    struct io_uring_sqe *sqe = vigil__ring_sqe(r);
    if (!sqe)
        return -EBUSY;
    io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)op, 0);
    /* The op itself completes (-ECANCELED or its result); the cancel's own completion
     * (0, -ENOENT when it already finished, -EALREADY when running) tells us nothing. */
    io_uring_sqe_set_data64(sqe, VIGIL__UD_IGNORE);
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    return 0;
}

void vigil__ring_complete(struct vigil_loop *loop, struct vigil__ring *r)
{
    /* One callback of the loop, as in the turn (loop/turn.h, step 5). */
    loop->in_callback++;
    vigil__ring_complete_inline(loop, r);
    loop->in_callback--;
}

int vigil__ring_drain(struct vigil_loop *loop, struct vigil__ring *r)
{
    int e = vigil__ring_enter(r, 1, IORING_ENTER_GETEVENTS, NULL);
    if (!vigil__ring_benign(e))
        return e;
    struct io_uring_cqe *cqe;
    while ((cqe = vigil__ring_peek(r))) {
        if ((cqe->user_data & VIGIL__UD_TAG) == VIGIL__UD_OP && cqe->user_data &&
            !vigil__ring_queue(r, cqe->user_data, cqe->res, cqe->flags))
            break;
        vigil__ring_seen(r);
    }
    vigil__ring_complete(loop, r);
    return 0;
}

unsigned vigil__ring_inflight(const struct vigil__ring *r)
{
    return r ? r->inflight : 0;
}

#else /* !VIGIL_HAVE_LIBURING: the backend refuses at init, so no ring ever exists */

int vigil__ring_cancel(struct vigil__ring *r, struct vigil__ring_op *op)
{
    (void)r;
    (void)op;
    return -ENOSYS;
}
void vigil__ring_complete(struct vigil_loop *loop, struct vigil__ring *r)
{
    (void)loop;
    (void)r;
}
int vigil__ring_drain(struct vigil_loop *loop, struct vigil__ring *r)
{
    (void)loop;
    (void)r;
    return -ENOSYS;
}
unsigned vigil__ring_inflight(const struct vigil__ring *r)
{
    (void)r;
    return 0;
}

#endif
