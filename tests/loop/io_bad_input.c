/* Bad input to fd watchers: a negative errno from the call, nothing changed in the loop. */
#include "vt.h"

#include <unistd.h>

static int calls;
static void cb(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; (void)ev; calls++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io w = {0};

    CHECK_EQ(vigil_io_start(loop, &w, -1, VIGIL_READ, cb), -EBADF);
    CHECK_EQ(vigil_io_start(loop, &w, -12345, VIGIL_READ, cb), -EBADF);
    int closed = dup(p[0]);
    close(closed);
    CHECK_EQ(vigil_io_start(loop, &w, closed, VIGIL_READ, cb), -EBADF);
    CHECK_EQ(vigil_io_start(loop, &w, 1 << 20, VIGIL_READ, cb), -EBADF); /* never opened */
    CHECK_EQ(vigil_io_start(loop, &w, p[0], 0, cb), -EINVAL);
    CHECK_EQ(vigil_io_start(loop, &w, p[0], 0x8000, cb), -EINVAL);
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_ERR, cb), -EINVAL); /* output-only bit */
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, NULL), -EINVAL);
    CHECK_EQ(vigil_io_start(NULL, &w, p[0], VIGIL_READ, cb), -EINVAL);
    CHECK_EQ(vigil_io_start(loop, NULL, p[0], VIGIL_READ, cb), -EINVAL);
    CHECK(!vigil_io_active(&w));
    CHECK_EQ(vigil_io_modify(loop, &w, VIGIL_READ), -EINVAL); /* not started */

    /* Nothing was started: the loop has nothing active. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);

    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, cb), 0);
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, cb), -EBUSY);
    CHECK_EQ(vigil_io_start(loop, &w, p[1], VIGIL_WRITE, cb), -EBUSY);
    CHECK_EQ(vigil_io_modify(loop, &w, 0), -EINVAL);
    CHECK_EQ(vigil_io_modify(loop, &w, 0x100), -EINVAL);
    CHECK(vigil_io_active(&w));
    CHECK_EQ(w.fd, p[0]);
    /* Still works as first started. */
    CHECK_SYS(write(p[1], "x", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(calls, 1);

    CHECK_EQ(vigil_loop_run(loop, (enum vigil_run_mode)42), -EINVAL);
    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    close(p[1]);
    return 0;
}
