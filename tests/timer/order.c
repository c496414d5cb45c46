/* Timers with equal deadlines fire in start order; different deadlines in deadline
 * order whatever the start order. */
#include "tt.h"

#define N 64
static int seen[2 * N], nseen;

static void cb(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    seen[nseen++] = (int)(intptr_t)t->data;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_timer tie[N], spread[N];
    memset(tie, 0, sizeof tie);
    memset(spread, 0, sizeof spread);
    int64_t base = tt_now(CLOCK_MONOTONIC) + 2 * TT_MS;
    /* interleave: spread timers (deadlines base+1us .. base+N us, started in reverse
     * order) and tie timers (all at base), started in index order */
    for (int i = 0; i < N; i++) {
        tie[i].data = (void *)(intptr_t)i;
        CHECK_EQ(vigil_timer_start(loop, &tie[i], CLOCK_MONOTONIC, base, 0, VIGIL_TIMER_ABS, cb), 0);
        int j = N - 1 - i;
        spread[j].data = (void *)(intptr_t)(N + j);
        CHECK_EQ(vigil_timer_start(loop, &spread[j], CLOCK_MONOTONIC, base + (j + 1) * TT_US, 0, VIGIL_TIMER_ABS, cb), 0);
    }
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(nseen, 2 * N);
    for (int i = 0; i < 2 * N; i++)
        CHECK_EQ(seen[i], i);

    /* Same on the timerfd clocks, and a deadline already past. */
    for (int c = 0; c < 2; c++) {
        clockid_t clk = c ? CLOCK_REALTIME : CLOCK_BOOTTIME;
        nseen = 0;
        int64_t d = tt_now(clk) + (c ? -5 * TT_MS : TT_MS);
        for (int i = 0; i < N; i++)
            CHECK_EQ(vigil_timer_start(loop, &tie[i], clk, d, 0, VIGIL_TIMER_ABS, cb), 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
        CHECK_EQ(nseen, N);
        for (int i = 0; i < N; i++)
            CHECK_EQ(seen[i], i);
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
