/* Cancel while queued vs while running. One thread, detection off: job A runs and is
 * held at a gate; B[0..9] wait behind it. Cancelling B[0..4] returns 0, their cb runs
 * later (never inside vigil_work_cancel) with -ECANCELED and their fn never runs;
 * cancelling A returns -EBUSY and A completes with 0; a second cancel, or a cancel of an
 * idle job, is -ENOENT. A job submitted from a callback (queued at the drain's end) and
 * cancelled in the same callback completes with -ECANCELED too; a cancelled job may be
 * submitted again from its own cb. */
#include "wk.h"

#define NB 10

struct job {
    vigil_work w;
    int id;
    int status; /* -1000: cb not run */
    int cbs;
};

static struct wk_gate gate = WK_GATE_INIT;
static atomic_int ran[NB + 3];
static long ncb;
static struct job a, b[NB], c, d;

static void fn_gate(vigil_work *w)
{
    struct job *j = w->data;
    atomic_fetch_add(&ran[j->id], 1);
    wk_gate_pass(&gate);
}

static void fn(vigil_work *w)
{
    struct job *j = w->data;
    atomic_fetch_add(&ran[j->id], 1);
}

static int resubmitted;
static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    struct job *j = w->data;
    j->status = status;
    j->cbs++;
    ncb++;
    /* A cancelled job submitted again from its own callback (once): it runs. */
    if (j == &b[0] && !resubmitted) {
        resubmitted = 1;
        CHECK_EQ(vigil_work_submit(loop, w, fn, cb, 0), 0);
    }
}

static void cb_c(vigil_loop *loop, vigil_work *w, int status)
{
    cb(loop, w, status);
    /* d, submitted from this callback, is still pending (queued at the drain's end):
     * cancel takes it back. */
    CHECK_EQ(vigil_work_submit(loop, &d.w, fn, cb, 0), 0);
    CHECK_EQ(vigil_work_cancel(loop, &d.w), 0);
    CHECK_EQ(vigil_work_cancel(loop, &d.w), -ENOENT);
}

int main(void)
{
    vigil_loop *loop = wk_loop(1, 1, -1);
    struct job *all[] = {&a, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &c, &d};
    for (int i = 0; i < NB + 3; i++) {
        all[i]->id = i;
        all[i]->w.data = all[i];
        all[i]->status = -1000;
    }
    CHECK_EQ(vigil_work_cancel(loop, &a.w), -ENOENT); /* idle */
    CHECK_EQ(vigil_work_submit(loop, &a.w, fn_gate, cb, 0), 0);
    for (int i = 0; i < NB; i++)
        CHECK_EQ(vigil_work_submit(loop, &b[i].w, fn, cb, 0), 0);
    wk_gate_wait_for(&gate, 1); /* A runs, on the only thread */
    CHECK_EQ(vigil_work_cancel(loop, &a.w), -EBUSY);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(vigil_work_cancel(loop, &b[i].w), 0);
    CHECK_EQ(vigil_work_cancel(loop, &b[0].w), -ENOENT);
    CHECK_EQ(ncb, 0); /* no callback inside cancel */
    for (int i = 0; i < 5; i++)
        CHECK(vigil_work_active(&b[i].w)); /* until its cb */
    /* The cancelled ones complete while A is still held. */
    wk_run_until(loop, &ncb, 5);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(b[i].cbs, 1);
        CHECK_EQ(b[i].status, -ECANCELED);
    }
    CHECK_EQ(a.cbs, 0);
    wk_gate_open(&gate);
    /* A, b[5..9], and b[0] again */
    wk_run_until(loop, &ncb, 5 + 1 + 5 + 1);
    CHECK_EQ(a.status, 0);
    CHECK_EQ(a.cbs, 1);
    for (int i = 1; i < 5; i++)
        CHECK_EQ(atomic_load(&ran[b[i].id]), 0);
    CHECK_EQ(atomic_load(&ran[b[0].id]), 1); /* only the resubmission ran */
    CHECK_EQ(b[0].cbs, 2);
    CHECK_EQ(b[0].status, 0);
    for (int i = 5; i < NB; i++) {
        CHECK_EQ(b[i].status, 0);
        CHECK_EQ(atomic_load(&ran[b[i].id]), 1);
    }
    /* Pending (submitted in a callback) then cancelled in it. */
    CHECK_EQ(vigil_work_submit(loop, &c.w, fn, cb_c, 0), 0);
    wk_run_until(loop, &ncb, 12 + 2);
    CHECK_EQ(c.status, 0);
    CHECK_EQ(d.status, -ECANCELED);
    CHECK_EQ(d.cbs, 1);
    CHECK_EQ(atomic_load(&ran[d.id]), 0);
    struct vigil_work_stats st;
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.cancelled, 5 + 1);
    CHECK_EQ(st.inflight, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
