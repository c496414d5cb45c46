/* BOOTTIME timers (the clock that counts suspend) fire through their timerfd, not before
 * their deadline on CLOCK_BOOTTIME, relative and absolute, while the loop has no other
 * timer to wake it; the timerfd is re-armed when the earliest deadline changes (a
 * nearer timer started while a far one waits). Suspend itself cannot be tested here. */
#include "tt.h"

static int64_t want[3];
static int fired[3];

static void cb(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    int i = (int)(intptr_t)t->data;
    CHECK(tt_now(CLOCK_BOOTTIME) >= want[i]);
    fired[i]++;
    if (i == 2)
        want[2] += 2 * TT_MS; /* repeating: the next round's deadline */
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_timer t[3];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 3; i++)
        t[i].data = (void *)(intptr_t)i;
    want[0] = tt_now(CLOCK_BOOTTIME) + 40 * TT_MS;
    CHECK_EQ(vigil_timer_start(loop, &t[0], CLOCK_BOOTTIME, 40 * TT_MS, 0, 0, cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* armed at +40 ms */
    want[1] = tt_now(CLOCK_BOOTTIME) + 5 * TT_MS;
    CHECK_EQ(vigil_timer_start(loop, &t[1], CLOCK_BOOTTIME, want[1], 0, VIGIL_TIMER_ABS, cb), 0);
    /* one turn: the re-armed timerfd wakes it for t[1] (t[0] is still 35 ms away unless
     * the machine stalled; both are fine, neither may be early) */
    while (!fired[1])
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    want[2] = tt_now(CLOCK_BOOTTIME) + 2 * TT_MS;
    CHECK_EQ(vigil_timer_start(loop, &t[2], CLOCK_BOOTTIME, 2 * TT_MS, 2 * TT_MS, 0, cb), 0);
    while (fired[2] < 3)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(vigil_timer_stop(loop, &t[2]), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(fired[0], 1);
    CHECK_EQ(fired[1], 1);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
