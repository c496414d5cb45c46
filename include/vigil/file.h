/* vigil: asynchronous file I/O in the loop.
 *
 * A file request (read, write, readv, writev, fsync, fdatasync, open, close, stat) is
 * started from the loop thread and completed by its callback, in the loop thread. The
 * request struct is the caller's (embed it in your own object) or taken from the loop's
 * request pool, which refills 32 at a time and never frees before vigil_loop_free: in
 * the steady state no request allocates anything.
 *
 * Engines, chosen when a loop first does file I/O (or by vigil_file_setup) and reported
 * by vigil_file_engine():
 *   "uring"    the loop runs the io_uring backend: a turn's file submissions go to the
 *              kernel in the same io_uring_enter as its wait;
 *   "aio"      Linux AIO: io_submit per batch, completions through an eventfd the loop
 *              watches. Meant for O_DIRECT files; a buffered request AIO would perform
 *              synchronously (it refuses RWF_NOWAIT) and open/close/stat go to the
 *              thread pool;
 *   "threads"  a thread pool doing plain pread/pwrite/... calls; works everywhere.
 * The environment variable VIGIL_FILE_ENGINE=uring|aio|threads forces one when the
 * program asks for VIGIL_FILE_ENGINE_AUTO.
 *
 * Results: the callback's res (also stored in req->result) is what the system call
 * would return -- a byte count (a short count is reported as such, never completed
 * behind your back), 0, a new fd for OPEN -- or a negative errno. EAGAIN and EINTR are
 * retried inside vigil. A request refused by vigil itself (negative offset, unknown
 * op, NULL callback, a request already in flight) is refused at submission.
 *
 * vigil_loop_free with requests in flight: what has not reached the kernel or a worker
 * is cancelled, what waits in io_uring is cancelled (a pipe's read), the rest (a regular
 * file's I/O) is waited for; every callback runs once, inside vigil_loop_free, with the
 * result or -ECANCELED (starting a request from it fails with -ECANCELED). After it
 * returns, vigil touches neither the requests nor their buffers. A worker thread blocked
 * in a read of a pipe or socket cannot be interrupted: on the aio and threads engines,
 * such reads must end before the loop is freed.
 */
#ifndef VIGIL_FILE_H
#define VIGIL_FILE_H
/* Included by vigil.h; may also be included on its own. */

#include "vigil/loop.h"

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct statx;

enum vigil_file_engine_kind {
    VIGIL_FILE_ENGINE_AUTO = 0, /* uring when the loop runs io_uring, else aio, else threads */
    VIGIL_FILE_ENGINE_URING = 1,
    VIGIL_FILE_ENGINE_AIO = 2,
    VIGIL_FILE_ENGINE_THREADS = 3,
};

enum vigil_file_op {
    VIGIL_FILE_READ = 1,      /* pread(fd, buf, len, offset) */
    VIGIL_FILE_WRITE = 2,     /* pwrite(fd, buf, len, offset) */
    VIGIL_FILE_READV = 3,     /* preadv(fd, iov, len, offset): len is the iovec count */
    VIGIL_FILE_WRITEV = 4,    /* pwritev(fd, iov, len, offset) */
    VIGIL_FILE_FSYNC = 5,     /* fsync(fd) */
    VIGIL_FILE_FDATASYNC = 6, /* fdatasync(fd) */
    VIGIL_FILE_OPEN = 7,      /* openat(fd, path, arg, mode); res is the new fd */
    VIGIL_FILE_CLOSE = 8,     /* close(fd) */
    VIGIL_FILE_STAT = 9,      /* statx(fd, path, arg, mask, stx) */
};

/* Request flags. */
#define VIGIL_FILE_FIXED_FILE 0x1u /* fd is an index into vigil_file_register_files() */
#define VIGIL_FILE_FIXED_BUF 0x2u  /* buf lies in registered buffer buf_index */

typedef struct vigil_file_req vigil_file_req;

/* res >= 0: the call's result; < 0: a negative errno (-ECANCELED when cancelled). The
 * request is idle when this runs: it may be started again, or returned to the pool. */
typedef void (*vigil_file_cb)(vigil_loop *loop, vigil_file_req *req, int64_t res);

/* A request of the caller's own: zero it (= {0}) before its first use, as any vigil
 * watcher; after its callback it may be prepared and started again. */
