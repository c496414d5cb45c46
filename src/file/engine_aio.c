/* Async file I/O, the Linux AIO engine: io_submit per batch, completions announced on
 * the doorbell eventfd (IOCB_FLAG_RESFD) and read from the AIO completion ring straight
 * from user space, so a batch costs io_submit + the loop's wait + one eventfd read.
 *
 * What AIO does well is O_DIRECT. A buffered read or write is submitted with RWF_NOWAIT:
 * a page-cache hit completes at once inside io_submit; one that would block comes back
 * -EAGAIN and goes to the thread pool (an O_DIRECT request refused by RWF_NOWAIT, say a
 * busy device queue, is resubmitted to AIO without it). open, close and stat, which AIO
 * has no command for, go to the thread pool directly.
 *
 * The context holds AIO_NR requests; more wait on a backlog, submitted as completions
 * free slots. Requests are submitted in the order given.
 */
#include "file/file_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define AIO_NR 1024      /* requests the context holds */
#define SUBMIT_CHUNK 64  /* iocbs per io_submit call (on-stack array) */
#define AIO_RING_MAGIC 0xa10a10a1u

/* The completion ring the kernel maps at the context's address (fs/aio.c). */
struct aio_ring_hdr {
    unsigned id;
    unsigned nr;   /* slots */
    unsigned head; /* written by us (or io_getevents) */
    unsigned tail; /* written by the kernel */
    unsigned magic;
    unsigned compat_features;
    unsigned incompat_features;
    unsigned header_length;
    struct io_event io_events[];
};

struct aio_state {
    aio_context_t ctx;
    struct aio_ring_hdr *ring; /* NULL: reap with io_getevents */
    unsigned inflight;         /* submitted to the kernel, not reaped */
    vigil_file_req *bl_head, *bl_tail; /* backlog: waiting for a slot */
};

static long sys_io_setup(unsigned nr, aio_context_t *ctx) { return syscall(SYS_io_setup, nr, ctx); }
static long sys_io_destroy(aio_context_t ctx) { return syscall(SYS_io_destroy, ctx); }
static long sys_io_submit(aio_context_t ctx, long n, struct iocb **v) { return syscall(SYS_io_submit, ctx, n, v); }
static long sys_io_cancel(aio_context_t ctx, struct iocb *cb, struct io_event *ev)
{
    return syscall(SYS_io_cancel, ctx, cb, ev);
}
static long sys_io_getevents(aio_context_t ctx, long min, long max, struct io_event *ev, struct timespec *ts)
{
    return syscall(SYS_io_getevents, ctx, min, max, ev, ts);
}

static void backlog_push(struct aio_state *st, vigil_file_req *req)
{
    struct vigil__freq *fr = vigil__freq(req);
    fr->route = VIGIL__ROUTE_BACKLOG;
    fr->next = NULL;
    if (st->bl_tail)
        vigil__freq(st->bl_tail)->next = req;
    else
        st->bl_head = req;
    st->bl_tail = req;
}

static void to_threads(struct vigil__file *f, vigil_file_req *req)
{
    if (!f->thr && vigil__fthr_init(f, f->nthreads) < 0) {
        vigil__freq(req)->route = VIGIL__ROUTE_DONE;
        vigil__file_defer(f, req, -ENOMEM);
        return;
    }
    vigil__fthr_submit(f, &req, 1);
}

