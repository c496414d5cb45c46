/* Run modes: DEFAULT runs until stopped or nothing is active; ONCE and NOWAIT make one
 * turn; stop from a callback ends DEFAULT after the current turn. */
#include "vt.h"

#include <unistd.h>

static int calls;
static void cb(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)ev;
    char b[8];
    CHECK(read(w->fd, b, sizeof b) > 0);
    if (++calls == 3)
        vigil_loop_stop(loop);
}
static void cb_last(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)ev;
    char b[8];
    CHECK(read(w->fd, b, sizeof b) > 0);
    calls++;
    CHECK_EQ(vigil_io_stop(loop, w), 0); /* nothing left: DEFAULT returns 0 */
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    CHECK(strcmp(vigil_loop_backend(loop), "uring") == 0 || strcmp(vigil_loop_backend(loop), "epoll") == 0 ||
          strcmp(vigil_loop_backend(loop), "poll") == 0);
    CHECK(vigil_loop_backend_reason(loop)[0] != 0);
    /* Nothing active: DEFAULT returns at once. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);

    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, cb), 0);
    /* Readable for three turns (one byte read per turn): the third callback stops. */
    CHECK_SYS(write(p[1], "abcdefgh", 8));
    /* cb reads up to 8 bytes; refill before each turn through the callback count */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(calls, 1);
    CHECK_SYS(write(p[1], "a", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(calls, 2);
    CHECK_SYS(write(p[1], "a", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 1); /* stopped by the callback, w active */
    CHECK_EQ(calls, 3);
    CHECK(vigil_io_active(&w));

    /* The stop flag does not stick: the next DEFAULT run turns again. */
    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, cb_last), 0);
    CHECK_SYS(write(p[1], "z", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(calls, 4);

    vigil_loop_stop(loop); /* stop before run: that run makes one turn without waiting */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    close(p[1]);
    return 0;
}
