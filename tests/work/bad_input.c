/* Bad input gets a clear error: NULL loop, job, fn or cb, unknown flags (-EINVAL); a job
 * already in flight (-EBUSY); cancel of a job never submitted or on a loop without a
 * pool (-ENOENT); bad options and a second set-up (-EINVAL, -EBUSY); stats of a loop
 * without a pool are zero. */
#include "wk.h"

static void fn(vigil_work *w)
{
    (void)w;
}
static long ncb;
static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    (void)loop;
    (void)w;
    CHECK_EQ(status, 0);
    ncb++;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_work w = {0};
    struct vigil_work_stats st;
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.threads, 0);
    CHECK_EQ(st.inflight, 0);
    CHECK_EQ(vigil_work_stats_get(NULL, &st), -EINVAL);
    CHECK_EQ(vigil_work_stats_get(loop, NULL), -EINVAL);
    CHECK_EQ(vigil_work_cancel(loop, &w), -ENOENT);
    CHECK_EQ(vigil_work_cancel(NULL, &w), -EINVAL);
    CHECK_EQ(vigil_work_cancel(loop, NULL), -EINVAL);
    CHECK_EQ(vigil_work_active(NULL), 0);
    CHECK_EQ(vigil_work_active(&w), 0);

    struct vigil_work_options o;
    vigil_work_options_init(&o);
    CHECK_EQ(vigil_work_setup(NULL, &o), -EINVAL);
    o.threads = -1;
    CHECK_EQ(vigil_work_setup(loop, &o), -EINVAL);
    vigil_work_options_init(&o);
    o.threads = 8;
    o.max_threads = 4;
    CHECK_EQ(vigil_work_setup(loop, &o), -EINVAL);
    vigil_work_options_init(&o);
    o.threads = 2000;
    CHECK_EQ(vigil_work_setup(loop, &o), -EINVAL);
    vigil_work_options_init(&o);
    o.flags = 1;
    CHECK_EQ(vigil_work_setup(loop, &o), -EINVAL);
    vigil_work_options_init(&o);
    o.reserved[0] = 1;
    CHECK_EQ(vigil_work_setup(loop, &o), -EINVAL);
    vigil_work_options_init(&o);
    o.size = 4;
    CHECK_EQ(vigil_work_setup(loop, &o), -EINVAL);

    CHECK_EQ(vigil_work_submit(NULL, &w, fn, cb, 0), -EINVAL);
    CHECK_EQ(vigil_work_submit(loop, NULL, fn, cb, 0), -EINVAL);
    CHECK_EQ(vigil_work_submit(loop, &w, NULL, cb, 0), -EINVAL);
    CHECK_EQ(vigil_work_submit(loop, &w, fn, NULL, 0), -EINVAL);
    CHECK_EQ(vigil_work_submit(loop, &w, fn, cb, 0x100), -EINVAL);
    CHECK_EQ(vigil_work_active(&w), 0);
    /* The first submit sets up the defaults. */
    CHECK_EQ(vigil_work_submit(loop, &w, fn, cb, 0), 0);
    CHECK_EQ(vigil_work_submit(loop, &w, fn, cb, 0), -EBUSY);
    CHECK_EQ(vigil_work_setup(loop, NULL), -EBUSY);
    CHECK_EQ(vigil_work_active(&w), 1);
    wk_run_until(loop, &ncb, 1);
    CHECK_EQ(vigil_work_active(&w), 0);
    CHECK_EQ(vigil_work_cancel(loop, &w), -ENOENT);
    /* Reusable after its cb. */
    CHECK_EQ(vigil_work_submit(loop, &w, fn, cb, VIGIL_WORK_SLOW), 0);
    wk_run_until(loop, &ncb, 2);
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.jobs, 2);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
