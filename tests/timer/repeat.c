/* A repeating timer fires every interval (k-th callback not before start + k*interval),
 * keeps RUN_DEFAULT going, and ends when stopped from its own callback. After a stall
 * longer than several intervals it fires once, not once per missed interval. */
#include "tt.h"

#include <unistd.h>

static int64_t start, interval = 2 * TT_MS;
static clockid_t clk = CLOCK_MONOTONIC;
static int n;

static void cb(vigil_loop *loop, vigil_timer *t)
{
    n++;
    CHECK(tt_now(clk) >= start + n * interval);
    CHECK(vigil_timer_active(t)); /* still armed for its next round */
    if (n == 5)
        CHECK_EQ(vigil_timer_stop(loop, t), 0);
}

static int stalls;
static void stall_cb(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    (void)t;
    stalls++;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_timer t = {0};
    start = tt_now(CLOCK_MONOTONIC);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, interval, interval, 0, cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(n, 5);
    CHECK(!vigil_timer_active(&t));

    /* Stall: 1 ms interval, then 20 ms without running the loop. */
    vigil_timer s = {0};
    CHECK_EQ(vigil_timer_start(loop, &s, CLOCK_MONOTONIC, TT_MS, TT_MS, 0, stall_cb), 0);
    usleep(20000);
    /* ~20 intervals missed: one callback, not 20. A turn has two firing passes and a
     * repeating timer fires at most once per pass, so a second one only if a new
     * interval elapsed within the turn (a preempted test process). */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK(stalls >= 1 && stalls <= 2);
    CHECK_EQ(vigil_timer_stop(loop, &s), 0);

    /* Repeating on the timerfd clocks too. */
    for (int c = 0; c < 2; c++) {
        n = 0;
        clk = c ? CLOCK_REALTIME : CLOCK_BOOTTIME;
        start = tt_now(clk);
        CHECK_EQ(vigil_timer_start(loop, &t, clk, interval, interval, 0, cb), 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
        CHECK_EQ(n, 5);
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