struct vigil_file_req {
    /* The first 64 bytes hold everything one I/O touches (the caller's fields, the
     * private state, the result): a request costs one cache line on its hot path. */
    void *data; /* the caller's */
    /* What to do: set with vigil_file_prep_*() or by hand, then vigil_file_start(). */
    vigil_file_cb cb;
    __extension__ union {         /* anonymous (C11; __extension__ for C99 -pedantic) */
        void *buf;                /* READ, WRITE */
        const struct iovec *iov;  /* READV, WRITEV */
        const char *path;         /* OPEN, STAT */
    };
    int64_t offset;               /* file offset, >= 0 (READ..WRITEV); 0 for a pipe or
                                     socket, which reads or writes in stream order */
    uint32_t len;                 /* bytes (READ, WRITE: at most 0x7ffff000, the kernel's
                                     own limit per call), iovec count (READV, WRITEV) */
    int32_t fd;                   /* the file; OPEN/STAT: the directory fd (AT_FDCWD) */
    uint8_t op;                   /* enum vigil_file_op */
    uint8_t flags;                /* VIGIL_FILE_FIXED_* */
    uint16_t buf_index;           /* VIGIL_FILE_FIXED_BUF: which registered buffer */
    uint8_t private_b_[4];           /* private to vigil */
    void *private_p_;                /* private to vigil */
    int64_t result;               /* the callback's res, once it ran */
    /* Less used: */
    struct statx *stx;            /* STAT: the result */
    int32_t arg;                  /* OPEN: open flags; STAT: AT_* flags */
    uint32_t mode;                /* OPEN: creation mode; STAT: STATX_* mask */
    uint64_t reserved[2];
    uint64_t private_[20];           /* private to vigil (the request is 256 bytes) */
};

struct vigil_file_options {
    uint32_t size;     /* sizeof(struct vigil_file_options); set by _init */
    int engine;        /* enum vigil_file_engine_kind */
    int threads;       /* thread pool size; 0: the default (4) */
    uint32_t flags;    /* 0 */
    uint64_t reserved[6];
};

VIGIL_EXPORT void vigil_file_options_init(struct vigil_file_options *opt);

/* Chooses the loop's file engine (opt NULL: AUTO). Optional: the first file call sets up
 * AUTO. -ENOSYS when the engine cannot run here (uring on a loop that does not run
 * io_uring, AIO refused by the kernel), -EBUSY when the loop already has an engine,
 * -EINVAL for bad options. */
VIGIL_EXPORT int vigil_file_setup(vigil_loop *loop, const struct vigil_file_options *opt);

/* "uring", "aio" or "threads" (sets up AUTO if needed); NULL if no engine can run. */
VIGIL_EXPORT const char *vigil_file_engine(vigil_loop *loop);
/* Why this engine, e.g. "loop backend is epoll" (empty when the first choice runs). */
VIGIL_EXPORT const char *vigil_file_engine_reason(vigil_loop *loop);

/* The pool: an idle request (data NULL), or NULL when memory runs out; prepare it with
 * a vigil_file_prep_*() helper. The pool grows 32 requests at a time and gives memory
 * back only at vigil_loop_free. */
VIGIL_EXPORT vigil_file_req *vigil_file_req_get(vigil_loop *loop);
/* Returns a request taken with vigil_file_req_get. A request in flight, or one that is
 * not the pool's, is left alone. */
VIGIL_EXPORT void vigil_file_req_put(vigil_loop *loop, vigil_file_req *req);

/* Starts n prepared requests with as few system calls as the engine allows (one
 * io_submit for AIO; none for io_uring, whose submissions ride the turn's wait). Like
 * io_submit, returns how many were started -- the first k -- or, when the first one is
 * refused, its negative errno: -EINVAL (bad op, negative offset, NULL callback), -EBUSY
 * (already in flight), -EBADF (negative fd, unregistered fixed index), -ENOSYS (no
 * engine), -ECANCELED (the loop is being freed). Errors the kernel finds (EBADF, a misaligned O_DIRECT buffer's EINVAL...)
 * come through the callback. Loop thread only. */
VIGIL_EXPORT int vigil_file_submit(vigil_loop *loop, vigil_file_req *const *reqs, int n);
/* vigil_file_submit(loop, &req, 1) with 0 for success. */
VIGIL_EXPORT int vigil_file_start(vigil_loop *loop, vigil_file_req *req);

