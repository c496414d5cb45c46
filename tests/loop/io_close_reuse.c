/* Closing a watched fd, and its number being reused by another file, never sends the
 * new file's watcher an event of the old one, nor loses the new file's events. */
#include "vt.h"

#include <fcntl.h>
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
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* registered with the kernel */
    int num = p[0];

    /* Case 1: stop, close, reopen under the same number, start -- all in one turn. */
    CHECK_SYS(write(p[1], "o", 1)); /* the old file is readable */
    CHECK_EQ(vigil_io_stop(loop, &a), 0);
    close(p[0]);
    close(p[1]);
    CHECK_SYS(pipe(q));
    CHECK_EQ(q[0], num); /* lowest free number */
    CHECK_EQ(vigil_io_start(loop, &b, q[0], VIGIL_READ, on_new), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(old_calls, 0);
    CHECK_EQ(new_calls, 0); /* the new pipe is empty */
    CHECK_SYS(write(q[1], "n", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(new_calls, 1);

    /* Case 2: close while watched (no stop), number reused, then stop + start. */
    CHECK_EQ(vigil_io_stop(loop, &b), 0);
    CHECK_EQ(vigil_io_start(loop, &a, q[0], VIGIL_READ, on_old), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    close(q[0]);
    close(q[1]);
    int r2[2];
    CHECK_SYS(pipe(r2));
    CHECK_EQ(r2[0], num);
    CHECK_EQ(vigil_io_stop(loop, &a), 0);
    CHECK_EQ(vigil_io_start(loop, &b, r2[0], VIGIL_READ, on_new), 0);
    CHECK_SYS(write(r2[1], "n", 1));
    for (int i = 0; i < 3; i++)
        vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(old_calls, 0);
    CHECK_EQ(new_calls, 2);

    CHECK_EQ(vigil_loop_free(loop), 0);
    close(r2[0]);
    close(r2[1]);
    return 0;
}
