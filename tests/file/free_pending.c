/* vigil_loop_free while a read waits in the kernel on an empty pipe: on io_uring the
 * read is cancelled, its callback runs once with -ECANCELED, and the free returns.
 * (A thread-pool worker blocked in read(2) cannot be interrupted: skipped there.) */
#include "ft.h"

static int calls;
static int64_t last;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    (void)req;
    last = res;
    calls++;
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
    for (int i = 0; i < 3; i++) /* submitted: it waits in the kernel */
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK_EQ(calls, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(calls, 1);
    CHECK_EQ(last, -ECANCELED);
    return 0;
}
