/* Never early: 100,000 timer callbacks, each checked against a clock read the test
 * takes itself in the callback: it must be at or past the deadline the test asked for.
 * Six chains run at once (each callback restarts its timer with a pseudo-random delay
 * of 0-40 us, relative or absolute): MONOTONIC x3, BOOTTIME, REALTIME, and a precise
 * MONOTONIC chain. Only "not early" is asserted, never "on time". */
#include "tt.h"

#define TOTAL 100000
#define CHAINS 6

struct chain {
    vigil_timer t;
    clockid_t clk;
    uint32_t flags;
    int64_t deadline;
};

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static long fired, early;
static struct chain ch[CHAINS];

static void arm(vigil_loop *loop, struct chain *c);

static void cb(vigil_loop *loop, vigil_timer *t)
{
    struct chain *c = t->data;
    int64_t now = tt_now(c->clk);
    if (now < c->deadline) {
        early++;
        fprintf(stderr, "early by %lld ns on clock %d (flags %u)\n", (long long)(c->deadline - now), (int)c->clk,
                c->flags);
    }
    if (++fired >= TOTAL) {
        for (int i = 0; i < CHAINS; i++)
            vigil_timer_stop(loop, &ch[i].t);
        return;
    }
    arm(loop, c);
}

static void arm(vigil_loop *loop, struct chain *c)
{
    uint64_t r = tt_rand(&seed);
    int64_t delay = (int64_t)(r % 40000);
    bool abs = (r >> 32) & 1;
    uint32_t fl = c->flags | (abs ? VIGIL_TIMER_ABS : 0);
    if (abs) {
        c->deadline = tt_now(c->clk) + delay;
        CHECK_EQ(vigil_timer_start(loop, &c->t, c->clk, c->deadline, 0, fl, cb), 0);
    } else {
        /* the deadline the user meant: not before a clock read taken before the call */
        c->deadline = tt_now(c->clk) + delay;
        CHECK_EQ(vigil_timer_start(loop, &c->t, c->clk, delay, 0, fl, cb), 0);
    }
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    static const clockid_t clk[CHAINS] = {CLOCK_MONOTONIC, CLOCK_MONOTONIC, CLOCK_MONOTONIC,
                                          CLOCK_BOOTTIME,  CLOCK_REALTIME,  CLOCK_MONOTONIC};
    printf("seed %llu\n", (unsigned long long)seed);
    for (int i = 0; i < CHAINS; i++) {
        ch[i].clk = clk[i];
        ch[i].flags = i == CHAINS - 1 ? VIGIL_TIMER_PRECISE : 0;
        ch[i].t.data = &ch[i];
        arm(loop, &ch[i]);
    }
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK(fired >= TOTAL);
    CHECK_EQ(early, 0);
    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(loop, &st), 0);
    CHECK(st.late_p50_ns >= 0);
    printf("%ld wake-ups, none early; lateness p50 %lld p99 %lld max %lld ns (last 1024)\n", fired,
           (long long)st.late_p50_ns, (long long)st.late_p99_ns, (long long)st.late_max_ns);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
