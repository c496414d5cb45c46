/* work-queue, system "vigil": vigil_work_submit on the loop's pool at its defaults (4
 * runnable threads), on the backend VIGIL_BACKEND names. --mark-slow 1 submits the
 * mixed case's sleeping jobs with VIGIL_WORK_SLOW; without it the pool's watchdog has
 * to find them. */
#include "wq.h"

#include <vigil.h>

static vigil_loop *loop;
static vigil_work jobs[WQ_MAX + WQ_SLOW];
static struct wq the_q = {.system = "vigil"};
static char extra[64];

static void fn(vigil_work *w)
{
    wq_job_fn(the_q.is_slow[w - jobs]);
}

static void cb(vigil_loop *l, vigil_work *w, int status)
{
    (void)l;
    if (status != 0) {
        fprintf(stderr, "vigil: work completed with %d\n", status);
        exit(1);
    }
    wq_done(&the_q, (int)(w - jobs));
}

static void wq_sys_init(struct wq *q)
{
    int r = vigil_loop_new(&loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        exit(1);
    }
    snprintf(extra, sizeof extra, "\"backend\":\"%s\"", vigil_loop_backend(loop));
    q->extra = extra;
}

static void wq_sys_submit(struct wq *q, int slot, bool slow)
{
    int r = vigil_work_submit(loop, &jobs[slot], fn, cb, slow && q->mark_slow ? VIGIL_WORK_SLOW : 0);
    if (r < 0) {
        fprintf(stderr, "vigil_work_submit: %s\n", strerror(-r));
        exit(1);
    }
}

static void wq_sys_run_once(struct wq *q)
{
    (void)q;
    int r = vigil_loop_run(loop, VIGIL_RUN_ONCE);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_run: %s\n", strerror(-r));
        exit(1);
    }
}

static void wq_sys_fini(struct wq *q)
{
    struct vigil_work_stats st;
    if (vigil_work_stats_get(loop, &st) == 0)
        fprintf(stderr, "vigil: %u threads, %llu jobs, %llu doorbell writes, %llu found blocked\n", st.threads,
                (unsigned long long)st.jobs, (unsigned long long)st.wakeups, (unsigned long long)st.detected);
    (void)q;
    vigil_loop_free(loop);
}

int main(int argc, char **argv)
{
    return wq_main(argc, argv, &the_q);
}