/* Fills the request's iocb; false if AIO has no command for the op. */
static bool prep_iocb(struct vigil__file *f, vigil_file_req *req, bool nowait)
{
    struct vigil__freq *fr = vigil__freq(req);
    struct iocb *cb = &fr->iocb;
    vigil__freq_resolve(f, req);
    memset(cb, 0, sizeof *cb);
    cb->aio_data = (uint64_t)(uintptr_t)req;
    cb->aio_fildes = (uint32_t)vigil__freq_fd(req);
    cb->aio_flags = IOCB_FLAG_RESFD;
    cb->aio_resfd = (uint32_t)f->bell_fd;
    switch (req->op) {
    case VIGIL_FILE_READ: cb->aio_lio_opcode = IOCB_CMD_PREAD; break;
    case VIGIL_FILE_WRITE: cb->aio_lio_opcode = IOCB_CMD_PWRITE; break;
    case VIGIL_FILE_READV: cb->aio_lio_opcode = IOCB_CMD_PREADV; break;
    case VIGIL_FILE_WRITEV: cb->aio_lio_opcode = IOCB_CMD_PWRITEV; break;
    case VIGIL_FILE_FSYNC: cb->aio_lio_opcode = IOCB_CMD_FSYNC; return true;
    case VIGIL_FILE_FDATASYNC: cb->aio_lio_opcode = IOCB_CMD_FDSYNC; return true;
    default: return false;
    }
    cb->aio_buf = (uint64_t)(uintptr_t)req->buf; /* buf and iov share the union */
    cb->aio_nbytes = req->len > VIGIL__FILE_MAX_RW ? VIGIL__FILE_MAX_RW : req->len;
    cb->aio_offset = req->offset;
    if (nowait)
        cb->aio_rw_flags = RWF_NOWAIT;
    return true;
}

/* io_submit refused this request at submission (not in its completion). */
static void submit_failed(struct vigil__file *f, vigil_file_req *req, int err)
{
    if (err == EOPNOTSUPP || err == EINVAL) {
        /* The file takes no RWF_NOWAIT, or no AIO at all (no read_iter, no fsync):
         * a worker does it, and reports the kernel's own error if it is one. */
        to_threads(f, req);
        return;
    }
    vigil__freq(req)->route = VIGIL__ROUTE_DONE;
    vigil__file_defer(f, req, -err);
}

/* Submits v[0..n) in order; what finds no slot goes to the backlog. */
static void submit_iocbs(struct vigil__file *f, struct aio_state *st, struct iocb **v, int n)
{
    int done = 0;
    while (done < n) {
        unsigned room = AIO_NR - st->inflight;
        if (room == 0) {
            for (; done < n; done++)
                backlog_push(st, (vigil_file_req *)(uintptr_t)v[done]->aio_data);
            return;
        }
        long m = n - done < (int)room ? n - done : (long)room;
        long r = sys_io_submit(st->ctx, m, v + done);
        if (r > 0) {
            for (long i = 0; i < r; i++)
                vigil__freq((vigil_file_req *)(uintptr_t)v[done + i]->aio_data)->route = VIGIL__ROUTE_AIO;
            st->inflight += (unsigned)r;
            done += (int)r;
            continue;
        }
        int err = r == 0 ? EAGAIN : errno;
        if (err == EINTR)
            continue;
        vigil_file_req *req = (vigil_file_req *)(uintptr_t)v[done]->aio_data;
        if (err == EAGAIN) {
            /* At submission EAGAIN means the kernel is out of AIO requests (RWF_NOWAIT's
             * refusal comes in the completion): wait for completions to free some, or,
             * with none in flight to wait for, let the workers do the rest. */
            for (; done < n; done++) {
                req = (vigil_file_req *)(uintptr_t)v[done]->aio_data;
                if (st->inflight)
                    backlog_push(st, req);
                else
                    to_threads(f, req);
            }
            return;
        }
        submit_failed(f, req, err);
        done++;
    }
}

static void aio_submit(vigil_loop *loop, struct vigil__file *f, vigil_file_req *const *reqs, int n)
{
    (void)loop;
    struct aio_state *st = f->engine_state;
    struct iocb *v[SUBMIT_CHUNK];
    int nv = 0;
    for (int i = 0; i < n; i++) {
        vigil_file_req *req = reqs[i];
        if (st->bl_head) {
            /* Keep the order: behind what already waits for a slot. */
            prep_iocb(f, req, true) ? backlog_push(st, req) : to_threads(f, req);
            continue;
        }
        if (!prep_iocb(f, req, true)) {
            to_threads(f, req);
            continue;
        }
        v[nv++] = &vigil__freq(req)->iocb;
        if (nv == SUBMIT_CHUNK) {
            submit_iocbs(f, st, v, nv);
            nv = 0;
        }
    }
    if (nv)
        submit_iocbs(f, st, v, nv);
}

