/* RUN_ONCE whose first pass fires the last active timer returns instead of waiting for
 * nothing; a RUN_ONCE with nothing active and no on_wakeup returns at once. (A hang is
 * caught by the test's timeout.) */
#include "vt.h"

#include <time.h>
#include <unistd.h>

static int fired;
static void on_timer(vigil_loop *l, vigil_timer *t) { (void)l; (void)t; fired++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_timer t = {0};
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 1000000, 0, 0, on_timer), 0);
    usleep(5000); /* due before the turn starts: its first pass fires it */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0);
    CHECK_EQ(fired, 1);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0); /* nothing active: no wait */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
