/* Precise mode is never early either: 3,000 wake-ups of VIGIL_TIMER_PRECISE timers on
 * the three clocks, then 1,000 on a VIGIL_LOOP_PRECISE loop with ordinary timers; the
 * stats count them, report a margin within the CPU budget and account the spin. A
 * non-blocking turn never spins for a precise timer. */
#include "tt.h"

static const clockid_t clocks[3] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};
static int64_t deadline;
static clockid_t clk;
static long fired, target;
static uint32_t flags;
static uint64_t seed = 88172645463325252ull;

static void cb(vigil_loop *loop, vigil_timer *t)
{
    int64_t now = tt_now(clk);
    if (now < deadline) {
        fprintf(stderr, "precise timer early by %lld ns\n", (long long)(deadline - now));
        exit(1);
    }
    if (++fired >= target)
        return;
    clk = clocks[fired % 3];
    int64_t delay = (int64_t)(tt_rand(&seed) % 300000); /* 0-300 us */
    deadline = tt_now(clk) + delay;
    CHECK_EQ(vigil_timer_start(loop, t, clk, delay, 0, flags, cb), 0);
}

static void run(vigil_loop *loop, long n, uint32_t fl)
{
    vigil_timer t = {0};
    fired = 0;
    target = n;
    flags = fl;
    clk = CLOCK_MONOTONIC;
    deadline = tt_now(clk) + 100 * TT_US;
    CHECK_EQ(vigil_timer_start(loop, &t, clk, 100 * TT_US, 0, fl, cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(fired, n);
}

static void check_stats(vigil_loop *loop, long n, int64_t budget)
{
    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(loop, &st), 0);
    CHECK_EQ(st.precise_wakeups, n);
    CHECK_EQ(st.timer_wakeups, n);
    CHECK(st.precise_margin_ns > 0 && st.precise_margin_ns <= budget);
    CHECK(st.late_p50_ns >= 0);
    printf("precise: %ld wake-ups, lateness p50 %lld p99 %lld max %lld ns, margin %lld ns, spin %.1f us/wake-up\n",
           n, (long long)st.late_p50_ns, (long long)st.late_p99_ns, (long long)st.late_max_ns,
           (long long)st.precise_margin_ns, (double)st.precise_spin_ns / 1000.0 / (double)n);
}

static int polled;
static void poll_cb(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; polled++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    /* RUN_NOWAIT never sleeps and never spins either: a precise timer 20 us away is
     * fired by a later non-blocking turn, with no CPU spent spinning for it */
    vigil_timer p = {0};
    int64_t d = tt_now(CLOCK_MONOTONIC) + 20 * TT_US;
    CHECK_EQ(vigil_timer_start(loop, &p, CLOCK_MONOTONIC, d, 0, VIGIL_TIMER_ABS | VIGIL_TIMER_PRECISE, poll_cb), 0);
    while (!polled)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK(tt_now(CLOCK_MONOTONIC) >= d);
    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(loop, &st), 0);
    CHECK_EQ(st.precise_spin_ns, 0);
    CHECK_EQ(st.precise_wakeups, 1);
    CHECK_EQ(vigil_loop_free(loop), 0);

    loop = vt_loop();
    run(loop, 3000, VIGIL_TIMER_PRECISE);
    check_stats(loop, 3000, 200000);
    CHECK_EQ(vigil_loop_free(loop), 0);

    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.flags = VIGIL_LOOP_PRECISE;
    o.precise_budget_ns = 50000;
    loop = vt_loop_opts(&o);
    run(loop, 1000, 0);
    check_stats(loop, 1000, 50000);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
