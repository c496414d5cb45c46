/* Bad input gets a negative errno and changes nothing: unknown clock, negative
 * interval, NULL callback, unknown flags (-EINVAL), a started timer started again
 * (-EBUSY, its deadline unchanged). */
#include "tt.h"

static int fired;
static void cb(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; fired++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_timer t = {0};
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_PROCESS_CPUTIME_ID, 0, 0, 0, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC_RAW, 0, 0, 0, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, (clockid_t)12345, 0, 0, 0, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, (clockid_t)-1, 0, 0, 0, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 0, -1, 0, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 0, INT64_MIN, 0, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 0, 0, 0, NULL), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 0, 0, 0x100, cb), -EINVAL);
    CHECK_EQ(vigil_timer_start(loop, NULL, CLOCK_MONOTONIC, 0, 0, 0, cb), -EINVAL);
    CHECK(!vigil_timer_active(&t));
    /* nothing was armed: DEFAULT has nothing to run */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(fired, 0);

    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 3600 * 1000 * TT_MS, 0, 0, cb), 0);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 0, 0, 0, cb), -EBUSY);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_REALTIME, 0, 0, 0, cb), -EBUSY);
    /* the -EBUSY starts did not move it to "now": a non-blocking turn fires nothing */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(fired, 0);
    CHECK_EQ(vigil_timer_stop(loop, &t), 0);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, TT_MS, 0, 0, cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(fired, 1);
    /* stop of a never-started or stopped timer is 0 */
    vigil_timer z = {0};
    CHECK_EQ(vigil_timer_stop(loop, &z), 0);
    CHECK_EQ(vigil_timer_stop(loop, &t), 0);
    CHECK_EQ(vigil_timer_stop(NULL, &t), -EINVAL);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
