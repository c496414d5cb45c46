/* An absolute REALTIME timer follows a change of the wall clock in both directions.
 * The machine's clock is never set. This process shifts CLOCK_REALTIME for itself: the
 * C library calls through which vigil reads the wall clock and arms its REALTIME
 * timerfd (clock_gettime; timerfd_settime with TFD_TIMER_ABSTIME on a REALTIME timerfd)
 * are defined below, and add (or take out) the test's offset around the real system
 * call, so the library runs its production code unchanged against a wall clock that
 * jumps. The jump is announced through vigil__timers_clock_was_set(), the path the
 * REALTIME timerfd's ECANCELED takes after a real clock_settime: re-read the clock, fire
 * what became due, re-arm the timerfd.
 *   forward:  a timer an hour away fires when the clock jumps an hour ahead;
 *   backward: a timer 1 s away does not fire while a MONOTONIC guard of 100 ms runs
 *             after the clock jumped an hour back (1 ms in), and fires once it jumps
 *             forward again (an hour and 2 s);
 *   from a callback: the change arriving during dispatch (as ECANCELED does) works too;
 *   re-armed: a REALTIME timer 20 ms away on the shifted clock fires through the
 *             timerfd, one armed before a jump too.
 * A relative MONOTONIC timer is not moved by any of it. */
#include "tt.h"

#include "loop/timer.h"

#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* ------------------------------------------- this process's shifted wall clock */

static int64_t real_offset_ns; /* how far this process's CLOCK_REALTIME is ahead */
static bool real_tfd[1024];    /* which fds are REALTIME timerfds */
static int shifted_reads, shifted_arms;

int clock_gettime(clockid_t c, struct timespec *ts)
{
    if (syscall(SYS_clock_gettime, c, ts) < 0)
        return -1;
    if (c == CLOCK_REALTIME) {
        int64_t t = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + real_offset_ns;
        ts->tv_sec = (time_t)(t / 1000000000);
        ts->tv_nsec = (long)(t % 1000000000);
        shifted_reads++;
    }
    return 0;
}

int timerfd_create(int c, int flags)
{
    int fd = (int)syscall(SYS_timerfd_create, c, flags);
    if (fd >= 0 && fd < 1024)
        real_tfd[fd] = c == CLOCK_REALTIME;
    return fd;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *its, struct itimerspec *old)
{
    struct itimerspec k = *its;
    if ((flags & TFD_TIMER_ABSTIME) && fd >= 0 && fd < 1024 && real_tfd[fd] &&
        (its->it_value.tv_sec || its->it_value.tv_nsec)) {
        int64_t t = (int64_t)its->it_value.tv_sec * 1000000000 + its->it_value.tv_nsec - real_offset_ns;
        if (t < 1)
            t = 1; /* in the past on the real clock: expire at once */
        k.it_value.tv_sec = (time_t)(t / 1000000000);
        k.it_value.tv_nsec = (long)(t % 1000000000);
        shifted_arms++;
    }
    return (int)syscall(SYS_timerfd_settime, fd, flags, &k, old);
}

/* The wall clock jumps by offset_ns, and the loop is told as a real jump tells it. */
static void clock_jump(vigil_loop *loop, int64_t offset_ns)
{
    real_offset_ns += offset_ns;
    vigil__timers_clock_was_set(loop);
}

static int real_fired, guard_fired, mono_fired;
static int64_t real_deadline;

static void real_cb(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    (void)loop;
    CHECK(tt_now(CLOCK_REALTIME) >= real_deadline); /* the shifted clock */
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
    clock_jump(loop, (int64_t)(intptr_t)t->data);
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
    clock_jump(loop, hour + TT_MS);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(real_fired, 1);
    CHECK_EQ(mono_fired, 0);
    CHECK(vigil_timer_active(&mono));

    /* backward, injected from a callback (during a turn, as the timerfd's ECANCELED is) */
    real_deadline = tt_now(CLOCK_REALTIME) + 1000 * TT_MS;
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
    real_deadline = tt_now(CLOCK_REALTIME) + 20 * TT_MS;
    CHECK_EQ(vigil_timer_stop(loop, &guard), 0);
    CHECK_EQ(vigil_timer_start(loop, &rt, CLOCK_REALTIME, real_deadline, 0, VIGIL_TIMER_ABS, real_cb), 0);
    while (real_fired < 3)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);

    /* ... and a deadline the timerfd already holds is re-armed when the clock jumps: a
     * REALTIME timer an hour and 20 ms away is armed (the turn that waits for the jump
     * timer, 1 ms), the clock jumps an hour ahead, and the timer fires 20 ms later
     * through the timerfd, not an hour later (the 5 s guard would stop the loop first) */
    real_deadline = tt_now(CLOCK_REALTIME) + hour + 20 * TT_MS;
    CHECK_EQ(vigil_timer_start(loop, &rt, CLOCK_REALTIME, real_deadline, 0, VIGIL_TIMER_ABS, real_cb), 0);
    jump.data = (void *)(intptr_t)hour;
    CHECK_EQ(vigil_timer_start(loop, &jump, CLOCK_MONOTONIC, TT_MS, 0, 0, jump_cb), 0);
    guard_fired = 0;
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, 5000 * TT_MS, 0, 0, guard_cb), 0);
    while (real_fired < 4 && !guard_fired)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(real_fired, 4);
    CHECK_EQ(guard_fired, 0);
    CHECK_EQ(mono_fired, 0);
    /* the library did read and arm through the shifted clock (else this test tests
     * nothing: a link that bypassed the definitions above, say) */
    CHECK(shifted_reads > 0);
    CHECK(shifted_arms > 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
