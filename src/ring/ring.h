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

#include <stdbool.h>
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

/* The completion's user_data says what it is (the low two bits; op pointers are at
 * least 4-byte aligned, so theirs are 00):
 *   00  a feature module's op: the pointer itself (NULL never appears);
 *   01  an fd's poll: bits 2..31 the arm id (slot->bk), bits 32..63 the fd;
 *   10  a request whose completion means nothing to us (poll update or remove,
 *       cancel): ignored. */
#define VIGIL__UD_OP 0x0u
#define VIGIL__UD_POLL 0x1u
#define VIGIL__UD_IGNORE 0x2u
#define VIGIL__UD_TAG 0x3u

#ifdef VIGIL_HAVE_LIBURING
#include <liburing.h>

/* loop->bk when the loop runs io_uring (backend_uring.c; the op calls in uring.c). */
struct vigil__uring {
    struct io_uring ring;
    unsigned setup_flags;   /* what io_uring_setup accepted */
    unsigned inflight;      /* feature ops submitted, not yet completed */
    uint32_t arm_seq;       /* last poll arm id handed out (30 bits, never 0) */
    bool enabled;           /* IORING_SETUP_R_DISABLED lifted (first turn) */
    bool abs_timer;         /* the kernel takes IORING_ENTER_ABS_TIMER (6.12+) */
    uint64_t enters;        /* io_uring_enter calls, for tests and the lab */
    unsigned spurious;      /* this wait's polls that fired only for unwanted bits */
    unsigned ops_done;      /* this wait's op completions */
};

/* Lifts R_DISABLED: the calling thread becomes the ring's single issuer. */
int vigil__uring_enable(struct vigil__uring *u);
/* Submits what the SQ ring holds (one io_uring_enter), without waiting. */
int vigil__uring_submit(struct vigil__uring *u);
#endif

#endif