/* Cancels a request in flight. 0: its callback will run (in a later dispatch, never
 * inside this call) with -ECANCELED, or with its result if it finished first. -ENOENT
 * if req is not in flight. A request the kernel or a worker thread already performs
 * (a regular file's read cannot be interrupted) completes normally. */
VIGIL_EXPORT int vigil_file_cancel(vigil_loop *loop, vigil_file_req *req);

/* Registered files: afterwards a request with VIGIL_FILE_FIXED_FILE names fds[fd]. On
 * io_uring the kernel keeps the files (no per-request file lookup); the other engines
 * translate the index. -EBUSY if files are registered already (unregister first, with
 * no fixed request in flight). */
VIGIL_EXPORT int vigil_file_register_files(vigil_loop *loop, const int *fds, unsigned n);
VIGIL_EXPORT int vigil_file_unregister_files(vigil_loop *loop);
/* Registered buffers: on io_uring they are pinned once (no per-request page pinning)
 * and VIGIL_FILE_FIXED_BUF requests use READ_FIXED/WRITE_FIXED; elsewhere the flag is
 * accepted and ignored. */
VIGIL_EXPORT int vigil_file_register_buffers(vigil_loop *loop, const struct iovec *iov, unsigned n);
VIGIL_EXPORT int vigil_file_unregister_buffers(vigil_loop *loop);

/* Number of requests in flight on this loop. */
VIGIL_EXPORT unsigned vigil_file_inflight(vigil_loop *loop);

/* Preparation helpers: fill a request's public fields (data is kept). */
static inline void vigil_file__prep(vigil_file_req *r, int op, int fd, vigil_file_cb cb)
{
    /* Only the first cache line (OPEN and STAT set their own fields): a request's hot
     * path touches one line. */
    r->buf = NULL, r->len = 0, r->offset = 0, r->flags = 0, r->buf_index = 0, r->result = 0;
    r->op = (uint8_t)op;
    r->fd = fd;
    r->cb = cb;
}
/* A read or write longer than the kernel's limit per call is clamped to it (and so
 * reported short), as read(2) does. */
static inline uint32_t vigil_file__len(size_t len)
{
    return len > 0x7ffff000u ? 0x7ffff000u : (uint32_t)len;
}
static inline void vigil_file_prep_read(vigil_file_req *r, int fd, void *buf, size_t len, int64_t offset,
                                        vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_READ, fd, cb);
    r->buf = buf, r->len = vigil_file__len(len), r->offset = offset;
}
static inline void vigil_file_prep_write(vigil_file_req *r, int fd, const void *buf, size_t len, int64_t offset,
                                         vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_WRITE, fd, cb);
    r->buf = (void *)buf, r->len = vigil_file__len(len), r->offset = offset;
}
static inline void vigil_file_prep_readv(vigil_file_req *r, int fd, const struct iovec *iov, int iovcnt,
                                         int64_t offset, vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_READV, fd, cb);
    r->iov = iov, r->len = (uint32_t)iovcnt, r->offset = offset;
}
static inline void vigil_file_prep_writev(vigil_file_req *r, int fd, const struct iovec *iov, int iovcnt,
                                          int64_t offset, vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_WRITEV, fd, cb);
    r->iov = iov, r->len = (uint32_t)iovcnt, r->offset = offset;
}
static inline void vigil_file_prep_fsync(vigil_file_req *r, int fd, int datasync, vigil_file_cb cb)
{
    vigil_file__prep(r, datasync ? VIGIL_FILE_FDATASYNC : VIGIL_FILE_FSYNC, fd, cb);
}
static inline void vigil_file_prep_open(vigil_file_req *r, int dirfd, const char *path, int flags, unsigned mode,
                                        vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_OPEN, dirfd, cb);
    r->path = path, r->arg = flags, r->mode = mode;
}
static inline void vigil_file_prep_close(vigil_file_req *r, int fd, vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_CLOSE, fd, cb);
}
static inline void vigil_file_prep_stat(vigil_file_req *r, int dirfd, const char *path, int at_flags,
                                        unsigned mask, struct statx *stx, vigil_file_cb cb)
{
    vigil_file__prep(r, VIGIL_FILE_STAT, dirfd, cb);
    r->path = path, r->arg = at_flags, r->mode = mask, r->stx = stx;
}

#ifdef __cplusplus
}
#endif
#endif
