/* A started hook keeps vigil_loop_run(DEFAULT) going, as libuv's idle, prepare and
 * check handles do; the run ends once the last one stops. A hook cannot end a wait:
 * a loop whose only active watchers are hooks does not sleep (it would never wake:
 * alarm() fails the test), unless the loop has an on_wakeup callback that a
 * vigil_loop_wakeup() could run -- then each turn waits for one (counted in the loop's
 * statistics: no timing). */
#include "vt.h"

static int calls;

static void on_prepare(vigil_loop *l, vigil_prepare *w)
{
    if (++calls == 5)
        CHECK_EQ(vigil_prepare_stop(l, w), 0);
}
static void on_check(vigil_loop *l, vigil_check *w)
{
    if (++calls == 5)
        CHECK_EQ(vigil_check_stop(l, w), 0);
}
static void on_idle(vigil_loop *l, vigil_idle *w)
{
    if (++calls == 5)
        CHECK_EQ(vigil_idle_stop(l, w), 0);
}
/* With an on_wakeup: each turn wakes itself before its wait. */
static void prepare_wake(vigil_loop *l, vigil_prepare *w)
{
    CHECK_EQ(vigil_loop_wakeup(l), 0);
    if (++calls == 5)
        CHECK_EQ(vigil_prepare_stop(l, w), 0);
}
static int wakeups;
static void on_wakeup(vigil_loop *l, void *data)
{
    (void)l, (void)data;
    wakeups++;
}

static uint64_t waits(vigil_loop *l)
{
    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(l, &st), 0);
    return st.waits;
}

int main(void)
{
    alarm(20);
    for (int kind = 0; kind < 3; kind++) {
        vigil_loop *loop = vt_loop();
        vigil_prepare p = {0};
        vigil_check c = {0};
        vigil_idle i = {0};
        calls = 0;
        int r = kind == 0 ? vigil_prepare_start(loop, &p, on_prepare)
                : kind == 1 ? vigil_check_start(loop, &c, on_check)
                            : vigil_idle_start(loop, &i, on_idle);
        CHECK_EQ(r, 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1); /* still active */
        CHECK_EQ(calls, 1);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0); /* until the hook stopped */
        CHECK_EQ(calls, 5);
        CHECK_EQ(waits(loop), 0); /* hooks alone: no turn slept */
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0);
        CHECK_EQ(calls, 5);
        CHECK_EQ(vigil_loop_free(loop), 0);
    }

    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.on_wakeup = on_wakeup;
    vigil_loop *loop = vt_loop_opts(&o);
    vigil_prepare p = {0};
    calls = 0;
    CHECK_EQ(vigil_prepare_start(loop, &p, prepare_wake), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(calls, 5);
    CHECK_EQ(wakeups, 5);
    CHECK_EQ(waits(loop), 5); /* each turn waited, for its wakeup */
    printf("hooks alive: pass (%s)\n", vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
