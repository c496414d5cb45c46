/* Lifecycle: a callback that stops its own watcher gets no further callback, even with
 * many events read in the same buffer; a callback may stop and start its watcher again;
 * vigil_loop_free stops watchers still started (ASan: nothing leaked) and closes their
 * fds. */
#include "fwt.h"
#include "fds.h"

static int calls;
static void stop_first(vigil_loop *loop, vigil_fswatch *w, const struct vigil_fswatch_event *ev)
{
    (void)ev;
    calls++;
    CHECK_EQ(vigil_fswatch_stop(loop, w), 0);
}

static const char *g_root;
static int restarts;
static void restart(vigil_loop *loop, vigil_fswatch *w, const struct vigil_fswatch_event *ev)
{
    (void)ev;
    if (restarts++ < 3) {
        CHECK_EQ(vigil_fswatch_stop(loop, w), 0);
        CHECK_EQ(vigil_fswatch_start(loop, w, g_root, VIGIL_FSWATCH_RECURSIVE, restart), 0);
    }
}

int main(void)
{
    const char *top = fwt_tmpdir("fsw-life");
    g_root = top;
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    vigil_fswatch w = {0};
    CHECK_EQ(vigil_fswatch_start(loop, &w, top, VIGIL_FSWATCH_RECURSIVE, stop_first), 0);
    for (int i = 0; i < 100; i++) {
        char n[32];
        snprintf(n, sizeof n, "f%d", i);
        fwt_touch(top, n);
    }
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0); /* returns once nothing is active */
    CHECK_EQ(calls, 1);
    CHECK_EQ(vigil_fswatch_active(&w), 0);

    calls = 0;
    CHECK_EQ(vigil_fswatch_start(loop, &w, top, VIGIL_FSWATCH_RECURSIVE, stop_first), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/d", top);
    CHECK_SYS(mkdir(p, 0700));
    /* The CREATED of d stops it: no callback after, neither from the scan of d nor
     * from the events read in the same buffer. */
    fwt_touch(top, "d/x");
    fwt_touch(top, "d/y");
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(calls, 1);

    CHECK_EQ(vigil_fswatch_start(loop, &w, top, VIGIL_FSWATCH_RECURSIVE, restart), 0);
    for (int i = 0; i < 10; i++) {
        char n[32];
        snprintf(n, sizeof n, "g%d", i);
        fwt_touch(top, n);
    }
    for (int k = 0; restarts < 4; k++) {
        char n[32];
        snprintf(n, sizeof n, "more%d", k); /* a new name: an event each time */
        fwt_touch(top, n);
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    }
    CHECK_EQ(vigil_fswatch_active(&w), 1);

    /* Freed with two watchers started. */
    vigil_fswatch w2 = {0};
    CHECK_EQ(vigil_fswatch_start(loop, &w2, top, 0, stop_first), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vt_count_fds(), fds0);
    return 0;
}
