/* Level-triggered like epoll: a ready fd whose data is not read reports again on every
 * turn; once read, it stops; a mask change on a ready fd reports under the new mask. */
#include "vt.h"

#include <unistd.h>

static int calls, last_ev;

static void on_ev(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; calls++; last_ev = ev; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, on_ev), 0);
    CHECK_SYS(write(p[1], "xy", 2));
    for (int i = 1; i <= 5; i++) {
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1); /* never blocks: still ready */
        CHECK_EQ(calls, i);
        CHECK(last_ev & VIGIL_READ);
    }
    char b[2];
    CHECK(read(p[0], b, 2) == 2);
    for (int i = 0; i < 3; i++)
        vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    int after = calls;
    CHECK(after <= 6); /* at most the one that raced the read */
    for (int i = 0; i < 3; i++)
        vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(calls, after);

    /* The write end: WRITE reported every turn while watched, none after the change. */
    vigil_io ww = {0};
    int wcalls0 = calls;
    CHECK_EQ(vigil_io_start(loop, &ww, p[1], VIGIL_WRITE, on_ev), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(calls, wcalls0 + 2);
    CHECK(last_ev & VIGIL_WRITE);
    CHECK_EQ(vigil_io_modify(loop, &ww, VIGIL_PRI), 0);
    vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    int c = calls;
    vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(calls, c);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
