/* Cancelling a pending request: its callback runs once, later, with -ECANCELED. Two
 * reads wait on an empty pipe (with a one-thread pool the second is still queued; on
 * io_uring both wait in the kernel); the second is cancelled, then a byte written
 * completes the first. The callback never runs inside vigil_file_cancel. */
#include "ft.h"

static int in_cancel;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    CHECK(!in_cancel);
    ft_on_done(loop, req, res);
}

int main(void)
{
    vigil_loop *loop = ft_loop_threads(1);
    int p[2];
    CHECK_SYS(pipe2(p, O_CLOEXEC));
    char b0[8], b1[8];
    vigil_file_req r[2];
    ft_reqs(r, 2);
    vigil_file_prep_read(&r[0], p[0], b0, sizeof b0, 0, on_done);
    vigil_file_prep_read(&r[1], p[0], b1, sizeof b1, 0, on_done);
    vigil_file_req *v[2] = {&r[0], &r[1]};
    CHECK_EQ(vigil_file_submit(loop, v, 2), 2);
    struct ft_results *got = ft_results();
    /* Let both reach where they wait (kernel or thread pool). */
    for (int i = 0; i < 3; i++)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK_EQ(got->done, 0);
    in_cancel = 1;
    CHECK_EQ(vigil_file_cancel(loop, &r[1]), 0);
    CHECK_EQ(vigil_file_cancel(loop, &r[1]), 0); /* asking twice is harmless */
    in_cancel = 0;
    ft_run_until(loop, &got->done, 1);
    CHECK_EQ(got->res[1], -ECANCELED);
    CHECK_EQ(r[1].result, -ECANCELED);
    CHECK(write(p[1], "x", 1) == 1);
    ft_run_until(loop, &got->done, 2);
    CHECK_EQ(got->res[0], 1);
    CHECK_EQ(b0[0], 'x');
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
