/* vigil: asynchronous file I/O in the loop.
 *
 * A file request (read, write, readv, writev, fsync, fdatasync, open, close, stat, and
 * the file-system calls: unlink, rename, mkdir, symlink, link, readlink, truncate,
 * fallocate, chmod, chown, utimes, readdir, mkdtemp, copy_file_range, splice, sendfile)
 * is started from the loop thread and completed by its callback, in the loop thread. The
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
struct timespec;

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
    /* File-system calls (the prep helpers below name the fields each one uses). */
    VIGIL_FILE_UNLINK = 10,   /* unlinkat(fd, path, arg): arg AT_REMOVEDIR is rmdir */
    VIGIL_FILE_RENAME = 11,   /* renameat2(fd, path, fd2, path2, arg) */
    VIGIL_FILE_MKDIR = 12,    /* mkdirat(fd, path, mode) */
    VIGIL_FILE_SYMLINK = 13,  /* symlinkat(path, fd, path2): path2 becomes a link to path */
    VIGIL_FILE_LINK = 14,     /* linkat(fd, path, fd2, path2, arg) */
    VIGIL_FILE_READLINK = 15, /* readlinkat(fd, path, buf2, len): res is the length */
    VIGIL_FILE_TRUNCATE = 16, /* truncate(path, offset) */
    VIGIL_FILE_FTRUNCATE = 17,/* ftruncate(fd, offset) */
    VIGIL_FILE_FALLOCATE = 18,/* fallocate(fd, arg, offset, arg64) */
    VIGIL_FILE_CHMOD = 19,    /* fchmodat(fd, path, mode, arg); path NULL: fchmod(fd, mode) */
    VIGIL_FILE_CHOWN = 20,    /* fchownat(fd, path, mode, arg2, arg); path NULL: fchown */
    VIGIL_FILE_UTIMES = 21,   /* utimensat(fd, path, times, arg); path NULL: futimens */
    VIGIL_FILE_READDIR = 22,  /* getdents64(fd, buf, len) until buf is full: res bytes */
    VIGIL_FILE_MKDTEMP = 23,  /* mkdtemp(buf): the template is rewritten in place */
    VIGIL_FILE_COPY_RANGE = 24, /* copy_file_range(fd, &offset, fd2, &arg64, len, 0) */
    VIGIL_FILE_SPLICE = 25,   /* splice(fd, &offset, fd2, &arg64, len, arg) */
    VIGIL_FILE_SENDFILE = 26, /* sendfile(fd2, fd, &offset, len): fd2 is the socket */
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
    __extension__ union {
        struct statx *stx;            /* STAT: the result */
        const char *path2;            /* RENAME, LINK: the new name; SYMLINK: the link */
        void *buf2;                   /* READLINK: where the target goes */
        const struct timespec *times; /* UTIMES: atime, mtime (NULL: now) */
    };
    int32_t arg;                  /* OPEN: open flags; STAT, LINK, CHMOD, CHOWN, UTIMES: AT_*
                                     flags; UNLINK: 0 or AT_REMOVEDIR; RENAME: RENAME_*;
                                     FALLOCATE: its mode; SPLICE: SPLICE_F_* */
    uint32_t mode;                /* OPEN, MKDIR, CHMOD: the mode; STAT: STATX_* mask;
                                     CHOWN: the owner */
    __extension__ union {
        uint64_t reserved[2];
        __extension__ struct {
            int64_t arg64;        /* COPY_RANGE, SPLICE: fd2's offset (-1: its position,
                                     or none for a pipe); FALLOCATE: the length */
            int32_t fd2;          /* RENAME, LINK: the new name's directory; COPY_RANGE,
                                     SPLICE: the output; SENDFILE: the socket */
            uint32_t arg2;        /* CHOWN: the group */
        };
    };
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

/* File-system calls. Each is the system call named in enum vigil_file_op, with its
 * results and its errors (a negative errno: -ENOENT, -EEXIST, -ENOTDIR, -EISDIR,
 * -ENOTEMPTY...). Paths and buffers must stay valid until the callback. Registered
 * files (VIGIL_FILE_FIXED_FILE) are refused (-EINVAL). dirfd may be AT_FDCWD. Which
 * run as io_uring operations on the uring engine and which on the file engine's
 * threads: vigil_file.7. */
