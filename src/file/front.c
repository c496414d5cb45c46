/* Async file I/O, the front: the API, the request pool, validation and engine choice.
 * Loop thread only. Engines are reached through their table (file_int.h).
 */
#include "file/file_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Requests per refill: one allocation for 32, as the 2011 patch did for kiocbs. */
#define POOL_BATCH VIGIL__POOL_BATCH

static void file_fini(vigil_loop *loop, void *state);

/* ------------------------------------------------------------- per-loop state */

static void file_init(void *state)
{
    struct vigil__file *f = state;
    f->bell_fd = -1;
    atomic_init(&f->done, NULL);
}

static struct vigil__file *file_state(vigil_loop *loop)
{
    return vigil__module_get(loop, VIGIL__MOD_FILE, sizeof(struct vigil__file), file_fini, file_init);
}

static const struct vigil__file_engine *engine_by_kind(int kind)
{
    switch (kind) {
    case VIGIL_FILE_ENGINE_URING: return &vigil__file_engine_uring;
    case VIGIL_FILE_ENGINE_AIO: return &vigil__file_engine_aio;
    case VIGIL_FILE_ENGINE_THREADS: return &vigil__file_engine_threads;
    default: return NULL;
    }
}

static int engine_from_env(void)
{
    const char *e = getenv("VIGIL_FILE_ENGINE");
    if (!e || !*e || strcmp(e, "auto") == 0)
        return VIGIL_FILE_ENGINE_AUTO;
    if (strcmp(e, "uring") == 0)
        return VIGIL_FILE_ENGINE_URING;
    if (strcmp(e, "aio") == 0)
        return VIGIL_FILE_ENGINE_AIO;
    if (strcmp(e, "threads") == 0)
        return VIGIL_FILE_ENGINE_THREADS;
    return -1;
}

static int setup(vigil_loop *loop, struct vigil__file *f, int kind, int nthreads)
{
    f->nthreads = nthreads > 0 ? nthreads : 4;
    if (kind == VIGIL_FILE_ENGINE_AUTO) {
        int env = engine_from_env();
        if (env < 0) {
            snprintf(f->reason, sizeof f->reason, "VIGIL_FILE_ENGINE names no engine");
            return -EINVAL;
        }
        kind = env;
    }
    if (kind != VIGIL_FILE_ENGINE_AUTO) {
        const struct vigil__file_engine *e = engine_by_kind(kind);
        int r = e->init(loop, f);
        if (r < 0)
            return r;
        f->eng = e;
        return 0;
    }
    /* AUTO: the first engine that starts. Each init leaves its refusal in f->reason. */
    static const int order[] = {VIGIL_FILE_ENGINE_URING, VIGIL_FILE_ENGINE_AIO, VIGIL_FILE_ENGINE_THREADS};
    char why[sizeof f->reason] = "";
    int r = -ENOSYS;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const struct vigil__file_engine *e = engine_by_kind(order[i]);
        f->reason[0] = 0;
        r = e->init(loop, f);
        if (r == 0) {
            f->eng = e;
            snprintf(f->reason, sizeof f->reason, "%s", why);
            return 0;
        }
        if (!why[0])
            snprintf(why, sizeof why, "%s", f->reason);
    }
    snprintf(f->reason, sizeof f->reason, "%s", why);
    return r;
}

/* The loop's file state with an engine, set up with AUTO on first use. */
static struct vigil__file *file_ready(vigil_loop *loop, int *err)
{
    struct vigil__file *f = file_state(loop);
    if (!f) {
        *err = -ENOMEM;
        return NULL;
    }
    if (!f->eng) {
        int r = setup(loop, f, VIGIL_FILE_ENGINE_AUTO, 0);
        if (r < 0) {
            *err = r;
            return NULL;
        }
    }
    return f;
}

void vigil_file_options_init(struct vigil_file_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

int vigil_file_setup(vigil_loop *loop, const struct vigil_file_options *opt)
{
    if (!loop)
        return -EINVAL;
    int kind = VIGIL_FILE_ENGINE_AUTO, nthreads = 0;
    if (opt) {
        if (opt->size < sizeof *opt || opt->flags || opt->threads < 0 || opt->engine < VIGIL_FILE_ENGINE_AUTO ||
            opt->engine > VIGIL_FILE_ENGINE_THREADS)
            return -EINVAL;
        kind = opt->engine;
        nthreads = opt->threads;
    }
    struct vigil__file *f = file_state(loop);
    if (!f)
        return -ENOMEM;
    if (f->eng)
        return -EBUSY;
    return setup(loop, f, kind, nthreads);
}

const char *vigil_file_engine(vigil_loop *loop)
{
    int err;
    struct vigil__file *f = loop ? file_ready(loop, &err) : NULL;
    return f ? f->eng->name : NULL;
}

const char *vigil_file_engine_reason(vigil_loop *loop)
{
    struct vigil__file *f = loop ? file_state(loop) : NULL;
    return f ? f->reason : "";
}

unsigned vigil_file_inflight(vigil_loop *loop)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    return f ? f->inflight : 0;
}

