/* The one io_uring submission path feature modules use (src/ring): an SQE taken during a
 * turn goes to the kernel with the next turn's enter and its completion runs
 * op->complete in the loop thread, at the turn's completion point; more SQEs than the
 * ring holds are submitted in chunks, none lost; vigil__ring_cancel ends a pending op
 * with -ECANCELED; inflight counts them. */
#include "ut.h"

#ifdef VIGIL_TEST_HAVE_LIBURING
#include <liburing.h>

struct my_op {
    struct vigil__ring_op op;
    int done;
    int32_t res;
};

static void complete(struct vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags)
{
    (void)loop;
    (void)flags;
    struct my_op *m = (struct my_op *)op;
    m->done++;
    m->res = res;
}
#endif

int main(void)
{
#ifndef VIGIL_TEST_HAVE_LIBURING
    vt_skip("built without liburing");
#else
    vigil_loop *loop = ut_loop();

    enum { N = 1000 };
    static struct my_op nops[N];
    for (int i = 0; i < N; i++) {
        struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
        CHECK(sqe != NULL);
        io_uring_prep_nop(sqe);
        nops[i].op.complete = complete;
        vigil__ring_op_prep(loop->ring, sqe, &nops[i].op);
    }
    CHECK_EQ(vigil__ring_inflight(loop->ring), N);
    while (vigil__ring_inflight(loop->ring) > 0)
        vigil_loop_run(loop, VIGIL_RUN_ONCE);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(nops[i].done, 1);
        CHECK_EQ(nops[i].res, 0);
    }

    /* A timeout op far in the future, cancelled. */
    static struct my_op t;
    static struct __kernel_timespec ts = {.tv_sec = 3600};
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    CHECK(sqe != NULL);
    io_uring_prep_timeout(sqe, &ts, 0, 0);
    t.op.complete = complete;
    vigil__ring_op_prep(loop->ring, sqe, &t.op);
    vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(t.done, 0);
    CHECK_EQ(vigil__ring_cancel(loop->ring, &t.op), 0);
    while (vigil__ring_inflight(loop->ring) > 0)
        vigil_loop_run(loop, VIGIL_RUN_ONCE);
    CHECK_EQ(t.done, 1);
    CHECK_EQ(t.res, -ECANCELED);
    CHECK_EQ(vigil_loop_free(loop), 0);

    /* Not on io_uring: no ring. */
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.backend = VIGIL_BACKEND_EPOLL;
    CHECK_EQ(vigil_loop_new(&loop, &o), 0);
    CHECK(loop->ring == NULL);
    CHECK_EQ(vigil__ring_cancel(loop->ring, &t.op), -ENOSYS);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
#endif
}
