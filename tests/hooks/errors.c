/* Bad input to the hook calls gets a clear error, and starting or stopping a hook
 * allocates nothing after the loop's first: every kind started twice (-EBUSY, also on
 * another loop), NULL loop, hook or callback (-EINVAL), a stop of a stopped hook (0),
 * active on NULL (0). */
#include "vt.h"
#include "alloc_count.h"

static void on_p(vigil_loop *l, vigil_prepare *w) { (void)l, (void)w; }
static void on_c(vigil_loop *l, vigil_check *w) { (void)l, (void)w; }
static void on_i(vigil_loop *l, vigil_idle *w) { (void)l, (void)w; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_loop *other = vt_loop();
    vigil_prepare p = {0};
    vigil_check c = {0};
    vigil_idle i = {0};

    CHECK_EQ(vigil_prepare_start(NULL, &p, on_p), -EINVAL);
    CHECK_EQ(vigil_prepare_start(loop, NULL, on_p), -EINVAL);
    CHECK_EQ(vigil_prepare_start(loop, &p, NULL), -EINVAL);
    CHECK_EQ(vigil_check_start(NULL, &c, on_c), -EINVAL);
    CHECK_EQ(vigil_check_start(loop, NULL, on_c), -EINVAL);
    CHECK_EQ(vigil_check_start(loop, &c, NULL), -EINVAL);
    CHECK_EQ(vigil_idle_start(NULL, &i, on_i), -EINVAL);
    CHECK_EQ(vigil_idle_start(loop, NULL, on_i), -EINVAL);
    CHECK_EQ(vigil_idle_start(loop, &i, NULL), -EINVAL);
    CHECK_EQ(vigil_prepare_active(&p) + vigil_check_active(&c) + vigil_idle_active(&i), 0);
    CHECK_EQ(vigil_prepare_active(NULL) + vigil_check_active(NULL) + vigil_idle_active(NULL), 0);

    /* Stopping what never started is 0; NULL is -EINVAL. */
    CHECK_EQ(vigil_prepare_stop(loop, &p), 0);
    CHECK_EQ(vigil_check_stop(loop, &c), 0);
    CHECK_EQ(vigil_idle_stop(loop, &i), 0);
    CHECK_EQ(vigil_prepare_stop(NULL, &p), -EINVAL);
    CHECK_EQ(vigil_check_stop(loop, NULL), -EINVAL);
    CHECK_EQ(vigil_idle_stop(NULL, NULL), -EINVAL);

    /* Started twice: -EBUSY, on this loop or another, and it stays started once. */
    CHECK_EQ(vigil_prepare_start(loop, &p, on_p), 0);
    CHECK_EQ(vigil_check_start(loop, &c, on_c), 0);
    CHECK_EQ(vigil_idle_start(loop, &i, on_i), 0);
    CHECK_EQ(vigil_prepare_start(loop, &p, on_p), -EBUSY);
    CHECK_EQ(vigil_check_start(loop, &c, on_c), -EBUSY);
    CHECK_EQ(vigil_idle_start(loop, &i, on_i), -EBUSY);
    CHECK_EQ(vigil_prepare_start(other, &p, on_p), -EBUSY);
    CHECK_EQ(vigil_prepare_active(&p) + vigil_check_active(&c) + vigil_idle_active(&i), 3);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(vigil_prepare_stop(loop, &p), 0);
    CHECK_EQ(vigil_prepare_stop(loop, &p), 0);
    CHECK_EQ(vigil_check_stop(loop, &c), 0);
    CHECK_EQ(vigil_idle_stop(loop, &i), 0);
    CHECK_EQ(vigil_prepare_active(&p) + vigil_check_active(&c) + vigil_idle_active(&i), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0); /* nothing active any more */

    /* After the first hook, starting and stopping (and turns with hooks) allocate
     * nothing. */
    vt_alloc_count_start();
    long before = vt_alloc_count();
    for (int k = 0; k < 1000; k++) {
        CHECK_EQ(vigil_prepare_start(loop, &p, on_p), 0);
        CHECK_EQ(vigil_check_start(loop, &c, on_c), 0);
        CHECK_EQ(vigil_idle_start(loop, &i, on_i), 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
        CHECK_EQ(vigil_idle_stop(loop, &i), 0);
        CHECK_EQ(vigil_check_stop(loop, &c), 0);
        CHECK_EQ(vigil_prepare_stop(loop, &p), 0);
    }
    long allocs = vt_alloc_count() - before;
    if (allocs) {
        fprintf(stderr, "%ld allocations in 1000 hook start/stop rounds\n", allocs);
        return 1;
    }
    printf("hooks errors: pass (%s)\n", vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(other), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
