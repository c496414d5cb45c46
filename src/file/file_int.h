/* src/file/: async file I/O. front.c (the API, the request pool, validation, engine
 * choice) calls the engines only through struct vigil__file_engine; the engines
 * (engine_uring.c, engine_aio.c, engine_threads.c, which also holds the thread pool AIO
 * falls back to) end requests through done.c (the completion path and the doorbell),
 * which calls nothing above it. The per-loop state is a module (loop.h). May call:
 * src/loop's core, src/ring (the io_uring engine). Not installed.
 *
 * A request's life: vigil_file_submit validates it (state IDLE -> INFLIGHT, counted in
 * f->inflight and loop->active), hands it to the engine, and the engine reports its end
 * with vigil__file_complete() in the loop thread, which runs the user's callback.
 * Ends found outside the loop thread (a worker finished a pread) or at a moment when a
 * callback must not run (submission, cancellation) go through vigil__file_defer(): the
 * request is pushed on the done stack and the doorbell eventfd, which the loop watches,
 * is rung; the doorbell's watcher queues the drain for the turn's completion point,
 * which pops the stack and completes them. Linux AIO rings the same eventfd
 * (IOCB_FLAG_RESFD), so AIO, the thread pool and deferrals share one wake-up source.
 * On io_uring a request's completion is a ring op completion: the same point of the
 * turn.
 */
#ifndef VIGIL_FILE_INT_H
#define VIGIL_FILE_INT_H

#include "loop/loop.h"
#include "ring/ring.h"

#include <sys/uio.h>

#include <linux/aio_abi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { VIGIL__FREQ_IDLE = 0, VIGIL__FREQ_INFLIGHT = 1 };

/* Retries of EAGAIN/EINTR before the error is reported (a non-blocking pipe would
 * otherwise spin the loop for ever). */
#define VIGIL__FILE_RETRIES 64

/* Where a request is (engine-private meaning, kept here so cancellation can read it). */
enum {
    VIGIL__ROUTE_NONE = 0,
    VIGIL__ROUTE_URING,     /* in the ring or the kernel */
    VIGIL__ROUTE_AIO,       /* submitted with io_submit */
    VIGIL__ROUTE_BACKLOG,   /* waiting for an AIO slot (the context was full) */
    VIGIL__ROUTE_QUEUED,    /* in the thread pool's queue, not taken yet */
    VIGIL__ROUTE_WORKER,    /* a worker thread performs it */
    VIGIL__ROUTE_DONE,      /* on the done stack, result in res */
};

/* A request as the library sees it: the layout of vigil_file_req, with names for its
 * private fields (private_b_, private_p_ and private_). Everything the hot path touches -- the
 * caller's fields, state, route, pooled, cancel/retries, the io_uring op, the result --
 * lies in the first cache line (asserted below). */
struct vigil__freq {
    void *data_;
    vigil_file_cb cb_;
    void *buf_;                 /* also: the pool's free-list link while a request is free */
    int64_t offset_;
    uint32_t len_;
    int32_t fd_;
    uint8_t op_, flags_;
    uint16_t buf_index_;
    uint8_t state;              /* VIGIL__FREQ_* (private_b_) */
    uint8_t route;              /* VIGIL__ROUTE_* */
    uint8_t pooled;             /* lives in a pool chunk (found there at free) */
    uint8_t ctl_bits;             /* VIGIL__FREQ_CANCEL | EAGAIN/EINTR retries so far */
    struct vigil__ring_op uop;  /* io_uring completion hook (private_p_) */
    int64_t result_;
    struct statx *stx_;
    int32_t arg_;
    uint32_t mode_;
    uint64_t reserved_[2];
    /* private_: what only slow paths touch */
    vigil_file_req *next;       /* link: thread queue, done stack, AIO backlog */
    int64_t res;                /* result carried from where it ended to the loop */
    vigil_file_req *inext, *iprev; /* io_uring: the caller's requests in the kernel */
    int32_t fixed_fd;                /* the real fd of a VIGIL_FILE_FIXED_FILE request */
    int32_t inl;                     /* STAT: answered in the loop thread (stat_inline.c), on the done stack */
    struct iocb iocb;           /* Linux AIO control block: must outlive the request */
};

#define VIGIL__FREQ_CANCEL 0x80u   /* ctl_bits: vigil_file_cancel asked */
#define VIGIL__FREQ_RETRIES 0x7fu  /* ctl_bits: retries so far */

_Static_assert(sizeof(struct vigil__freq) <= sizeof(vigil_file_req), "vigil_file_req too small");
_Static_assert(sizeof(vigil_file_req) == 256, "vigil_file_req: four cache lines");
_Static_assert(offsetof(struct vigil__freq, state) == offsetof(vigil_file_req, private_b_) &&
                   offsetof(struct vigil__freq, uop) == offsetof(vigil_file_req, private_p_) &&
                   offsetof(struct vigil__freq, result_) == offsetof(vigil_file_req, result) &&
                   offsetof(struct vigil__freq, next) == offsetof(vigil_file_req, private_) &&
                   offsetof(struct vigil__freq, reserved_) == offsetof(vigil_file_req, reserved),
               "struct vigil__freq must mirror vigil_file_req");
