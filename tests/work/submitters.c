/* Many submitters, all in the loop thread, fed by the pool's threads: a repeating
 * timer's callback submits jobs whose fn writes an eventfd; the eventfd's watcher
 * submits a job per count read, whose fn calls vigil_loop_wakeup; on_wakeup submits
 * jobs that wake the loop again; each of those jobs' completion callback submits one
 * more. 1000 jobs from each of the four submitters; every job runs once and completes
 * once, with status 0, and each submitter's count is exact. */
#include "wk.h"

#include <sys/eventfd.h>

#define PER 1000
enum { TIMER, IO, WAKE, CHAIN, KINDS };

struct job {
    vigil_work w;
    int kind;
    int cbs;
};

static struct job jobs[KINDS * PER];
static atomic_int ran[KINDS * PER];
static int used, submitted[KINDS], completed[KINDS];
static long ncompleted;
static int efd;
static vigil_loop *the_loop;

static void fn(vigil_work *w)
{
    struct job *j = w->data;
    atomic_fetch_add(&ran[j - jobs], 1);
    if (j->kind == TIMER) {
        uint64_t one = 1;
        CHECK(write(efd, &one, sizeof one) == sizeof one);
    } else if (j->kind == IO || j->kind == WAKE) {
        CHECK_EQ(vigil_loop_wakeup(the_loop), 0);
    }
}

static void cb(vigil_loop *loop, vigil_work *w, int status);

static void submit(vigil_loop *loop, int kind)
{
    CHECK(submitted[kind] < PER && used < KINDS * PER);
    struct job *j = &jobs[used++];
    j->w.data = j;
    j->kind = kind;
    submitted[kind]++;
    CHECK_EQ(vigil_work_submit(loop, &j->w, fn, cb, 0), 0);
}

static void cb(vigil_loop *loop, vigil_work *w, int status)
{
    struct job *j = w->data;
    CHECK_EQ(status, 0);
    CHECK_EQ(atomic_load(&ran[j - jobs]), 1);
    j->cbs++;
    completed[j->kind]++;
    ncompleted++;
    if (j->kind == WAKE && submitted[CHAIN] < PER)
        submit(loop, CHAIN);
}

static void on_timer(vigil_loop *loop, vigil_timer *t)
{
    for (int k = 0; k < 25 && submitted[TIMER] < PER; k++)
        submit(loop, TIMER);
    if (submitted[TIMER] == PER)
        CHECK_EQ(vigil_timer_stop(loop, t), 0);
}

static void on_efd(vigil_loop *loop, vigil_io *w, int ev)
{
    CHECK(ev & VIGIL_READ);
    uint64_t v;
    if (read(w->fd, &v, sizeof v) != sizeof v)
        return;
    for (uint64_t k = 0; k < v; k++)
        submit(loop, IO);
}

static void on_wakeup(vigil_loop *loop, void *data)
{
    (void)data;
    for (int k = 0; k < 5 && submitted[WAKE] < PER; k++)
        submit(loop, WAKE);
}

int main(void)
{
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.on_wakeup = on_wakeup;
    vigil_loop *loop = the_loop = vt_loop_opts(&o);
    CHECK_EQ(vigil_work_setup(loop, NULL), 0);
    efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    CHECK_SYS(efd);
    vigil_io io = {0};
    CHECK_EQ(vigil_io_start(loop, &io, efd, VIGIL_READ, on_efd), 0);
    vigil_timer t = {0};
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 1000000, 1000000, 0, on_timer), 0);
    wk_run_until(loop, &ncompleted, KINDS * PER);
    for (int k = 0; k < KINDS; k++) {
        CHECK_EQ(submitted[k], PER);
        CHECK_EQ(completed[k], PER);
    }
    for (int i = 0; i < KINDS * PER; i++) {
        CHECK_EQ(jobs[i].cbs, 1);
        CHECK_EQ(atomic_load(&ran[i]), 1);
    }
    CHECK_EQ(vigil_io_stop(loop, &io), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(efd);
    return 0;
}
