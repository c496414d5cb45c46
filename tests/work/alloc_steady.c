/* No allocation per job: after a warm-up that starts the pool's threads, 20,000 jobs
 * kept 64 in flight by their callbacks (submitted in batches at the drain's end)
 * allocate and free nothing, in any thread (the counter is process-wide). Growth is
 * kept out of the steady state: max_threads = threads, detection off. */
#include "wk.h"

#include "alloc_count.h"

#define INFLIGHT 64
#define WARM 2000
#define TOTAL 22000

static long ncb, nsub;
static long before = -1;

static void fn(vigil_work *w)
{
    (void)w;
}

static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    CHECK_EQ(status, 0);
    ncb++;
    if (ncb == WARM) {
        vt_alloc_count_start();
        before = vt_alloc_count();
    }
    if (nsub < TOTAL) {
        nsub++;
        CHECK_EQ(vigil_work_submit(loop, w, fn, cb, 0), 0);
    }
}

int main(void)
{
    vigil_loop *loop = wk_loop(4, 4, -1);
    static vigil_work jobs[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++, nsub++)
        CHECK_EQ(vigil_work_submit(loop, &jobs[i], fn, cb, 0), 0);
    wk_run_until(loop, &ncb, TOTAL);
    long allocs = vt_alloc_count() - before;
    printf("%ld jobs after warm-up on %s: %ld allocations or frees\n", (long)(TOTAL - WARM), vigil_loop_backend(loop),
           allocs);
    CHECK(before >= 0);
    CHECK_EQ(allocs, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
