/* An idle hook makes every turn's wait non-blocking, and keeps the loop running.
 * The loop's only other watcher is a pipe nobody writes to: without the idle hook a
 * turn would sleep on it for ever (alarm() fails the test). The loop's statistics count
 * the turns that entered the kernel to wait: none while the idle hook is started (what
 * the test checks, rather than any time), one per turn again after it stopped. */
#include "vt.h"

#include <fcntl.h>

static long idles;
static vigil_io never;

static void on_io(vigil_loop *l, vigil_io *w, int revents)
{
    (void)l, (void)w, (void)revents;
    CHECK(!"the pipe is never written to");
}

static void on_idle(vigil_loop *l, vigil_idle *w)
{
    (void)w;
    idles++;
    CHECK_EQ(vigil_idle_active(w), 1);
    if (idles == 1000) { /* the work is done: let vigil_loop_run(DEFAULT) end */
        CHECK_EQ(vigil_idle_stop(l, w), 0);
        CHECK_EQ(vigil_io_stop(l, &never), 0);
    }
}

static void on_timer(vigil_loop *l, vigil_timer *t)
{
    (void)l, (void)t;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    int p[2];
    CHECK_SYS(pipe2(p, O_NONBLOCK | O_CLOEXEC));
    CHECK_EQ(vigil_io_start(loop, &never, p[0], VIGIL_READ, on_io), 0);
    vigil_idle idle = {0};
    CHECK_EQ(vigil_idle_active(&idle), 0);
    CHECK_EQ(vigil_idle_start(loop, &idle, on_idle), 0);
    CHECK_EQ(vigil_idle_active(&idle), 1);

    struct vigil_loop_stats st0, st1;
    CHECK_EQ(vigil_loop_stats_get(loop, &st0), 0);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(vigil_loop_stats_get(loop, &st1), 0);
    CHECK_EQ(idles, 100);
    CHECK_EQ(st1.turns - st0.turns, 100);
    CHECK_EQ(st1.waits - st0.waits, 0); /* not one turn slept */

    /* RUN_DEFAULT spins on the idle hook until its callback stops it (and the pipe's
     * watcher): then nothing is active and the run returns 0. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(idles, 1000);
    CHECK_EQ(vigil_idle_active(&idle), 0);
    CHECK_EQ(vigil_loop_stats_get(loop, &st0), 0);
    CHECK_EQ(st0.waits - st1.waits, 0);

    /* Idle stopped: a turn with a watcher and a timer sleeps again (until the timer). */
    CHECK_EQ(vigil_io_start(loop, &never, p[0], VIGIL_READ, on_io), 0);
    vigil_timer t = {0};
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 2000000, 0, 0, on_timer), 0);
    while (vigil_timer_active(&t))
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(vigil_loop_stats_get(loop, &st1), 0);
    CHECK(st1.waits > st0.waits);
    CHECK_EQ(idles, 1000);

    printf("hooks idle: pass (%s): 1000 idle turns, none slept\n", vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