/* ---------------------------------------------------------------- the pool */

/* Refill: one allocation for POOL_BATCH requests, kept until vigil_loop_free. */
static __attribute__((noinline, cold)) bool pool_refill(struct vigil__file *f)
{
    struct vigil__pool_chunk *c = aligned_alloc(64, sizeof *c); /* sizeof is a multiple of 64 */
    if (!c)
        return false;
    c->next = f->chunks;
    f->chunks = c;
    for (int i = POOL_BATCH - 1; i >= 0; i--) {
        struct vigil__freq *fr = vigil__freq(&c->reqs[i]);
        fr->pooled = 1;
        fr->state = VIGIL__FREQ_IDLE;
        fr->route = VIGIL__ROUTE_NONE;
        fr->buf_ = f->free_list; /* a free request's buf links the free list */
        f->free_list = &c->reqs[i];
    }
    return true;
}

/* Takes the first free request (there is one) with its public fields cleared. */
static inline __attribute__((always_inline)) vigil_file_req *pool_pop(struct vigil__file *f)
{
    vigil_file_req *r = f->free_list;
    f->free_list = vigil__freq(r)->buf_;
    /* The first cache line's public fields zeroed (the rest belongs to OPEN and STAT,
     * whose prep helpers set it); the private state is idle already (put accepts only
     * idle requests). One line touched, no memset: GCC makes a small memset "rep stos",
     * whose start-up cost showed in file-batch. */
    r->data = NULL, r->cb = NULL, r->buf = NULL, r->offset = 0, r->len = 0, r->fd = 0;
    r->op = 0, r->flags = 0, r->buf_index = 0, r->result = 0;
    return r;
}

/* The slow half of vigil_file_req_get: the loop's file state made, the pool refilled.
 * Apart, so the get is a leaf that saves no registers. */
static __attribute__((noinline, cold)) vigil_file_req *req_get_slow(vigil_loop *loop)
{
    struct vigil__file *f = loop ? file_state(loop) : NULL;
    if (!f || (!f->free_list && !pool_refill(f)))
        return NULL;
    return pool_pop(f);
}

vigil_file_req *vigil_file_req_get(vigil_loop *loop)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    if (__builtin_expect(!f || !f->free_list, 0))
        return req_get_slow(loop);
    return pool_pop(f);
}

void vigil_file_req_put(vigil_loop *loop, vigil_file_req *req)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    /* In flight, or not the pool's: putting it back would hand it out twice, or hand
     * out the caller's memory. */
    if (!f || !req || vigil__freq(req)->state != VIGIL__FREQ_IDLE || !vigil__freq(req)->pooled)
        return;
    vigil__freq(req)->buf_ = f->free_list;
    f->free_list = req;
}

/* ------------------------------------------------------------- submission */

/* What the fast check reads of the registrations, loaded once per batch (the stores to
 * each request's state would otherwise make the compiler load them again each time). */
struct fixed_view {
    const int *fixed;
    unsigned nfixed; /* 0 when buffers are not registered: a registered request then takes check_slow */
};

/* The common request, checked in a few compares: a read or write with no flags or with
 * registered file and buffer, an open (no flags: its fd is a directory's, AT_FDCWD
 * included) or a close (no flags, fd >= 0); anything else (or anything wrong) takes
 * check_slow, which judges it in full. The same verdicts as check_slow's for the
 * requests it accepts. Open and close are here because a file's life is open, I/O,
 * close: fs-ops read (open + read 4 KiB + close) sent two calls of three to check_slow. */
static inline __attribute__((always_inline)) bool check_fast(struct fixed_view v, vigil_file_req *r)
{
    if (vigil__freq(r)->state != VIGIL__FREQ_IDLE || !r->cb)
        return false;
    unsigned fl = r->flags, fd = (unsigned)r->fd; /* fd < 0: a large unsigned */
    if (__builtin_expect((unsigned)(r->op - VIGIL_FILE_READ) <= VIGIL_FILE_WRITE - VIGIL_FILE_READ, 1)) {
        if (r->offset < 0)
            return false;
        if (fl == 0)
            return fd <= INT32_MAX;
        return fl == (VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF) && fd < v.nfixed && v.fixed[fd] >= 0;
    }
    if (r->op == VIGIL_FILE_OPEN)
        return fl == 0;
    return r->op == VIGIL_FILE_CLOSE && fl == 0 && fd <= INT32_MAX;
}

