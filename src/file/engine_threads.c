/* Async file I/O, the thread pool: the "threads" engine, and the Linux AIO engine's
 * fallback for what AIO cannot do asynchronously (buffered I/O that would block, open,
 * close, stat, the file-system calls), and the io_uring engine's for the file-system
 * calls its route table keeps off the ring.
 *
 * LOCKING: t->mu guards the queue (head/tail/qlen), each queued request's route
 * (QUEUED -> WORKER), nidle and stop. A worker takes one request under the lock (up to
 * TAKE_MAX from a long queue), performs them unlocked, and hands them back through
 * vigil__file_defer_chain() (lock-free done stack + doorbell eventfd, see done.c). The loop thread enqueues a whole batch under
 * one lock acquisition and wakes at most as many idle workers as it queued; busy
 * workers find the new requests without being woken.
 *
 * Workers block every signal: a signal meant for the loop's signalfd (or for the
 * program's own threads) must never be delivered to a worker.
 */
#include "file/file_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* Requests a worker takes at once from a long queue (it takes qlen / (2 * pool size),
 * at least 1, at most this). Each share ends with one push on the done stack, and a push
 * onto an empty stack is one wake-up of the loop (eventfd write, the loop's wait and
 * read): the share's size sets the loop's wake-ups when the queue is deep. A result then
 * waits for the rest of its share, at most k - 1 more I/Os, and k is at most half of each
 * worker's part of the queue (a queue that short waits that long anyway). Measured
 * 2026-12-02 (lab/file-batch's shape on the threads engine, 512 B reads of a cached file
 * at depth 256 in groups of 32, 300,000 reads, perf stat tracepoints, four alternating
 * runs a side on the shared 2-core VM): 8 -> 32 took io_uring_enter from 0.020-0.036 to
 * 0.009-0.015 per read (the loop's wake-ups) and context switches from 0.036-0.056 to
 * 0.033-0.046; a shallow queue (fs-ops at 64 in flight: at most 64 / 8 = 8) is not
 * changed. Tried with it and dropped: an adaptive mutex for mu (fewer futex calls in
 * some runs, more in others; no direction in CPU). */
#define TAKE_MAX 32

struct vigil__fthr {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    vigil_file_req *head, *tail; /* FIFO of requests not taken yet */
    int qlen;                    /* its length */
    int nidle;                   /* workers waiting on cv */
    bool stop;
    int want;                    /* pool size */
    int started;                 /* threads created */
    int running;                 /* threads that reached their loop */
    struct vigil__file *f;
    pthread_t tid[];
};

int64_t vigil__file_perform(vigil_file_req *req)
{
    if (req->op >= VIGIL_FILE_UNLINK)
        return vigil__file_perform_fs(req); /* fs_calls.c */
    int fd = vigil__freq_fd(req);
    size_t len = req->len > VIGIL__FILE_MAX_RW ? VIGIL__FILE_MAX_RW : (size_t)req->len;
    for (int tries = 0;; tries++) {
        int64_t r;
        switch (req->op) {
        case VIGIL_FILE_READ: r = pread(fd, req->buf, len, req->offset); break;
        case VIGIL_FILE_WRITE: r = pwrite(fd, req->buf, len, req->offset); break;
        case VIGIL_FILE_READV: r = preadv(fd, req->iov, (int)req->len, req->offset); break;
        case VIGIL_FILE_WRITEV: r = pwritev(fd, req->iov, (int)req->len, req->offset); break;
        case VIGIL_FILE_FSYNC: r = fsync(fd); break;
        case VIGIL_FILE_FDATASYNC: r = fdatasync(fd); break;
        case VIGIL_FILE_OPEN: r = openat(fd, req->path, req->arg, (mode_t)req->mode); break;
        case VIGIL_FILE_CLOSE:
            /* Never retried: Linux has released the fd even when close says EINTR. */
            return close(fd) < 0 ? -errno : 0;
        case VIGIL_FILE_STAT: r = statx(fd, req->path, req->arg, req->mode, req->stx); break;
        default: return -EINVAL;
        }
        if (r >= 0)
            return r;
        int e = errno;
        if (e == ESPIPE && req->offset == 0 && req->op <= VIGIL_FILE_WRITEV) {
            /* A pipe or socket has no offset: read or write it as io_uring and AIO do. */
            switch (req->op) {
            case VIGIL_FILE_READ: r = read(fd, req->buf, len); break;
            case VIGIL_FILE_WRITE: r = write(fd, req->buf, len); break;
            case VIGIL_FILE_READV: r = readv(fd, req->iov, (int)req->len); break;
            default: r = writev(fd, req->iov, (int)req->len); break;
            }
            if (r >= 0)
                return r;
            e = errno;
        }
        if ((e != EINTR && e != EAGAIN) || tries >= VIGIL__FILE_RETRIES)
            return -e;
        if (e == EAGAIN) {
            /* Transient (a non-blocking file, a full queue): let the kernel breathe. */
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
}

static void *worker(void *arg)
{
    struct vigil__fthr *t = arg;
    pthread_mutex_lock(&t->mu);
    t->running++;
    pthread_cond_broadcast(&t->cv); /* start_threads waits for the whole pool */
    for (;;) {
        while (!t->head && !t->stop) {
            t->nidle++;
            pthread_cond_wait(&t->cv, &t->mu);
            t->nidle--;
        }
        if (!t->head)
            break; /* stopping, and nothing left */
        /* A share of the queue: several requests when it is long (one lock, one push
         * and at most one ring for all of them), one when it is short (the next may
         * block on a device: leave it to another worker). */
        int k = t->qlen / (2 * t->want);
        k = k < 1 ? 1 : k > TAKE_MAX ? TAKE_MAX : k;
        vigil_file_req *take = t->head, *r = take;
        int n = 0;
        for (; r && n < k; r = vigil__freq(r)->next, n++)
            /* under mu, where vigil__fthr_cancel reads it; atomic because the AIO
             * engine's cancel reads it without the lock to learn whose it is */
            __atomic_store_n(&vigil__freq(r)->route, VIGIL__ROUTE_WORKER, __ATOMIC_RELAXED);
        t->head = r;
        if (!t->head)
            t->tail = NULL;
        t->qlen -= n;
        pthread_mutex_unlock(&t->mu);
        /* Performed in queue order; the done chain is built newest first, as the done
         * stack is (the loop reverses it). */
        vigil_file_req *chain = NULL, *chain_last = take;
        for (int i = 0; i < n; i++) {
            vigil_file_req *next = vigil__freq(take)->next; /* the queue link, before reuse */
            vigil__freq(take)->res = vigil__file_perform(take);
            vigil__freq(take)->next = chain;
            chain = take;
            take = next;
        }
        vigil__file_defer_chain(t->f, chain, chain_last);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int vigil__fthr_init(struct vigil__file *f, int nthreads)
{
    if (f->thr)
        return 0;
    if (nthreads <= 0)
        nthreads = 4;
    struct vigil__fthr *t = calloc(1, sizeof *t + (size_t)nthreads * sizeof(pthread_t));
    if (!t)
        return -ENOMEM;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->want = nthreads;
    t->f = f;
    f->thr = t;
    return 0;
}

/* Threads start with the first request, not at set-up: a loop that never does buffered
 * file I/O on AIO never has them. Returns how many run. */
static int start_threads(struct vigil__fthr *t)
{
    if (t->started == t->want)
        return t->started;
    sigset_t all, old;
    sigfillset(&all);
    /* Blocked in the creating thread for the moment of pthread_create: the new thread
     * inherits the mask, so no signal can reach it before it runs. */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int n = t->started;
    while (n < t->want && pthread_create(&t->tid[n], NULL, worker, t) == 0)
        n++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    t->started = n; /* loop thread only; workers count themselves in running */
    if (n > 0)
        t->want = n; /* short of threads: run with those, do not retry per submit */
    /* Wait until every worker runs: a thread's start-up (its stack, its TLS, a
     * sanitizer's bookkeeping) then never lands in the steady state. */
    pthread_mutex_lock(&t->mu);
    while (t->running < t->started)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    return t->started;
}

void vigil__fthr_submit(struct vigil__file *f, vigil_file_req *const *reqs, int n)
{
    struct vigil__fthr *t = f->thr;
    if (start_threads(t) == 0) {
        for (int i = 0; i < n; i++) {
            vigil__freq(reqs[i])->route = VIGIL__ROUTE_DONE;
            vigil__file_defer(f, reqs[i], -EAGAIN); /* as pthread_create said */
        }
        return;
    }
    pthread_mutex_lock(&t->mu);
    for (int i = 0; i < n; i++) {
        struct vigil__freq *fr = vigil__freq(reqs[i]);
        vigil__freq_resolve(f, reqs[i]);
        fr->route = VIGIL__ROUTE_QUEUED;
        fr->next = NULL;
        if (t->tail)
            vigil__freq(t->tail)->next = reqs[i];
        else
            t->head = reqs[i];
        t->tail = reqs[i];
    }
    t->qlen += n;
    int wake = t->nidle < n ? t->nidle : n;
    pthread_mutex_unlock(&t->mu);
    if (wake == 1)
        pthread_cond_signal(&t->cv);
    else if (wake > 1)
        pthread_cond_broadcast(&t->cv);
}

int vigil__fthr_cancel(struct vigil__file *f, vigil_file_req *req)
{
    struct vigil__fthr *t = f->thr;
    struct vigil__freq *fr = vigil__freq(req);
    bool found = false;
    pthread_mutex_lock(&t->mu);
    if (fr->route == VIGIL__ROUTE_QUEUED && vigil__freq_unlink(&t->head, &t->tail, req)) {
        t->qlen--;
        fr->route = VIGIL__ROUTE_DONE;
        found = true;
    }
    pthread_mutex_unlock(&t->mu);
    fr->ctl_bits |= VIGIL__FREQ_CANCEL;
    if (found)
        vigil__file_defer(f, req, -ECANCELED);
    /* else a worker performs it: it completes with its result */
    return 0;
}

void vigil__fthr_fini(struct vigil__file *f)
{
    struct vigil__fthr *t = f->thr;
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    vigil_file_req *q = t->head;
    t->head = t->tail = NULL;
    t->qlen = 0;
    t->stop = true;
    pthread_mutex_unlock(&t->mu);
    pthread_cond_broadcast(&t->cv);
    while (q) {
        vigil_file_req *next = vigil__freq(q)->next;
        vigil__freq(q)->route = VIGIL__ROUTE_DONE;
        vigil__file_defer(f, q, -ECANCELED);
        q = next;
    }
    /* Requests a worker already performs finish (a regular file's I/O always does). */
    for (int i = 0; i < t->started; i++)
        pthread_join(t->tid[i], NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
    f->thr = NULL;
}

/* ------------------------------------------------- the "threads" engine */

static int thr_engine_init(vigil_loop *loop, struct vigil__file *f)
{
    int r = vigil__file_bell_init(loop, f);
    if (r < 0)
        return r;
    return vigil__fthr_init(f, f->nthreads);
}

static void thr_engine_fini(vigil_loop *loop, struct vigil__file *f)
{
    (void)loop;
    if (f->thr)
        vigil__fthr_fini(f);
}

static void thr_engine_submit(vigil_loop *loop, struct vigil__file *f, vigil_file_req *const *reqs, int n)
{
    (void)loop;
    vigil__fthr_submit(f, reqs, n);
}

static int thr_engine_cancel(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    (void)loop;
    return vigil__fthr_cancel(f, req);
}

const struct vigil__file_engine vigil__file_engine_threads = {
    .name = "threads",
    .init = thr_engine_init,
    .fini = thr_engine_fini,
    .submit = thr_engine_submit,
    .cancel = thr_engine_cancel,
    .reap = NULL,
};
