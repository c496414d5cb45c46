/* vigil_loop_free while two reads wait in the kernel on an empty pipe (one the caller's,
 * one from the pool): on io_uring both are cancelled, each callback runs once with
 * -ECANCELED, and the free returns.
 * (A thread-pool worker blocked in read(2) cannot be interrupted: skipped there.) */
#include "ft.h"

static int calls;
static int64_t last;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    CHECK_EQ(res, -ECANCELED);
    last = res;
    calls++;
    vigil_file_req_put(loop, req); /* ignored for the caller's own request */
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    if (strcmp(vigil_file_engine(loop), "uring") != 0) {
        vigil_loop_free(loop);
        vt_skip("only io_uring can cancel a read that already waits on a pipe");
    }
    int p[2];
    CHECK_SYS(pipe2(p, O_CLOEXEC));
    char b[8];
    vigil_file_req r = {0};
    vigil_file_prep_read(&r, p[0], b, sizeof b, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    vigil_file_req *pr = vigil_file_req_get(loop);
    CHECK(pr != NULL);
    vigil_file_prep_read(pr, p[0], b, sizeof b, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, pr), 0);
    for (int i = 0; i < 3; i++) /* submitted: it waits in the kernel */
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK_EQ(calls, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(calls, 2);
    CHECK_EQ(last, -ECANCELED);
    CHECK_EQ(r.result, -ECANCELED);
    return 0;
}
