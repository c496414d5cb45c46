/* Deadlines past INT64_MAX clamp to INT64_MAX instead of wrapping into the past: such a
 * timer stays armed and never fires; a repeating timer whose next deadline would
 * overflow clamps too. A loop whose only timer is that far away still runs NOWAIT. */
#include "tt.h"

#include "loop/timer.h" /* the private deadline field, to check the clamp itself */

#include <unistd.h>

static int fired;
static void cb(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; fired++; }

static vigil_timer past;
static void start_past(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    CHECK_EQ(vigil_timer_start(loop, &past, CLOCK_REALTIME, -1, 0, VIGIL_TIMER_ABS, cb), 0);
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    static const clockid_t clocks[3] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};
    vigil_timer rel[3], absmax[3], rep[3];
    memset(rel, 0, sizeof rel);
    memset(absmax, 0, sizeof absmax);
    memset(rep, 0, sizeof rep);
    for (int c = 0; c < 3; c++) {
        CHECK_EQ(vigil_timer_start(loop, &rel[c], clocks[c], INT64_MAX, 0, 0, cb), 0);
        CHECK_EQ(vigil__timer(&rel[c])->deadline_ns, INT64_MAX);
        CHECK_EQ(vigil_timer_start(loop, &absmax[c], clocks[c], INT64_MAX, 0, VIGIL_TIMER_ABS, cb), 0);
        /* due at once (absolute 1 ns), then INT64_MAX later: clamps */
        CHECK_EQ(vigil_timer_start(loop, &rep[c], clocks[c], 1, INT64_MAX, VIGIL_TIMER_ABS, cb), 0);
    }
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(fired, 3); /* the three repeating ones, once each */
    for (int c = 0; c < 3; c++) {
        CHECK(vigil_timer_active(&rel[c]));
        CHECK(vigil_timer_active(&rep[c]));
        CHECK_EQ(vigil__timer(&rep[c])->deadline_ns, INT64_MAX);
        CHECK_EQ(vigil_timer_stop(loop, &rel[c]), 0);
        CHECK_EQ(vigil_timer_stop(loop, &absmax[c]), 0);
        CHECK_EQ(vigil_timer_stop(loop, &rep[c]), 0);
    }
    /* The other end: an absolute deadline at INT64_MIN is simply due (no overflow in
     * the lateness it reports); repeating from there resumes from now. */
    fired = 0;
    vigil_timer lo = {0}, lorep = {0};
    CHECK_EQ(vigil_timer_start(loop, &lo, CLOCK_MONOTONIC, INT64_MIN, 0, VIGIL_TIMER_ABS, cb), 0);
    CHECK_EQ(vigil_timer_start(loop, &lorep, CLOCK_REALTIME, INT64_MIN, 3600LL * 1000 * TT_MS, VIGIL_TIMER_ABS, cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(fired, 2);
    CHECK(!vigil_timer_active(&lo));
    CHECK(vigil_timer_active(&lorep));
    CHECK(vigil__timer(&lorep)->deadline_ns > tt_now(CLOCK_REALTIME));
    CHECK_EQ(vigil_timer_stop(loop, &lorep), 0);
    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(loop, &st), 0);
    CHECK_EQ(st.late_max_ns, INT64_MAX);

    /* A past deadline of -1 ns on a timerfd clock, started by a callback of that
     * clock's firing pass (so that pass does not fire it): the turn must not sleep on
     * it (-1 must not be mistaken for "timerfd already armed there"). */
    fired = 0;
    alarm(20); /* a hang fails the test instead of running into ctest's timeout */
    vigil_timer starter = {0};
    CHECK_EQ(vigil_timer_start(loop, &starter, CLOCK_REALTIME, 1, 0, VIGIL_TIMER_ABS, start_past), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(fired, 1);
    alarm(0);

    /* Nothing active any more: DEFAULT returns at once. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
