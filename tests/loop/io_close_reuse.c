/* A change and a close of the same fd in one turn: the mask is modified, the watcher is
 * stopped, the fd closed, and its number reused by a new file with a new watcher, all
 * before the turn that applies them. The old file's readiness never reaches anyone; the
 * new file's does. Then the reverse order: close (without stop) and modify, then stop. */
#include "vt.h"

#include <unistd.h>

static struct vt_reads new_got; /* the new file's reads */

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2], q[2];
    CHECK_SYS(pipe(p));
    vigil_io a = {0}, b = {.data = &new_got};
    /* The old file's watcher: any call to it fails the test at once. */
    CHECK_EQ(vigil_io_start(loop, &a, p[0], VIGIL_READ, vt_on_never), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* armed in the kernel */
    int num = p[0];

    CHECK_SYS(write(p[1], "o", 1));                  /* the old file is ready ... */
    CHECK_EQ(vigil_io_modify(loop, &a, VIGIL_READ | VIGIL_PRI), 0); /* ... a change ... */
    CHECK_EQ(vigil_io_stop(loop, &a), 0);             /* ... and a close, same turn */
    close(p[0]);
    close(p[1]);
    CHECK_SYS(pipe(q));
    CHECK_EQ(q[0], num);
    CHECK_EQ(vigil_io_start(loop, &b, q[0], VIGIL_READ, vt_on_read), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(new_got.calls, 0);
    vt_byte_reaches(loop, q[1], 'n', &new_got);

    /* Modify, then stop and close in the same turn, no new watcher: nothing fires, and
     * the loop has nothing left to wait for. */
    CHECK_SYS(write(q[1], "n", 1));
    CHECK_EQ(vigil_io_modify(loop, &b, VIGIL_READ | VIGIL_WRITE), 0);
    CHECK_EQ(vigil_io_stop(loop, &b), 0);
    close(q[0]);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(new_got.calls, 1);
    close(q[1]);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
