/* What the io_uring backend offers the feature modules (file I/O, mq watch): SQEs that
 * go to the kernel in the same io_uring_enter as the turn's interest changes and wait,
 * and a completion callback per operation.
 *
 *   struct my_req { struct vigil__uring_op op; ... };
 *   struct io_uring_sqe *sqe = vigil__uring_sqe(loop);   // NULL: not on io_uring
 *   io_uring_prep_read(sqe, ...);
 *   vigil__uring_sqe_op(sqe, &req->op);                    // sets user_data
 *   -> later, in the loop thread, during the turn's dispatch:
 *   req->op.complete(loop, &req->op, cqe->res, cqe->flags);
 *
 * The backend tags user_data so poll completions and ops never mix. An op's memory must
 * stay valid until its completion ran (cancel with vigil__uring_cancel, which queues
 * IORING_OP_ASYNC_CANCEL; the op still completes, with -ECANCELED or its result).
 */
#ifndef VIGIL_URING_H
#define VIGIL_URING_H

#include <stdint.h>

struct vigil_loop;
struct io_uring_sqe;

struct vigil__uring_op {
    void (*complete)(struct vigil_loop *loop, struct vigil__uring_op *op, int32_t res, uint32_t cqe_flags);
};

/* An SQE for this turn's submission, or NULL when the loop does not run io_uring. When
 * the submission ring is full, the backend submits what it holds first (one extra
 * system call, never a lost request). */
struct io_uring_sqe *vigil__uring_sqe(struct vigil_loop *loop);
void vigil__uring_sqe_op(struct io_uring_sqe *sqe, struct vigil__uring_op *op);
int vigil__uring_cancel(struct vigil_loop *loop, struct vigil__uring_op *op);
/* The ring itself, for registration calls (files, buffers); NULL when not on io_uring. */
struct io_uring *vigil__uring_ring(struct vigil_loop *loop);
/* Number of ops submitted and not yet completed (keeps vigil_loop_free waiting). */
unsigned vigil__uring_inflight(struct vigil_loop *loop);

#endif