static void flush_backlog(struct vigil__file *f, struct aio_state *st)
{
    while (st->bl_head && st->inflight < AIO_NR) {
        struct iocb *v[SUBMIT_CHUNK];
        int nv = 0;
        while (st->bl_head && nv < SUBMIT_CHUNK && st->inflight + (unsigned)nv < AIO_NR) {
            vigil_file_req *req = st->bl_head;
            st->bl_head = vigil__freq(req)->next;
            if (!st->bl_head)
                st->bl_tail = NULL;
            v[nv++] = &vigil__freq(req)->iocb;
        }
        submit_iocbs(f, st, v, nv);
    }
}

/* One finished AIO request: retry, reroute or complete. */
static void finished(vigil_loop *loop, struct vigil__file *f, struct aio_state *st, vigil_file_req *req, int64_t res)
{
    struct vigil__freq *fr = vigil__freq(req);
    bool nowait_refused = fr->iocb.aio_rw_flags && (res == -EOPNOTSUPP || res == -EAGAIN);
    bool again = (res == -EAGAIN || res == -EINTR) && (fr->ctl_bits & VIGIL__FREQ_RETRIES) < VIGIL__FILE_RETRIES;
    if (!nowait_refused && !again) {
        vigil__file_complete(loop, f, req, res);
        return;
    }
    if ((fr->ctl_bits & VIGIL__FREQ_CANCEL) || f->freeing) {
        /* Not done, and not to be tried again: it was cancelled. */
        vigil__file_complete(loop, f, req, -ECANCELED);
        return;
    }
    struct iocb *cb = &fr->iocb;
    if (nowait_refused) {
        /* RWF_NOWAIT said it would block (EAGAIN) or that this file cannot promise not
         * to (EOPNOTSUPP: ext4's buffered writes). O_DIRECT: resubmit without it (the
         * device queue was full); buffered: a worker does it. */
        int fl = res == -EAGAIN ? fcntl(vigil__freq_fd(req), F_GETFL) : -1;
        if (fl >= 0 && (fl & O_DIRECT)) {
            cb->aio_rw_flags = 0;
            submit_iocbs(f, st, &cb, 1);
        } else {
            to_threads(f, req);
        }
        return;
    }
    fr->ctl_bits++; /* one more retry */
    submit_iocbs(f, st, &cb, 1);
}

/* Takes up to max events without a system call when the ring is readable here. */
static int ring_take(struct aio_state *st, struct io_event *ev, int max)
{
    struct aio_ring_hdr *ring = st->ring;
    if (!ring) {
        struct timespec zero = {0, 0};
        long r = sys_io_getevents(st->ctx, 0, max, ev, &zero);
        return r < 0 ? 0 : (int)r;
    }
    unsigned nr = ring->nr;
    unsigned head = ring->head;
    /* Acquire: the kernel writes an event, then (smp_wmb) the tail; seeing the tail
     * means seeing the events before it. */
    unsigned tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    if (head >= nr || tail >= nr)
        return 0; /* not a state the kernel leaves: take nothing rather than misread */
    int n = 0;
    while (head != tail && n < max) {
        ev[n++] = ring->io_events[head];
        head = head + 1 == nr ? 0 : head + 1;
    }
    /* Release: our reads of the slots are done before the kernel may reuse them (it
     * reads head when it refills its count of free slots). */
    __atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
    return n;
}

static void aio_reap(vigil_loop *loop, struct vigil__file *f)
{
    struct aio_state *st = f->engine_state;
    struct io_event ev[64];
    int n;
    /* Events are copied out before callbacks run: a callback may submit, and submitting
     * may reap (nothing here re-enters, but the ring slots are then free already). */
    while (st->inflight && (n = ring_take(st, ev, 64)) > 0) {
        st->inflight -= (unsigned)n;
        for (int i = 0; i < n; i++)
            finished(loop, f, st, (vigil_file_req *)(uintptr_t)ev[i].data, (int64_t)ev[i].res);
        flush_backlog(f, st);
    }
    flush_backlog(f, st);
}

