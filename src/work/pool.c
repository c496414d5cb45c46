/* The work queue, thread side: two lanes, the workers, and the watchdog.
 *
 * LOCKING: q->mu guards the lanes, each queued job's `taken`, the workers' states and
 * the counters under "under mu" in work_int.h. A worker takes one job per lock
 * acquisition (never a batch: a job taken with others behind a long one would wait for
 * it), runs it unlocked, pushes it on the lock-free done stack (front.c), then locks
 * again to count itself free and take the next. The loop thread locks once per publish
 * (a whole batch of jobs). Threads are created under mu (rare: the pool grows only);
 * condition signals are sent under mu.
 *
 * Budget: at most q->size workers are RUN (runnable, counted in nrun); a worker running
 * a slow-lane job, or found by the watchdog in an overlong one, is BLOCKED (nblocked,
 * at most q->maxb = max - size). A fast-lane job is taken only while nrun < size, a
 * slow-lane one only while nblocked < maxb; a worker whose job ends returns to the
 * budget it came from. So `size` workers stay for the fast lane whatever the slow work.
 *
 * The watchdog: while fast-lane jobs wait and every runnable slot is taken, one idle
 * worker (q->watch) waits on cv with a timeout of block_ns instead of for ever; at each
 * tick it compares each RUN worker's take counter (seq) with the one it saw at the
 * previous tick: unchanged means the same job has run for at least block_ns. Such a
 * worker is BLOCKED only if the kernel says its thread sleeps (state S or D in its
 * /proc stat): a job that computes, or a thread the scheduler preempted, would not
 * run any faster with more threads beside it. Without /proc (a sandbox), the elapsed
 * time alone decides. The freed runnable slot lets the next fast-lane job start.
 * Needing a watchdog and finding no idle worker makes one more thread (up to max).
 *
 * Workers block every signal: a signal meant for the loop's signalfd (or for the
 * program's own threads) must never be delivered to one of them.
 */
#include "work/work_int.h"
#include "sys/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int64_t mono_ns(void)
{
    return vigil__clock_ns(CLOCK_MONOTONIC);
}

int vigil__workq_pool_init(struct vigil__workq *q)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return -ENOMEM;
    /* The watchdog's timeout is a monotonic deadline: a wall-clock step must not
     * stretch or shorten it. */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int r = pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (r != 0)
        return -r;
    r = pthread_mutex_init(&q->mu, NULL);
    if (r != 0) {
        pthread_cond_destroy(&q->cv);
        return -r;
    }
    return 0;
}

/* ------------------------------------------------------------ under mu */

static bool need_watch(const struct vigil__workq *q)
{
    return q->block_ns > 0 && q->lane[VIGIL__LANE_FAST].n > 0 && q->nrun >= q->size && q->nblocked < q->maxb;
}

/* Jobs a free worker could take now, by the budgets. */
static int takeable(const struct vigil__workq *q)
{
    int fast = q->size - q->nrun, slow = q->maxb - q->nblocked;
    int nf = (int)q->lane[VIGIL__LANE_FAST].n, ns = (int)q->lane[VIGIL__LANE_SLOW].n;
    return (nf < fast ? nf : fast > 0 ? fast : 0) + (ns < slow ? ns : slow > 0 ? slow : 0);
}

static void *worker(void *arg);

/* Starts one worker (under mu). Signals are blocked around pthread_create so the new
 * thread starts with all of them blocked (a worker calling this has them blocked
 * already). */
static int start_thread(struct vigil__workq *q)
{
    if (q->nthreads >= q->max || q->stop)
        return -EAGAIN;
    struct vigil__wthr *t = &q->thr[q->nthreads];
    t->q = q;
    t->state = VIGIL__WTHR_IDLE;
    t->seq = t->seen = 0;
    t->stat_fd = -1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int r = pthread_create(&t->tid, NULL, worker, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0)
        return -r;
    q->nthreads++;
    /* Counted idle until it first runs its loop: kick() then does not start another
     * for the same job. It takes that job itself, or waits. */
    q->nidle++;
    q->nwake++;
    return 0;
}

/* Wakes idle workers for what can be taken now, starts threads when there are too few,
 * and makes sure a watchdog exists when one is needed. Under mu. */
static void kick(struct vigil__workq *q)
{
    int need = takeable(q) - q->nwake; /* signalled workers take some already */
    int avail = q->nidle - q->nwake;
    while (need > 0 && avail > 0) {
        pthread_cond_signal(&q->cv);
        q->nwake++;
        need--;
        avail--;
    }
    while (need > 0 && start_thread(q) == 0)
        need--;
    if (!q->watch && need_watch(q) && q->nwake == 0) {
        if (avail > 0) {
            /* An idle worker that finds nothing to take becomes the watchdog. */
            pthread_cond_signal(&q->cv);
            q->nwake++;
        } else {
            start_thread(q);
        }
    }
}

/* Asks the kernel whether t's thread sleeps (S, D: blocked in a system call or on a
 * lock) rather than runs or waits for a CPU (R). No /proc: assume it sleeps. */