_Static_assert(offsetof(vigil_file_req, result) + 8 <= 64, "hot fields beyond one cache line");

static inline struct vigil__freq *vigil__freq(vigil_file_req *r)
{
    return (struct vigil__freq *)(void *)r;
}

/* A request's route read where a pool worker may be changing it (QUEUED -> WORKER, under
 * the pool's lock; engine_threads.c): outside that lock only this atomic read is not a
 * data race. Either threads value means "the pool's": vigil__fthr_cancel decides under
 * the lock. */
static inline uint8_t vigil__freq_route(vigil_file_req *r)
{
    return __atomic_load_n(&vigil__freq(r)->route, __ATOMIC_RELAXED);
}

static inline vigil_file_req *vigil__freq_req(struct vigil__freq *p)
{
    return (vigil_file_req *)(void *)p;
}
/* The fd a request names: its own, or the registered file its index names (fixed_fd, set by
 * vigil__freq_resolve on the aio and threads engines' submission paths). */
static inline int vigil__freq_fd(vigil_file_req *r)
{
    return (r->flags & VIGIL_FILE_FIXED_FILE) ? vigil__freq(r)->fixed_fd : r->fd;
}
static inline bool vigil__freq_cancelled(vigil_file_req *r)
{
    return (vigil__freq(r)->ctl_bits & VIGIL__FREQ_CANCEL) != 0;
}
/* Counts one more retry; false when they are used up. */
static inline bool vigil__freq_retry(vigil_file_req *r)
{
    struct vigil__freq *fr = vigil__freq(r);
    if ((fr->ctl_bits & VIGIL__FREQ_RETRIES) >= VIGIL__FILE_RETRIES)
        return false;
    fr->ctl_bits++;
    return true;
}
/* Takes req out of a FIFO of requests not started (head to tail, linked through next)
 * if it is there; says whether it was. */
static inline bool vigil__freq_unlink(vigil_file_req **head, vigil_file_req **tail, vigil_file_req *req)
{
    vigil_file_req *prev = NULL;
    for (vigil_file_req *r = *head; r; prev = r, r = vigil__freq(r)->next) {
        if (r != req)
            continue;
        if (prev)
            vigil__freq(prev)->next = vigil__freq(req)->next;
        else
            *head = vigil__freq(req)->next;
        if (*tail == req)
            *tail = prev;
        return true;
    }
    return false;
}


/* The kernel's MAX_RW_COUNT: a longer read or write is short anyway. */
#define VIGIL__FILE_MAX_RW 0x7ffff000u

/* The pool's unit of allocation: a refill takes POOL_BATCH requests at once. */
#define VIGIL__POOL_BATCH 32
struct vigil__pool_chunk {
    struct vigil__pool_chunk *next;
    /* Cache-line aligned: a request's hot fields then span two lines, not three. */
    _Alignas(64) vigil_file_req reqs[VIGIL__POOL_BATCH];
};

struct vigil__file;

/* Devices whose file-system type stat_inline.c remembers. */
#define VIGIL__STAT_DEVS 8

struct vigil__file_engine {
    const char *name;
    int (*init)(vigil_loop *loop, struct vigil__file *f);
    /* Completes every request in flight (callbacks run), then releases. */
    void (*fini)(vigil_loop *loop, struct vigil__file *f);
    /* Takes n validated requests (state INFLIGHT already); never refuses one: an error
     * the engine finds is the request's result, delivered later. */
    void (*submit)(vigil_loop *loop, struct vigil__file *f, vigil_file_req *const *reqs, int n);
    int (*cancel)(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req);
    /* Doorbell rang: reap what the engine finished (AIO); may be NULL. */
    void (*reap)(vigil_loop *loop, struct vigil__file *f);
    /* Registered files and buffers: what the engine must do beyond the front's own
     * table (io_uring registers them with the ring); NULL: nothing. */
    int (*register_files)(vigil_loop *loop, const int *fds, unsigned n);
    int (*unregister_files)(vigil_loop *loop);
    int (*register_buffers)(vigil_loop *loop, const struct iovec *iov, unsigned n);
    int (*unregister_buffers)(vigil_loop *loop);
};

extern const struct vigil__file_engine vigil__file_engine_uring;
extern const struct vigil__file_engine vigil__file_engine_aio;
extern const struct vigil__file_engine vigil__file_engine_threads;

/* engine_uring.c: vigil_file_start's one request on the io_uring engine, called
 * directly rather than through submit (the same work as submit with n = 1: the same
 * SQE, the same state). req is validated and in flight; check_fast passes only reads,
 * writes, opens and closes, which always go to the ring. */
void vigil__file_uring_start(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req);

/* The thread pool: the threads engine, and AIO's fallback for what AIO cannot do. */
struct vigil__fthr;

