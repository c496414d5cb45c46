/* Every job's fn runs once and its cb runs once, with status 0, after fn (what fn wrote
 * is seen by cb: the done stack's release/acquire, checked by TSan in make test); 20000
 * jobs kept 100 in flight by their own callbacks, then counters and stats agree. */
#include "wk.h"

#define N 20000
#define INFLIGHT 100

struct job {
    vigil_work w;
    long id;
    long out; /* written by fn, read by cb */
};

static atomic_int ran[N];
static int done[N];
static long next_id, ncompleted;

static void fn(vigil_work *w)
{
    struct job *j = w->data;
    atomic_fetch_add(&ran[j->id], 1);
    j->out = j->id * 3 + 1;
}

static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    struct job *j = w->data;
    CHECK_EQ(status, 0);
    CHECK(!vigil_work_active(w));
    CHECK_EQ(atomic_load(&ran[j->id]), 1);
    CHECK_EQ(j->out, j->id * 3 + 1);
    done[j->id]++;
    ncompleted++;
    if (next_id < N) {
        j->id = next_id++;
        j->out = 0;
        CHECK_EQ(vigil_work_submit(loop, w, fn, cb, 0), 0);
        CHECK(vigil_work_active(w));
    }
}

int main(void)
{
    vigil_loop *loop = wk_loop(0, 0, 0);
    static struct job jobs[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++) {
        jobs[i].w.data = &jobs[i];
        jobs[i].id = next_id++;
        CHECK_EQ(vigil_work_submit(loop, &jobs[i].w, fn, cb, 0), 0);
    }
    struct vigil_work_stats st;
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.inflight, INFLIGHT);
    wk_run_until(loop, &ncompleted, N);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(atomic_load(&ran[i]), 1);
        CHECK_EQ(done[i], 1);
    }
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.inflight, 0);
    CHECK_EQ(st.jobs, N);
    CHECK_EQ(st.cancelled, 0);
    CHECK_EQ(st.queued, 0);
    CHECK(st.threads >= 1);
    /* Completions come in batches: far fewer doorbell writes than jobs is the design,
     * but the count depends on timing: only its bound is checked. */
    CHECK(st.wakeups <= N);
    /* Nothing in flight: RUN_DEFAULT returns at once. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