static bool sleeping(const struct vigil__wthr *t)
{
    if (t->stat_fd < 0)
        return true;
    char buf[256];
    ssize_t n = pread(t->stat_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return true;
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name in parentheses may hold anything */
    if (!p || p[1] != ' ')
        return true;
    return p[2] != 'R';
}

/* The watchdog's tick: workers still on the job they had at the previous tick, whose
 * thread sleeps, count as blocked. Under mu. */
static void scan(struct vigil__workq *q)
{
    int64_t now = mono_ns();
    if (now - q->last_scan_ns < q->block_ns)
        return; /* woken early: ticks stay block_ns apart */
    q->last_scan_ns = now;
    for (int i = 0; i < q->nthreads; i++) {
        struct vigil__wthr *t = &q->thr[i];
        if (t->state == VIGIL__WTHR_RUN && t->seq == t->seen && q->nblocked < q->maxb && sleeping(t)) {
            t->state = VIGIL__WTHR_BLOCKED;
            q->nrun--;
            q->nblocked++;
            q->detected++;
        }
        t->seen = t->seq;
    }
}

static struct vigil__work *take(struct vigil__workq *q, struct vigil__wthr *me)
{
    struct vigil__work *w = NULL;
    if (q->lane[VIGIL__LANE_SLOW].n && q->nblocked < q->maxb) {
        w = vigil__wlist_pop(&q->lane[VIGIL__LANE_SLOW]);
        me->state = VIGIL__WTHR_BLOCKED;
        q->nblocked++;
    } else if (q->lane[VIGIL__LANE_FAST].n && q->nrun < q->size) {
        w = vigil__wlist_pop(&q->lane[VIGIL__LANE_FAST]);
        me->state = VIGIL__WTHR_RUN;
        q->nrun++;
    } else {
        return NULL;
    }
    w->taken = 1;
    me->seq++;
    return w;
}

/* ------------------------------------------------------------- workers */

static void *worker(void *arg)
{
    struct vigil__wthr *me = arg;
    struct vigil__workq *q = me->q;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)syscall(SYS_gettid));
    int sfd = open(path, O_RDONLY | O_CLOEXEC);
    pthread_mutex_lock(&q->mu);
    me->stat_fd = sfd;
    /* start_thread counted this thread idle and woken until it got here. */
    q->nidle--;
    if (q->nwake > 0)
        q->nwake--;
    for (;;) {
        struct vigil__work *w = take(q, me);
        if (w) {
            /* More can be taken (a slow job left its runnable slot free, or the queue
             * is long): wake or start the workers for it. */
            if (takeable(q) > q->nwake || (!q->watch && need_watch(q)))
                kick(q);
            pthread_mutex_unlock(&q->mu);
            w->fn(vigil__work_pub(w));
            w->status = 0;
            vigil__workq_done(q, w);
            pthread_mutex_lock(&q->mu);
            if (me->state == VIGIL__WTHR_BLOCKED)
                q->nblocked--;
            else
                q->nrun--;
            me->state = VIGIL__WTHR_IDLE;
            continue;
        }
        if (q->stop)
            break;
        if (!q->watch && need_watch(q)) {
            q->watch = true;
            int64_t due = q->last_scan_ns + q->block_ns, now = mono_ns();
            if (due < now)
                due = now; /* the first tick after a quiet time scans at once */
            struct timespec ts = vigil__ns_to_ts(due);
            q->nidle++;
            pthread_cond_timedwait(&q->cv, &q->mu, &ts);
            q->nidle--;
            if (q->nwake > 0)
                q->nwake--;
            q->watch = false;
            if (!q->stop)
                scan(q);
            continue;
        }
        q->nidle++;
        pthread_cond_wait(&q->cv, &q->mu);
        q->nidle--;
        if (q->nwake > 0)
            q->nwake--;
    }
    me->stat_fd = -1;
    pthread_mutex_unlock(&q->mu);
    if (sfd >= 0)
        close(sfd);
    return NULL;
}

/* ------------------------------------------------------------- loop side */

int vigil__workq_publish(struct vigil__workq *q, struct vigil__wlist *l)
{
    pthread_mutex_lock(&q->mu);
    if (q->nthreads == 0) {
        int r = start_thread(q);
        if (r < 0) {
            pthread_mutex_unlock(&q->mu);
            return -EAGAIN;
        }
    }
    struct vigil__work *w;
    while ((w = vigil__wlist_pop(l)) != NULL) {
        w->taken = 0;
        vigil__wlist_push(&q->lane[w->lane], w);
    }
    kick(q);
    pthread_mutex_unlock(&q->mu);
    return 0;
}

bool vigil__workq_unqueue(struct vigil__workq *q, struct vigil__work *w)
{
    bool found = false;
    pthread_mutex_lock(&q->mu);
    if (!w->taken) {
        vigil__wlist_remove(&q->lane[w->lane], w);
        found = true;
    }
    pthread_mutex_unlock(&q->mu);
    return found;
}

void vigil__workq_pool_fini(struct vigil__workq *q, struct vigil__wlist *out)
{
    pthread_mutex_lock(&q->mu);
    for (int l = 0; l < 2; l++) {
        struct vigil__work *w;
        while ((w = vigil__wlist_pop(&q->lane[l])) != NULL) {
            w->status = -ECANCELED;
            vigil__wlist_push(out, w);
        }
    }
    q->stop = true;
    int n = q->nthreads;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    /* Jobs running finish first: their fn cannot be interrupted. */
    for (int i = 0; i < n; i++)
        pthread_join(q->thr[i].tid, NULL);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
}

void vigil__workq_pool_stats(struct vigil__workq *q, struct vigil_work_stats *out)
{
    pthread_mutex_lock(&q->mu);
    out->threads = (uint32_t)q->nthreads;
    out->runnable = (uint32_t)q->nrun;
    out->blocked = (uint32_t)q->nblocked;
    out->queued = q->lane[0].n + q->lane[1].n;
    out->detected = q->detected;
    pthread_mutex_unlock(&q->mu);
}
