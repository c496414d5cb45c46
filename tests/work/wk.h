/* Helpers for the work queue tests: a loop on the backend VIGIL_BACKEND names with its
 * pool set up, and a bounded run. No test asserts a duration: a bound only turns a hang
 * (work that never completes) into a failure with a message. */
#ifndef VIGIL_WK_H
#define VIGIL_WK_H

#include "vt.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* threads, max_threads, block_ns: as struct vigil_work_options (0: defaults). */
static inline vigil_loop *wk_loop(int threads, int max_threads, int64_t block_ns)
{
    vigil_loop *loop = vt_loop();
    struct vigil_work_options o;
    vigil_work_options_init(&o);
    o.threads = threads;
    o.max_threads = max_threads;
    o.block_ns = block_ns;
    CHECK_EQ(vigil_work_setup(loop, &o), 0);
    return loop;
}

static void wk_hung(int sig)
{
    (void)sig;
    static const char msg[] = "work test: no progress for 100 s (a job never completed?)\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(1);
}

/* Runs turns until *count reaches want; a run with no end fails after 100 s. */
static inline void wk_run_until(vigil_loop *loop, const long *count, long want)
{
    signal(SIGALRM, wk_hung);
    alarm(100);
    while (*(const volatile long *)count < want)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    alarm(0);
}

/* A gate the test holds jobs on: jobs wait in wk_gate_pass until wk_gate_open. */
struct wk_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
    int waiting; /* jobs inside wk_gate_pass */
};
#define WK_GATE_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0}

static inline void wk_gate_pass(struct wk_gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->waiting++;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    g->waiting--;
    pthread_mutex_unlock(&g->mu);
}

static inline void wk_gate_open(struct wk_gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Waits (from the loop thread, which runs no turn meanwhile) until n jobs wait at g. */
static inline void wk_gate_wait_for(struct wk_gate *g, int n)
{
    signal(SIGALRM, wk_hung);
    alarm(100);
    pthread_mutex_lock(&g->mu);
    while (g->waiting < n)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    alarm(0);
}

#endif