static inline void vigil_file__prep_path(vigil_file_req *r, int op, int dirfd, const char *path, vigil_file_cb cb)
{
    vigil_file__prep(r, op, dirfd, cb);
    r->path = path, r->path2 = NULL, r->arg = 0, r->mode = 0, r->arg64 = 0, r->fd2 = -1, r->arg2 = 0;
}
/* unlinkat(dirfd, path, 0) */
static inline void vigil_file_prep_unlink(vigil_file_req *r, int dirfd, const char *path, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_UNLINK, dirfd, path, cb);
}
/* unlinkat(dirfd, path, AT_REMOVEDIR) */
static inline void vigil_file_prep_rmdir(vigil_file_req *r, int dirfd, const char *path, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_UNLINK, dirfd, path, cb);
    r->arg = 0x200; /* AT_REMOVEDIR */
}
/* renameat2(olddirfd, oldpath, newdirfd, newpath, flags): flags 0, RENAME_NOREPLACE,
 * RENAME_EXCHANGE (or RENAME_WHITEOUT) */
static inline void vigil_file_prep_rename(vigil_file_req *r, int olddirfd, const char *oldpath, int newdirfd,
                                          const char *newpath, unsigned flags, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_RENAME, olddirfd, oldpath, cb);
    r->fd2 = newdirfd, r->path2 = newpath, r->arg = (int32_t)flags;
}
/* mkdirat(dirfd, path, mode) */
static inline void vigil_file_prep_mkdir(vigil_file_req *r, int dirfd, const char *path, unsigned mode,
                                         vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_MKDIR, dirfd, path, cb);
    r->mode = mode;
}
/* symlinkat(target, dirfd, linkpath) */
static inline void vigil_file_prep_symlink(vigil_file_req *r, const char *target, int dirfd, const char *linkpath,
                                           vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_SYMLINK, dirfd, target, cb);
    r->path2 = linkpath;
}
/* linkat(olddirfd, oldpath, newdirfd, newpath, flags): flags 0 or AT_SYMLINK_FOLLOW */
static inline void vigil_file_prep_link(vigil_file_req *r, int olddirfd, const char *oldpath, int newdirfd,
                                        const char *newpath, int flags, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_LINK, olddirfd, oldpath, cb);
    r->fd2 = newdirfd, r->path2 = newpath, r->arg = flags;
}
/* readlinkat(dirfd, path, buf, len): res is the target's length (not NUL-terminated;
 * res == len may mean it was cut short, as readlink(2) says) */
static inline void vigil_file_prep_readlink(vigil_file_req *r, int dirfd, const char *path, char *buf, size_t len,
                                            vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_READLINK, dirfd, path, cb);
    r->buf2 = buf, r->len = vigil_file__len(len);
}
/* truncate(path, length) */
static inline void vigil_file_prep_truncate(vigil_file_req *r, const char *path, int64_t length, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_TRUNCATE, -100 /* AT_FDCWD */, path, cb);
    r->offset = length;
}
/* ftruncate(fd, length) */
static inline void vigil_file_prep_ftruncate(vigil_file_req *r, int fd, int64_t length, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_FTRUNCATE, fd, NULL, cb);
    r->offset = length;
}
/* fallocate(fd, mode, offset, len) */
static inline void vigil_file_prep_fallocate(vigil_file_req *r, int fd, int mode, int64_t offset, int64_t len,
                                             vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_FALLOCATE, fd, NULL, cb);
    r->arg = mode, r->offset = offset, r->arg64 = len;
}
/* fchmodat(dirfd, path, mode, flags); path NULL: fchmod(dirfd, mode) */
static inline void vigil_file_prep_chmod(vigil_file_req *r, int dirfd, const char *path, unsigned mode, int flags,
                                         vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_CHMOD, dirfd, path, cb);
    r->mode = mode, r->arg = flags;
}
/* fchownat(dirfd, path, owner, group, flags) ((uid_t)-1 and (gid_t)-1 leave one as it
 * is); path NULL: fchown(dirfd, owner, group) */
static inline void vigil_file_prep_chown(vigil_file_req *r, int dirfd, const char *path, uid_t owner, gid_t group,
                                         int flags, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_CHOWN, dirfd, path, cb);
    r->mode = (uint32_t)owner, r->arg2 = (uint32_t)group, r->arg = flags;
}
/* utimensat(dirfd, path, times, flags) (times NULL: both now; UTIME_NOW, UTIME_OMIT
 * work); path NULL: futimens(dirfd, times) */
