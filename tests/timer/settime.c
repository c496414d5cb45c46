/* A real clock_settime, both directions, with an absolute REALTIME timer waiting: the
 * loop hears it through its timerfd (TFD_TIMER_CANCEL_ON_SET, ECANCELED) on every
 * backend. This sets the machine's clock, which other programs share: it runs only with
 * VIGIL_TEST_SETTIME=1 (and CAP_SYS_TIME), restores the clock (wall time that passed
 * included) and otherwise skips. */
#include "tt.h"

static int fired, guard_fired;
static void cb(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; fired++; }
static void guard_cb(vigil_loop *loop, vigil_timer *t) { (void)t; guard_fired++; vigil_loop_stop(loop); }

static int64_t real0, mono0;

static int shift(int64_t by_ns)
{
    /* set REALTIME to what it would read without our changes, plus by_ns */
    int64_t v = real0 + (tt_now(CLOCK_MONOTONIC) - mono0) + by_ns;
    struct timespec ts = {(time_t)(v / 1000000000), (long)(v % 1000000000)};
    return clock_settime(CLOCK_REALTIME, &ts);
}

int main(void)
{
    const char *e = getenv("VIGIL_TEST_SETTIME");
    if (!e || strcmp(e, "1") != 0)
        vt_skip("sets the machine's clock: run with VIGIL_TEST_SETTIME=1 (needs CAP_SYS_TIME)");
    vigil_loop *loop = vt_loop();
    real0 = tt_now(CLOCK_REALTIME);
    mono0 = tt_now(CLOCK_MONOTONIC);
    if (shift(0) < 0) {
        char why[128];
        snprintf(why, sizeof why, "clock_settime: %s", strerror(errno));
        vt_skip(why);
    }
    const int64_t ten_s = 10000 * TT_MS;
    vigil_timer t = {0}, guard = {0};

    /* forward: a timer 10 s away fires soon after the clock jumps 10 s ahead */
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_REALTIME, tt_now(CLOCK_REALTIME) + ten_s, 0, VIGIL_TIMER_ABS, cb), 0);
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, 5000 * TT_MS, 0, 0, guard_cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* arm the timerfd */
    int r = shift(ten_s + TT_MS);
    CHECK_EQ(r, 0);
    while (!fired && !guard_fired)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    int ok_fwd = fired == 1 && !guard_fired;
    CHECK_EQ(shift(0), 0);

    /* backward: a timer 200 ms away must not fire while the clock is 10 s behind */
    fired = guard_fired = 0;
    CHECK_EQ(vigil_timer_stop(loop, &guard), 0);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_REALTIME, tt_now(CLOCK_REALTIME) + 200 * TT_MS, 0, VIGIL_TIMER_ABS, cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(shift(-ten_s), 0);
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, 500 * TT_MS, 0, 0, guard_cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 1);
    int ok_back = fired == 0;
    CHECK_EQ(shift(0), 0); /* restored: the timer is due (200 ms passed) */
    while (!fired)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK(ok_fwd);
    CHECK(ok_back);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
