/* Order: with one thread and no blocked-worker detection, jobs run one at a time in
 * submission order and their callbacks run in that order, for jobs submitted at once
 * and for jobs submitted from callbacks (queued in one batch at the drain's end); on
 * the default pool, jobs of one lane still start in submission order when one thread
 * takes them (threads = 1, max_threads = 1). */
#include "wk.h"

#define N 3000

struct job {
    vigil_work w;
    int id;
};

static atomic_int started; /* fn's order */
static atomic_int running;
static int fn_seq[N];
static int cb_seq[N];
static long ncb;
static struct job jobs[N];

static void fn(vigil_work *w)
{
    struct job *j = w->data;
    CHECK_EQ(atomic_fetch_add(&running, 1), 0); /* one at a time */
    fn_seq[atomic_fetch_add(&started, 1)] = j->id;
    atomic_fetch_sub(&running, 1);
}

static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    struct job *j = w->data;
    CHECK_EQ(status, 0);
    cb_seq[ncb++] = j->id;
    (void)loop;
}

static int next_chain;
static void chain_cb(vigil_loop *loop, vigil_work *w, int status)
{
    cb(loop, w, status);
    /* Submits the next five from this callback, in order. */
    for (int k = 0; k < 5 && next_chain < N; k++, next_chain++)
        CHECK_EQ(vigil_work_submit(loop, &jobs[next_chain].w, fn, chain_cb, 0), 0);
}

int main(void)
{
    vigil_loop *loop = wk_loop(1, 1, -1);
    for (int i = 0; i < N; i++) {
        jobs[i].id = i;
        jobs[i].w.data = &jobs[i];
    }
    /* First half: submitted at once. */
    for (int i = 0; i < N / 2; i++)
        CHECK_EQ(vigil_work_submit(loop, &jobs[i].w, fn, cb, 0), 0);
    wk_run_until(loop, &ncb, N / 2);
    /* Second half: a chain, each callback submitting the next five. */
    next_chain = N / 2;
    CHECK_EQ(vigil_work_submit(loop, &jobs[next_chain++].w, fn, chain_cb, 0), 0);
    wk_run_until(loop, &ncb, N);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(fn_seq[i], i);
        CHECK_EQ(cb_seq[i], i);
    }
    struct vigil_work_stats st;
    CHECK_EQ(vigil_work_stats_get(loop, &st), 0);
    CHECK_EQ(st.threads, 1);
    CHECK_EQ(st.detected, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
