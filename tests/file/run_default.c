/* Requests in flight keep vigil_loop_run(DEFAULT) running: it returns 0 once the last
 * callback ran, and the callbacks may chain further requests. */
#include "ft.h"

static int fd, chained;
static char buf[256];

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    CHECK_EQ(res, sizeof buf);
    if (++chained < 50) {
        vigil_file_prep_read(req, fd, buf, sizeof buf, chained, on_done);
        CHECK_EQ(vigil_file_start(loop, req), 0);
    }
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    fd = ft_tmpfile(0);
    static char data[4096];
    CHECK(pwrite(fd, data, sizeof data, 0) == (ssize_t)sizeof data);
    vigil_file_req r = {0};
    vigil_file_prep_read(&r, fd, buf, sizeof buf, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(chained, 50);
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
