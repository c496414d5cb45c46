/* A change and a close of the same fd in one turn: the mask is modified, the watcher is
 * stopped, the fd closed, and its number reused by a new file with a new watcher, all
 * before the turn that applies them. The old file's readiness never reaches anyone; the
 * new file's does. Then the reverse order: close (without stop) and modify, then stop. */
#include "vt.h"

#include <unistd.h>

static int old_calls, new_calls;

static void on_old(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; (void)ev; old_calls++; }
static void on_new(vigil_loop *l, vigil_io *w, int ev)
{
    (void)l;
    CHECK(ev > 0 && (ev & VIGIL_READ));
    char b[8];
    CHECK(read(w->fd, b, sizeof b) == 1 && b[0] == 'n');
    new_calls++;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2], q[2];
    CHECK_SYS(pipe(p));
    vigil_io a = {0}, b = {0};
    CHECK_EQ(vigil_io_start(loop, &a, p[0], VIGIL_READ, on_old), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* armed in the kernel */
    int num = p[0];

    CHECK_SYS(write(p[1], "o", 1));                  /* the old file is ready ... */
    CHECK_EQ(vigil_io_modify(loop, &a, VIGIL_READ | VIGIL_PRI), 0); /* ... a change ... */
    CHECK_EQ(vigil_io_stop(loop, &a), 0);             /* ... and a close, same turn */
    close(p[0]);
    close(p[1]);
    CHECK_SYS(pipe(q));
    CHECK_EQ(q[0], num);
    CHECK_EQ(vigil_io_start(loop, &b, q[0], VIGIL_READ, on_new), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(old_calls, 0);
    CHECK_EQ(new_calls, 0);
    CHECK_SYS(write(q[1], "n", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(new_calls, 1);

    /* Modify, then stop and close in the same turn, no new watcher: nothing fires, and
     * the loop has nothing left to wait for. */
    CHECK_SYS(write(q[1], "n", 1));
    CHECK_EQ(vigil_io_modify(loop, &b, VIGIL_READ | VIGIL_WRITE), 0);
    CHECK_EQ(vigil_io_stop(loop, &b), 0);
    close(q[0]);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(new_calls, 1);
    CHECK_EQ(old_calls, 0);
    close(q[1]);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
