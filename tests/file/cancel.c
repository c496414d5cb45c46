/* Cancelling a pending request: its callback runs once, later, with -ECANCELED. Two
 * reads wait on an empty pipe (with a one-thread pool the second is still queued; on
 * io_uring both wait in the kernel); the second is cancelled, then a byte written
 * completes the first. The callback never runs inside vigil_file_cancel. */
#include "ft.h"

static int done;
static int64_t res_of[2];
static int in_cancel;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    CHECK(!in_cancel);
    res_of[(intptr_t)req->data] = res;
    done++;
}

int main(void)
{
    vigil_loop *loop = ft_loop_threads(1);
    int p[2];
    CHECK_SYS(pipe2(p, O_CLOEXEC));
    char b0[8], b1[8];
    vigil_file_req a = {.data = (void *)0}, b = {.data = (void *)1};
    vigil_file_prep_read(&a, p[0], b0, sizeof b0, 0, on_done);
    vigil_file_prep_read(&b, p[0], b1, sizeof b1, 0, on_done);
    vigil_file_req *v[2] = {&a, &b};
    CHECK_EQ(vigil_file_submit(loop, v, 2), 2);
    /* Let both reach where they wait (kernel or thread pool). */
    for (int i = 0; i < 3; i++)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK_EQ(done, 0);
    in_cancel = 1;
    CHECK_EQ(vigil_file_cancel(loop, &b), 0);
    CHECK_EQ(vigil_file_cancel(loop, &b), 0); /* asking twice is harmless */
    in_cancel = 0;
    ft_run_until(loop, &done, 1);
    CHECK_EQ(res_of[1], -ECANCELED);
    CHECK_EQ(b.result, -ECANCELED);
    CHECK(write(p[1], "x", 1) == 1);
    ft_run_until(loop, &done, 2);
    CHECK_EQ(res_of[0], 1);
    CHECK_EQ(b0[0], 'x');
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
