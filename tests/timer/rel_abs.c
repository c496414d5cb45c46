/* Relative and absolute timers on each clock fire once, never before their deadline;
 * a zero or negative delay fires on the next pass; active() follows. */
#include "tt.h"

static const clockid_t clocks[3] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};

struct probe {
    vigil_timer t;
    clockid_t clk;
    int64_t deadline; /* as the test computed it */
    int fired;
};

static void cb(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    struct probe *p = t->data;
    int64_t now = tt_now(p->clk);
    if (now < p->deadline) {
        fprintf(stderr, "clock %d: fired %lld ns early\n", (int)p->clk, (long long)(p->deadline - now));
        exit(1);
    }
    CHECK(!vigil_timer_active(t));
    p->fired++;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    struct probe p[3][4];
    memset(p, 0, sizeof p);
    for (int c = 0; c < 3; c++) {
        clockid_t clk = clocks[c];
        for (int k = 0; k < 4; k++) {
            p[c][k].clk = clk;
            p[c][k].t.data = &p[c][k];
        }
        /* relative 3 ms: the deadline counts from a read taken before the start */
        p[c][0].deadline = tt_now(clk) + 3 * TT_MS;
        CHECK_EQ(vigil_timer_start(loop, &p[c][0].t, clk, 3 * TT_MS, 0, 0, cb), 0);
        /* absolute 2 ms from now */
        p[c][1].deadline = tt_now(clk) + 2 * TT_MS;
        CHECK_EQ(vigil_timer_start(loop, &p[c][1].t, clk, p[c][1].deadline, 0, VIGIL_TIMER_ABS, cb), 0);
        /* zero and negative relative delays: due at once */
        p[c][2].deadline = tt_now(clk);
        CHECK_EQ(vigil_timer_start(loop, &p[c][2].t, clk, 0, 0, 0, cb), 0);
        p[c][3].deadline = tt_now(clk) - TT_MS;
        CHECK_EQ(vigil_timer_start(loop, &p[c][3].t, clk, -TT_MS, 0, 0, cb), 0);
        for (int k = 0; k < 4; k++)
            CHECK(vigil_timer_active(&p[c][k].t));
    }
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 4; k++)
            CHECK_EQ(p[c][k].fired, 1);
    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(loop, &st), 0);
    CHECK_EQ(st.timer_wakeups, 12);
    CHECK(st.late_p50_ns >= 0 && st.late_max_ns >= st.late_p99_ns && st.late_p99_ns >= st.late_p50_ns);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
