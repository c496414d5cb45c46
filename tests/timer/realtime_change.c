/* An absolute REALTIME timer follows a change of the wall clock in both directions.
 * The machine's clock is never set: vigil__timers_inject_clock_change() shifts the
 * timers' view of REALTIME and takes the path a real clock_settime takes (the REALTIME
 * timerfd's ECANCELED): re-read the clock, fire what became due, re-arm the timerfd.
 *   forward:  a timer an hour away fires when the clock jumps an hour ahead;
 *   backward: a timer 1 s away does not fire while a MONOTONIC guard of 100 ms runs
 *             after the clock jumped an hour back (1 ms in), and fires once it jumps
 *             forward again (an hour and 2 s);
 *   from a callback: the change arriving during dispatch (as ECANCELED does) works too.
 * A relative MONOTONIC timer is not moved by any of it. */
#include "tt.h"

#include "loop/timer.h"

static int real_fired, guard_fired, mono_fired;
static int64_t real_deadline;

static void real_cb(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    /* the timers' view of REALTIME: the real clock plus the injected offset */
    CHECK(tt_now(CLOCK_REALTIME) + vigil__timers_of(loop)->real_offset_ns >= real_deadline);
    real_fired++;
}

static void guard_cb(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    guard_fired++;
    vigil_loop_stop(loop);
}

static void jump_cb(vigil_loop *loop, vigil_timer *t)
{
    vigil__timers_inject_clock_change(loop, (int64_t)(intptr_t)t->data);
}

static void mono_cb(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; mono_fired++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    const int64_t hour = 3600LL * 1000 * TT_MS;
    vigil_timer rt = {0}, guard = {0}, jump = {0}, mono = {0};

    /* forward, injected between turns */
    real_deadline = tt_now(CLOCK_REALTIME) + hour;
    CHECK_EQ(vigil_timer_start(loop, &rt, CLOCK_REALTIME, real_deadline, 0, VIGIL_TIMER_ABS, real_cb), 0);
    CHECK_EQ(vigil_timer_start(loop, &mono, CLOCK_MONOTONIC, hour, 0, 0, mono_cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(real_fired, 0);
    vigil__timers_inject_clock_change(loop, hour + TT_MS);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(real_fired, 1);
    CHECK_EQ(mono_fired, 0);
    CHECK(vigil_timer_active(&mono));

    /* backward, injected from a callback (during a turn, as the timerfd's ECANCELED is) */
    real_deadline = tt_now(CLOCK_REALTIME) + vigil__timers_of(loop)->real_offset_ns + 1000 * TT_MS;
    CHECK_EQ(vigil_timer_start(loop, &rt, CLOCK_REALTIME, real_deadline, 0, VIGIL_TIMER_ABS, real_cb), 0);
    jump.data = (void *)(intptr_t)-hour;
    CHECK_EQ(vigil_timer_start(loop, &jump, CLOCK_MONOTONIC, TT_MS, 0, 0, jump_cb), 0);
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, 100 * TT_MS, 0, 0, guard_cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 1);
    CHECK_EQ(guard_fired, 1);
    CHECK_EQ(real_fired, 1); /* now an hour away: not fired */
    CHECK(vigil_timer_active(&rt));

    /* and forward again from a callback: fires */
    jump.data = (void *)(intptr_t)(hour + 2000 * TT_MS);
    guard_fired = 0;
    CHECK_EQ(vigil_timer_start(loop, &jump, CLOCK_MONOTONIC, TT_MS, 0, 0, jump_cb), 0);
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, 10000 * TT_MS, 0, 0, guard_cb), 0);
    while (real_fired < 2 && !guard_fired)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(real_fired, 2);
    CHECK_EQ(guard_fired, 0);

    /* the timerfd is re-armed against the new clock: a REALTIME timer 20 ms away in the
     * shifted view fires through it (the loop's only other timer is an hour away) */
    real_deadline = tt_now(CLOCK_REALTIME) + vigil__timers_of(loop)->real_offset_ns + 20 * TT_MS;
    CHECK_EQ(vigil_timer_stop(loop, &guard), 0);
    CHECK_EQ(vigil_timer_start(loop, &rt, CLOCK_REALTIME, real_deadline, 0, VIGIL_TIMER_ABS, real_cb), 0);
    while (real_fired < 3)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(mono_fired, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