static int check_slow(struct vigil__file *f, vigil_file_req *r)
{
    if (vigil__freq(r)->state != VIGIL__FREQ_IDLE)
        return -EBUSY;
    if (!r->cb || (r->flags & ~(VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF)))
        return -EINVAL;
    switch (r->op) {
    case VIGIL_FILE_READV:
    case VIGIL_FILE_WRITEV:
        if (r->len > 1024) /* IOV_MAX */
            return -EINVAL;
        /* fall through */
    case VIGIL_FILE_READ:
    case VIGIL_FILE_WRITE:
        /* io_uring would take -1 as "the current file position": refuse it here. */
        if (r->offset < 0)
            return -EINVAL;
        break;
    case VIGIL_FILE_FSYNC:
    case VIGIL_FILE_FDATASYNC:
    case VIGIL_FILE_CLOSE:
        break;
    case VIGIL_FILE_STAT:
        if (r->flags) /* no registered file; a registered buffer is for reads and writes */
            return -EINVAL;
        vigil__freq(r)->inl = 0;
        f->st_total++; /* accepted (what follows refuses no stat) */
        break;
    case VIGIL_FILE_OPEN:
        if (r->flags & VIGIL_FILE_FIXED_FILE)
            return -EINVAL;
        break;
    default:
        if (r->op < VIGIL_FILE_UNLINK || r->op > VIGIL_FILE_SENDFILE)
            return -EINVAL;
        /* The file-system calls: no registered files or buffers. Their fds and offsets
         * are the system call's to judge (AT_FDCWD is negative, -1 is "no offset" for
         * splice), except where an fd is all the call has. */
        if (r->flags)
            return -EINVAL;
        switch (r->op) {
        case VIGIL_FILE_FTRUNCATE:
        case VIGIL_FILE_FALLOCATE:
        case VIGIL_FILE_READDIR:
        case VIGIL_FILE_COPY_RANGE:
        case VIGIL_FILE_SPLICE:
        case VIGIL_FILE_SENDFILE:
            if (r->fd < 0 || (r->op >= VIGIL_FILE_COPY_RANGE && r->fd2 < 0))
                return -EBADF;
            break;
        case VIGIL_FILE_CHMOD:
        case VIGIL_FILE_CHOWN:
        case VIGIL_FILE_UTIMES:
            if (!r->path && r->fd < 0)
                return -EBADF;
            break;
        default:
            break;
        }
        return 0;
    }
    if ((r->flags & VIGIL_FILE_FIXED_BUF) &&
        (!f->bufs || (r->op != VIGIL_FILE_READ && r->op != VIGIL_FILE_WRITE)))
        return -EINVAL;
    if (r->flags & VIGIL_FILE_FIXED_FILE) {
        if (r->op == VIGIL_FILE_CLOSE)
            return -EINVAL;
        if (r->fd < 0 || (unsigned)r->fd >= f->nfixed || f->fixed[r->fd] < 0)
            return -EBADF;
        /* io_uring takes the index as it is; the other engines translate it (fixed_fd) on
         * their own paths, so this one stays within the request's first cache line. */
    } else if (r->fd < 0 && r->op != VIGIL_FILE_OPEN && r->op != VIGIL_FILE_STAT) {
        return -EBADF;
    }
    return 0;
}

/* A checked request's state as it goes to the engine: in flight, no route yet, not
 * cancelled, no retries. */
static inline void mark_inflight(vigil_file_req *r)
{
    struct vigil__freq *fr = vigil__freq(r);
    fr->state = VIGIL__FREQ_INFLIGHT;
    fr->route = VIGIL__ROUTE_NONE;
    fr->ctl_bits = 0;
}

int vigil_file_submit(vigil_loop *loop, vigil_file_req *const *reqs, int n)
{
    if (!loop || !reqs || n < 0)
        return -EINVAL;
    if (n == 0)
        return 0;
    int err = 0;
    struct vigil__file *f = file_ready(loop, &err);
    if (!f)
        return err;
    if (f->freeing)
        return -ECANCELED;
    struct fixed_view v = {f->fixed, f->bufs ? f->nfixed : 0};
    int k = 0;
    for (; k < n; k++) {
        if (!reqs[k]) {
            err = -EINVAL;
            break;
        }
        if (!check_fast(v, reqs[k]) && (err = check_slow(f, reqs[k])) < 0)
            break;
        mark_inflight(reqs[k]); /* at once: the same request twice in one batch is -EBUSY */
    }
    if (k == 0)
        return err;
    f->inflight += (unsigned)k;
    loop->active += (unsigned)k;
    /* A stat alone in flight: answered in the loop thread when the kernel's caches can
     * (stat_inline.c); with others in flight the engine's workers run them in parallel. */
    if (__builtin_expect(reqs[0]->op == VIGIL_FILE_STAT, 0) && k == 1 && f->inflight == 1 &&
        vigil__file_stat_inline(loop, f, reqs[0]))
        return k;
    f->eng->submit(loop, f, reqs, k);
    return k;
}