static int aio_cancel(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    (void)loop;
    struct aio_state *st = f->engine_state;
    struct vigil__freq *fr = vigil__freq(req);
    /* Whose the request is: BACKLOG and AIO are set by this thread only, QUEUED and
     * WORKER by the pool (a plain read here was a data race: ThreadSanitizer, in
     * tests/file/fs_cancel on the aio engine). */
    switch (vigil__freq_route(req)) {
    case VIGIL__ROUTE_BACKLOG:
        vigil__freq_unlink(&st->bl_head, &st->bl_tail, req);
        fr->ctl_bits |= VIGIL__FREQ_CANCEL;
        fr->route = VIGIL__ROUTE_DONE;
        vigil__file_defer(f, req, -ECANCELED);
        return 0;
    case VIGIL__ROUTE_QUEUED:
    case VIGIL__ROUTE_WORKER:
        return vigil__fthr_cancel(f, req);
    case VIGIL__ROUTE_AIO: {
        /* Regular files' AIO cannot be cancelled (io_cancel says EINVAL); where it can,
         * the kernel still posts the completion to the ring, reaped as usual. */
        struct io_event ev;
        sys_io_cancel(st->ctx, &fr->iocb, &ev);
        fr->ctl_bits |= VIGIL__FREQ_CANCEL;
        return 0;
    }
    default:
        fr->ctl_bits |= VIGIL__FREQ_CANCEL;
        return 0;
    }
}

static int aio_init(vigil_loop *loop, struct vigil__file *f)
{
    struct aio_state *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    if (sys_io_setup(AIO_NR, &st->ctx) < 0) {
        int e = errno;
        snprintf(f->reason, sizeof f->reason, "io_setup: %s", strerror(e));
        free(st);
        return (e == EPERM || e == ENOSYS) ? -ENOSYS : -e;
    }
    int r = vigil__file_bell_init(loop, f);
    if (r < 0) {
        sys_io_destroy(st->ctx);
        free(st);
        return r;
    }
    /* The ring is read from user space only when it is the layout we know. */
    struct aio_ring_hdr *ring = (struct aio_ring_hdr *)(uintptr_t)st->ctx;
    if (ring->magic == AIO_RING_MAGIC && ring->incompat_features == 0 && ring->header_length == sizeof *ring)
        st->ring = ring;
    f->engine_state = st;
    return 0;
}

static void aio_fini(vigil_loop *loop, struct vigil__file *f)
{
    struct aio_state *st = f->engine_state;
    if (!st)
        return;
    /* The backlog never reached the kernel: cancelled. */
    while (st->bl_head) {
        vigil_file_req *req = st->bl_head;
        st->bl_head = vigil__freq(req)->next;
        vigil__freq(req)->route = VIGIL__ROUTE_DONE;
        vigil__file_complete(loop, f, req, -ECANCELED);
    }
    st->bl_tail = NULL;
    /* What the kernel holds finishes (regular files always do): wait for each event, so
     * its callback gets its real result and nothing is touched after the free. */
    while (st->inflight) {
        struct io_event ev[64];
        long n = sys_io_getevents(st->ctx, 1, 64, ev, NULL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        st->inflight -= (unsigned)n;
        for (long i = 0; i < n; i++) /* f->freeing: no retries now */
            finished(loop, f, st, (vigil_file_req *)(uintptr_t)ev[i].data, (int64_t)ev[i].res);
        while (st->bl_head) {
            vigil_file_req *req = st->bl_head;
            st->bl_head = vigil__freq(req)->next;
            vigil__file_complete(loop, f, req, -ECANCELED);
        }
        st->bl_tail = NULL;
    }
    /* io_destroy waits for anything still in the kernel (nothing, unless getevents
     * failed) before the ring goes. */
    sys_io_destroy(st->ctx);
    free(st);
    f->engine_state = NULL;
    /* The thread pool took what AIO cannot do: its requests end too. */
    if (f->thr)
        vigil__fthr_fini(f);
}

const struct vigil__file_engine vigil__file_engine_aio = {
    .name = "aio",
    .init = aio_init,
    .fini = aio_fini,
    .submit = aio_submit,
    .cancel = aio_cancel,
    .reap = aio_reap,
};
