/* vigil_loop_free with jobs in flight: job 0 runs, held at a gate another thread opens
 * only once vigil_loop_free has started; 199 more are queued or running, 10 of them
 * cancelled just before. vigil_loop_free waits for the running jobs (job 0's fn has
 * returned when it returns), every cb runs exactly once inside it -- status 0 exactly
 * for the jobs whose fn ran, -ECANCELED for the others -- and a submit from such a cb
 * is refused with -ECANCELED. ASan watches that nothing is touched after the free. */
#include "wk.h"

#define N 200

struct job {
    vigil_work w;
    int id;
};

static struct wk_gate gate = WK_GATE_INIT;
static struct job jobs[N], extra;
static atomic_int ran[N];
static atomic_int held_done;
static int cbs[N], statuses[N], refused, in_free;

static void fn(vigil_work *w)
{
    struct job *j = w->data;
    if (j->id == 0) {
        wk_gate_pass(&gate);
        atomic_store(&held_done, 1);
    }
    atomic_fetch_add(&ran[j->id], 1);
}

static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    struct job *j = w->data;
    CHECK(in_free);
    cbs[j->id]++;
    statuses[j->id] = status;
    if (j->id == 0)
        CHECK(atomic_load(&held_done));
    if (vigil_work_submit(loop, &extra.w, fn, cb, 0) == -ECANCELED)
        refused++;
}

static void *opener(void *arg)
{
    (void)arg;
    /* Opens the gate a little after the loop thread went into vigil_loop_free (it
     * cannot tell exactly when: if it opens early, the test checks the same counts). */
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    wk_gate_open(&gate);
    return NULL;
}

int main(void)
{
    vigil_loop *loop = wk_loop(2, 0, 0);
    for (int i = 0; i < N; i++) {
        jobs[i].id = i;
        jobs[i].w.data = &jobs[i];
        CHECK_EQ(vigil_work_submit(loop, &jobs[i].w, fn, cb, 0), 0);
    }
    extra.id = 0;
    wk_gate_wait_for(&gate, 1);
    int cancelled = 0;
    for (int i = N - 10; i < N; i++)
        cancelled += vigil_work_cancel(loop, &jobs[i].w) == 0;
    struct vigil_work_stats st;
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.inflight, N);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, opener, NULL), 0);
    in_free = 1;
    CHECK_EQ(vigil_loop_free(loop), 0);
    in_free = 0;
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK(atomic_load(&held_done));
    int zero = 0, canc = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ(cbs[i], 1);
        int r = atomic_load(&ran[i]);
        CHECK(r == 0 || r == 1);
        CHECK_EQ(statuses[i], r ? 0 : -ECANCELED);
        zero += r;
        canc += !r;
    }
    CHECK_EQ(statuses[0], 0);
    CHECK(canc >= cancelled);
    CHECK_EQ(zero + canc, N);
    CHECK_EQ(refused, N);
    printf("ran %d, cancelled %d (%d by vigil_work_cancel)\n", zero, canc, cancelled);
    return 0;
}