static inline void vigil_file_prep_utimes(vigil_file_req *r, int dirfd, const char *path,
                                          const struct timespec *times, int flags, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_UTIMES, dirfd, path, cb);
    r->times = times, r->arg = flags;
}
/* The next entries of the directory open at fd (O_DIRECTORY), as getdents64(2) writes
 * them, into buf (8-byte aligned, as malloc's memory is: the records are): getdents64 is called until buf cannot take another entry or the
 * directory ends. res: the bytes written (walk them with vigil_file_dirent_next), 0 at
 * the end of the directory. offset -1 reads on from fd's position (a fresh fd starts at
 * the beginning); offset >= 0 seeks there first (0: the beginning, or the off of an
 * entry already read). Requests on the same fd must not overlap. A res below len - 280
 * (the largest entry) also says the end was reached (or an error the next request
 * reports): the request that would return 0 may be skipped. */
#define VIGIL_FILE_DIR_NEXT (-1)
static inline void vigil_file_prep_readdir(vigil_file_req *r, int fd, void *buf, size_t len, int64_t offset,
                                           vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_READDIR, fd, NULL, cb);
    r->buf = buf, r->len = vigil_file__len(len), r->offset = offset;
}
/* One entry of a READDIR buffer: Linux's struct linux_dirent64. */
struct vigil_dirent {
    uint64_t ino;
    int64_t off;      /* where the next entry starts (a READDIR offset) */
    uint16_t reclen;  /* this record's size */
    uint8_t type;     /* DT_REG, DT_DIR, DT_LNK... (DT_UNKNOWN: stat it) */
    char name[1];     /* NUL-terminated, as long as reclen allows (a C++-proof
                         flexible array) */
};
/* The entry at *pos of a READDIR buffer holding len bytes (res), and *pos moved past
 * it; NULL at the end (or at a record that does not fit: never from the kernel). */
static inline const struct vigil_dirent *vigil_file_dirent_next(const void *buf, size_t len, size_t *pos)
{
    if (*pos + 20 > len) /* the header (19 bytes) and one byte of name */
        return NULL;
    const struct vigil_dirent *d = (const struct vigil_dirent *)(const void *)((const char *)buf + *pos);
    if (d->reclen < 20 || *pos + d->reclen > len)
        return NULL;
    *pos += d->reclen;
    return d;
}
/* mkdtemp(tmpl): tmpl ends in "XXXXXX", replaced in place; res 0 */
static inline void vigil_file_prep_mkdtemp(vigil_file_req *r, char *tmpl, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_MKDTEMP, -100, NULL, cb);
    r->buf = tmpl;
}
/* copy_file_range(fd_in, &off_in, fd_out, &off_out, len, 0); an offset of -1 uses (and
 * moves) that file's position. res: bytes copied (may be short, 0 at the end). */
static inline void vigil_file_prep_copy_range(vigil_file_req *r, int fd_in, int64_t off_in, int fd_out,
                                              int64_t off_out, size_t len, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_COPY_RANGE, fd_in, NULL, cb);
    r->offset = off_in, r->fd2 = fd_out, r->arg64 = off_out, r->len = vigil_file__len(len);
}
/* splice(fd_in, off_in, fd_out, off_out, len, flags): one end must be a pipe, whose
 * offset is -1 (as splice(2)'s NULL). res: bytes moved. */
static inline void vigil_file_prep_splice(vigil_file_req *r, int fd_in, int64_t off_in, int fd_out, int64_t off_out,
                                          size_t len, unsigned flags, vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_SPLICE, fd_in, NULL, cb);
    r->offset = off_in, r->fd2 = fd_out, r->arg64 = off_out, r->len = vigil_file__len(len), r->arg = (int32_t)flags;
}
/* sendfile(sock, fd, &offset, len): from the file fd at offset to the socket (or any
 * fd) sock. res: bytes sent (may be short). A non-blocking socket that stays full is
 * waited for (poll) a while, then -EAGAIN. */
static inline void vigil_file_prep_sendfile(vigil_file_req *r, int sock, int fd, int64_t offset, size_t len,
                                            vigil_file_cb cb)
{
    vigil_file__prep_path(r, VIGIL_FILE_SENDFILE, fd, NULL, cb);
    r->fd2 = sock, r->offset = offset, r->len = vigil_file__len(len);
}

#ifdef __cplusplus
}
#endif
#endif
