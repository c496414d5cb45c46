/* A watched fd closed while a dup keeps its file open: epoll still holds that file
 * after close(). The loop must not deliver its events to anyone, must not spin on them
 * forever, and a new file under the same number works normally. */
#include "vt.h"

#include <unistd.h>

static struct vt_reads new_got; /* the new file's reads */

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2], q[2];
    CHECK_SYS(pipe(p));
    int num = p[0];
    int keep = dup(p[0]); /* keeps the old file open after close(p[0]) */
    CHECK_SYS(keep);
    vigil_io a = {0}, b = {.data = &new_got};
    /* The old file's watcher: any call to it fails the test at once. */
    CHECK_EQ(vigil_io_start(loop, &a, p[0], VIGIL_READ, vt_on_never), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);

    close(p[0]);                     /* watched, not stopped */
    CHECK_SYS(write(p[1], "o", 1)); /* the old file becomes readable, forever (never read) */
    CHECK_SYS(pipe(q));
    CHECK_EQ(q[0], num);
    CHECK_EQ(vigil_io_stop(loop, &a), 0);
    CHECK_EQ(vigil_io_start(loop, &b, q[0], VIGIL_READ, vt_on_read), 0);

    /* Several turns: the old file's readiness reaches nobody. */
    for (int i = 0; i < 5; i++)
        vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(new_got.calls, 0);

    vt_byte_reaches(loop, q[1], 'n', &new_got);

    /* And the loop is not kept busy by the stray file: with the new pipe drained, a
     * blocking turn with a wakeup queued returns with no watcher called. */
    CHECK_EQ(vigil_loop_wakeup(loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(new_got.calls, 1);

    CHECK_EQ(vigil_loop_free(loop), 0);
    close(keep);
    close(p[1]);
    close(q[0]);
    close(q[1]);
    return 0;
}