/* One request: vigil_file_submit's work without its batch loop, for a request
 * check_fast accepts on a loop whose engine is set up (anything else takes
 * vigil_file_submit, which judges it in full). The same state changes in the same
 * order: marked in flight, counted, then handed to the engine -- so completion order,
 * cancellation and vigil_loop_free see it exactly as a batch of one. A STAT never
 * passes check_fast, so the loop-thread stat (stat_inline.c) stays on the full path. */
int vigil_file_start(vigil_loop *loop, vigil_file_req *req)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    if (__builtin_expect(f && req && f->eng && !f->freeing, 1)) {
        struct fixed_view v = {f->fixed, f->bufs ? f->nfixed : 0};
        if (__builtin_expect(check_fast(v, req), 1)) {
            mark_inflight(req);
            f->inflight++;
            loop->active++;
            if (f->eng == &vigil__file_engine_uring)
                vigil__file_uring_start(loop, f, req);
            else
                f->eng->submit(loop, f, &req, 1);
            return 0;
        }
    }
    int r = vigil_file_submit(loop, &req, 1);
    return r < 0 ? r : 0;
}

int vigil_file_cancel(vigil_loop *loop, vigil_file_req *req)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    if (!f || !req)
        return -EINVAL;
    struct vigil__freq *fr = vigil__freq(req);
    if (fr->state != VIGIL__FREQ_INFLIGHT || !f->eng)
        return -ENOENT;
    if (fr->ctl_bits & VIGIL__FREQ_CANCEL)
        return 0;
    if (req->op == VIGIL_FILE_STAT && fr->inl) {
        /* Answered in the loop thread: its result is on the done stack already. */
        fr->ctl_bits |= VIGIL__FREQ_CANCEL;
        return 0;
    }
    return f->eng->cancel(loop, f, req);
}

/* ------------------------------------------------------------- registration */

int vigil_file_register_files(vigil_loop *loop, const int *fds, unsigned n)
{
    if (!loop || !fds || n == 0 || n > 65536)
        return -EINVAL;
    int err = 0;
    struct vigil__file *f = file_ready(loop, &err);
    if (!f)
        return err;
    if (f->fixed)
        return -EBUSY;
    int *t = malloc(n * sizeof *t);
    if (!t)
        return -ENOMEM;
    memcpy(t, fds, n * sizeof *t);
    if (f->eng->register_files) {
        int r = f->eng->register_files(loop, fds, n);
        if (r < 0) {
            free(t);
            return r;
        }
    }
    f->fixed = t;
    f->nfixed = n;
    return 0;
}

int vigil_file_unregister_files(vigil_loop *loop)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    if (!f || !f->fixed)
        return -ENXIO;
    if (f->eng->unregister_files) {
        int r = f->eng->unregister_files(loop);
        if (r < 0)
            return r;
    }
    free(f->fixed);
    f->fixed = NULL;
    f->nfixed = 0;
    return 0;
}

int vigil_file_register_buffers(vigil_loop *loop, const struct iovec *iov, unsigned n)
{
    if (!loop || !iov || n == 0 || n > 16384)
        return -EINVAL;
    int err = 0;
    struct vigil__file *f = file_ready(loop, &err);
    if (!f)
        return err;
    if (f->bufs)
        return -EBUSY;
    if (f->eng->register_buffers) {
        int r = f->eng->register_buffers(loop, iov, n);
        if (r < 0)
            return r;
    }
    f->bufs = true;
    return 0;
}

int vigil_file_unregister_buffers(vigil_loop *loop)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    if (!f || !f->bufs)
        return -ENXIO;
    if (f->eng->unregister_buffers) {
        int r = f->eng->unregister_buffers(loop);
        if (r < 0)
            return r;
    }
    f->bufs = false;
    return 0;
}

/* Called by vigil_loop_free: every request in flight is cancelled or finished, and its
 * callback runs (a callback may put its request back; starting one fails with
 * -ECANCELED); then the pool's memory goes. */
static void file_fini(vigil_loop *loop, void *state)
{
    struct vigil__file *f = state;
    f->freeing = true;
    if (f->eng)
        f->eng->fini(loop, f);
    vigil__file_bell_fini(loop, f);
    struct vigil__pool_chunk *c = f->chunks;
    while (c) {
        struct vigil__pool_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(f->fixed);
    free(f);
}
