/* Callbacks may start and stop any timer, their own included: a timer stopped by an
 * earlier callback of the same pass never runs; a repeating timer that stops itself
 * runs no more; a one-shot may restart itself; a timer started from a callback with a
 * zero delay runs on a later pass, not recursively inside this one. */
#include "tt.h"

static vigil_timer a, b, c, self_rep, self_once, fresh;
static int na, nb, nc, nrep, nonce, nfresh, depth;

static void cb_b(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; nb++; }
static void cb_c(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; nc++; }

static void cb_fresh(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    (void)t;
    CHECK_EQ(depth, 0); /* not inside cb_a */
    nfresh++;
}

static void cb_a(vigil_loop *loop, vigil_timer *t)
{
    CHECK_EQ(t, &a);
    na++;
    depth++;
    CHECK_EQ(vigil_timer_stop(loop, &b), 0); /* same deadline, started after a: due now */
    CHECK(!vigil_timer_active(&b));
    CHECK_EQ(vigil_timer_stop(loop, &b), 0); /* stopping a stopped timer is fine */
    CHECK_EQ(vigil_timer_stop(loop, &c), 0); /* later deadline */
    CHECK_EQ(vigil_timer_start(loop, &fresh, CLOCK_MONOTONIC, 0, 0, 0, cb_fresh), 0);
    depth--;
}

static void cb_rep(vigil_loop *loop, vigil_timer *t)
{
    if (++nrep == 3)
        CHECK_EQ(vigil_timer_stop(loop, t), 0);
}

static void cb_once(vigil_loop *loop, vigil_timer *t)
{
    CHECK(!vigil_timer_active(t));
    if (++nonce < 4)
        CHECK_EQ(vigil_timer_start(loop, t, CLOCK_MONOTONIC, 100 * TT_US, 0, 0, cb_once), 0);
    else { /* a started repeating timer cannot be started again: -EBUSY, unchanged */
        int was = vigil_timer_active(&self_rep);
        int r = vigil_timer_start(loop, &self_rep, CLOCK_MONOTONIC, 0, 0, 0, cb_rep);
        CHECK_EQ(r, was ? -EBUSY : 0);
    }
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    int64_t d = tt_now(CLOCK_MONOTONIC) + TT_MS;
    CHECK_EQ(vigil_timer_start(loop, &a, CLOCK_MONOTONIC, d, 0, VIGIL_TIMER_ABS, cb_a), 0);
    CHECK_EQ(vigil_timer_start(loop, &b, CLOCK_MONOTONIC, d, 0, VIGIL_TIMER_ABS, cb_b), 0);
    CHECK_EQ(vigil_timer_start(loop, &c, CLOCK_MONOTONIC, d + TT_MS, 0, VIGIL_TIMER_ABS, cb_c), 0);
    CHECK_EQ(vigil_timer_start(loop, &self_rep, CLOCK_MONOTONIC, 200 * TT_US, 300 * TT_US, 0, cb_rep), 0);
    CHECK_EQ(vigil_timer_start(loop, &self_once, CLOCK_MONOTONIC, 100 * TT_US, 0, 0, cb_once), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(na, 1);
    CHECK_EQ(nb, 0);
    CHECK_EQ(nc, 0);
    CHECK_EQ(nfresh, 1);
    CHECK(nrep >= 3); /* cb_once may have restarted it after it stopped itself */
    CHECK_EQ(nonce, 4);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
