/* No allocation per job: 5000-job windows of jobs kept 64 in flight by their callbacks
 * (submitted in batches at the drain's end) allocate and free nothing, in any thread
 * (the counter is process-wide). Threads start on demand, and starting one allocates
 * (its TLS, the sanitizer's records): a window in which the pool grew is not steady
 * and is measured again (the pool the same size through it and the window before; up to 20 windows; at least
 * one must be steady and allocate nothing; none may allocate per job). Growth past
 * `threads` is off: max_threads = threads, detection off. */
#include "wk.h"

#include "alloc_count.h"

#define INFLIGHT 64
#define WINDOW 5000
#define WINDOWS 20

static long ncb;
static int stop;

static void fn(vigil_work *w)
{
    (void)w;
}

static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    CHECK_EQ(status, 0);
    ncb++;
    if (!stop)
        CHECK_EQ(vigil_work_submit(loop, w, fn, cb, 0), 0);
}

int main(void)
{
    vigil_loop *loop = wk_loop(4, 4, -1);
    static vigil_work jobs[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++)
        CHECK_EQ(vigil_work_submit(loop, &jobs[i], fn, cb, 0), 0);
    wk_run_until(loop, &ncb, 2000); /* warm-up */
    vt_alloc_count_start();
    int steady = 0;
    uint32_t before_prev = 0; /* threads at the start of the previous window */
    for (int k = 0; k < WINDOWS && !steady; k++) {
        struct vigil_work_stats s0, s1;
        CHECK_EQ(vigil_work_stats_get(loop, &s0), 0);
        long before = vt_alloc_count();
        wk_run_until(loop, &ncb, ncb + WINDOW);
        long allocs = vt_alloc_count() - before;
        CHECK_EQ(vigil_work_stats_get(loop, &s1), 0);
        uint32_t prev = before_prev;
        before_prev = s0.threads;
        /* The pool grew in this window or the one before (a new thread's start-up runs
         * on its own time, after pthread_create returned): measure again. */
        if (s1.threads != s0.threads || prev != s0.threads)
            continue;
        printf("%d jobs on %s with %u threads: %ld allocations or frees\n", WINDOW, vigil_loop_backend(loop),
               s1.threads, allocs);
        /* One allocation per job would be 5000 here. A few can come from a queue of the
         * loop growing once to a larger batch than any before (seen once under a loaded
         * clang/ASan run: 10); that window is measured again, and one must be clean. */
        CHECK(allocs < WINDOW / 100);
        steady = allocs == 0;
    }
    CHECK(steady);
    stop = 1;
    wk_run_until(loop, &ncb, ncb + INFLIGHT); /* the 64 in flight end, none cancelled */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