struct vigil__file {
    const struct vigil__file_engine *eng;
    void *engine_state;        /* the engine's own (io_uring's list, AIO's context) */
    unsigned inflight;         /* requests between submit and callback */
    bool freeing;              /* vigil_loop_free is draining: refuse new requests */
    int nthreads;              /* thread pool size asked */
    char reason[96];

    /* the pool: free list of idle requests, and the chunks they live in */
    vigil_file_req *free_list;
    struct vigil__pool_chunk *chunks;

    /* registered files (index -> fd) and whether buffers are registered */
    int *fixed;
    unsigned nfixed;
    bool bufs;

    /* the doorbell: an eventfd the loop watches, rung by workers, by AIO completions
     * and by deferrals; and the done stack it announces (pushed from any thread) */
    int bell_fd;
    vigil_io bell_io;
    struct vigil__deferred bell_later; /* the drain, queued for the completion point */
    _Atomic(vigil_file_req *) done;

    struct vigil__fthr *thr;   /* the thread pool: NULL until first needed */

    /* stat_inline.c: on/off, its counters, and which devices are local file systems */
    uint8_t st_state;
    unsigned st_ndev, st_devnext;
    uint64_t st_total, st_inline; /* stats accepted; of those, answered in the loop thread */
    struct { uint64_t dev; bool local; } st_dev[VIGIL__STAT_DEVS];
};

static inline struct vigil__file *vigil__file_of(vigil_loop *loop)
{
    return (struct vigil__file *)loop->mod[VIGIL__MOD_FILE];
}

/* Translates a fixed-file index for the engines that use plain fds (loop thread; the
 * index was checked at submission and the table cannot change while it is in flight). */
static inline void vigil__freq_resolve(struct vigil__file *f, vigil_file_req *r)
{
    if (r->flags & VIGIL_FILE_FIXED_FILE)
        vigil__freq(r)->fixed_fd = f->fixed[r->fd];
}

/* Ends a request in the loop thread: runs its callback (retries are the caller's).
 * Inline: it is on every request's path. */
static inline void vigil__file_complete(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req, int64_t res)
{
    struct vigil__freq *fr = vigil__freq(req);
    fr->state = VIGIL__FREQ_IDLE;
    fr->route = VIGIL__ROUTE_NONE;
    f->inflight--;
    loop->active--;
    req->result = res;
    /* Counted as a callback: vigil_loop_free from inside it is refused (-EBUSY). */
    loop->in_callback++;
    req->cb(loop, req, res);
    loop->in_callback--;
}

/* done.c */
/* Ends a request later, from any thread: done stack + doorbell. */
void vigil__file_defer(struct vigil__file *f, vigil_file_req *req, int64_t res);
/* The same for a chain first..last (linked by next, results in res): one push, at most
 * one ring. */
void vigil__file_defer_chain(struct vigil__file *f, vigil_file_req *first, vigil_file_req *last);
/* Ends a request from the loop thread at this turn's completion point (done stack, no
 * ring: the drain is queued directly); the doorbell must be set up. */
void vigil__file_done_here(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req, int64_t res);
/* Sets up the doorbell (idempotent). */
int vigil__file_bell_init(vigil_loop *loop, struct vigil__file *f);
/* Completes everything on the done stack (loop thread). Returns how many. */
int vigil__file_drain_done(vigil_loop *loop, struct vigil__file *f);
/* Blocks until the doorbell rings (used while draining at vigil_loop_free). */
void vigil__file_bell_wait(struct vigil__file *f);
/* At vigil_loop_free, after the engine's fini: completes what is left, closes the bell. */
void vigil__file_bell_fini(vigil_loop *loop, struct vigil__file *f);

/* stat_inline.c: answers a STAT that is the only request in flight in the loop thread
 * when the kernel's caches can (the result delivered through the done stack); false:
 * the engine must take it. */
bool vigil__file_stat_inline(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req);
/* For tests: stats accepted, and of those answered in the loop thread. */
void vigil__file_stat_counts(vigil_loop *loop, uint64_t *total, uint64_t *inline_n);

/* engine_threads.c: the thread pool */
int vigil__fthr_init(struct vigil__file *f, int nthreads);
void vigil__fthr_submit(struct vigil__file *f, vigil_file_req *const *reqs, int n);
int vigil__fthr_cancel(struct vigil__file *f, vigil_file_req *req);
/* Refuses queued requests with -ECANCELED, waits for the workers, joins them. */
void vigil__fthr_fini(struct vigil__file *f);
/* Performs one request synchronously (what a worker does); returns the result. */
int64_t vigil__file_perform(vigil_file_req *req);
/* fs_calls.c: the same for the file-system calls (op >= VIGIL_FILE_UNLINK). */
int64_t vigil__file_perform_fs(vigil_file_req *req);
/* Whether a failed request of this op may be tried again after EAGAIN/EINTR (reads,
 * writes and the calls that move data; never a path operation). */
static inline bool vigil__file_op_retries(int op)
{
    return op < VIGIL_FILE_UNLINK || op >= VIGIL_FILE_COPY_RANGE;
}

#endif
