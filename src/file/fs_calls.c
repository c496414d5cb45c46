/* Async file I/O, the file-system calls as a thread performs them: unlink, rename,
 * mkdir, symlink, link, readlink, truncate, ftruncate, fallocate, chmod, chown, utimes,
 * readdir (getdents64 into the caller's buffer), mkdtemp, copy_file_range, splice and
 * sendfile. The thread pool (engine_threads.c) calls vigil__file_perform_fs for every op
 * from VIGIL_FILE_UNLINK on, on every engine that sends the op to threads (all of them
 * on the threads and aio engines; on the uring engine those its route table keeps off
 * the ring, engine_uring.c). May call: the C library. Calls nothing above it.
 *
 * Results are the system call's: its return value or -errno. Only the calls that move
 * data (copy_file_range, splice, sendfile) retry EAGAIN and EINTR, as the reads and
 * writes do: a path operation is not repeated (a mkdir retried after EINTR could say
 * EEXIST about its own first attempt).
 */
#include "file/file_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The public entry is Linux's struct linux_dirent64, byte for byte. */
_Static_assert(offsetof(struct vigil_dirent, ino) == 0 && offsetof(struct vigil_dirent, off) == 8 &&
                   offsetof(struct vigil_dirent, reclen) == 16 && offsetof(struct vigil_dirent, type) == 18 &&
                   offsetof(struct vigil_dirent, name) == 19,
               "struct vigil_dirent must be struct linux_dirent64");

/* The largest record getdents64 writes: 19 bytes of header, a 255-byte name and its
 * NUL, rounded up to 8. */
#define DIRENT_MAX 280

static int64_t readdir_fill(vigil_file_req *req)
{
    int fd = req->fd;
    if (req->offset != VIGIL_FILE_DIR_NEXT && lseek(fd, (off_t)req->offset, SEEK_SET) < 0)
        return -errno;
    char *buf = req->buf;
    size_t len = req->len, got = 0;
    /* Fill the buffer: one getdents64 stops at the filesystem's own batch (ext4: a
     * hash block), the caller asked for as much as fits. */
    do {
        long n = syscall(SYS_getdents64, fd, buf + got, len - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (got)
                break; /* what was read stands; the error comes again on the next call */
            return -errno;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    } while (len - got >= DIRENT_MAX);
    return (int64_t)got;
}

/* EAGAIN from a call that moves data: wait (a worker may block) until the ends are
 * ready, a bounded while; false when the retries are used up. */
static bool wait_ready(vigil_file_req *req, int tries)
{
    if (tries >= VIGIL__FILE_RETRIES)
        return false;
    struct pollfd p[2] = {{.fd = req->fd, .events = POLLIN}, {.fd = req->fd2, .events = POLLOUT}};
    /* A regular file polls ready at once; a socket or pipe waits for room or data. */
    int r = poll(p, 2, 100);
    if (r < 0 && errno != EINTR)
        return false;
    return true;
}

int64_t vigil__file_perform_fs(vigil_file_req *req)
{
    int fd = req->fd;
    for (int tries = 0;; tries++) {
        long r;
        switch (req->op) {
        case VIGIL_FILE_UNLINK: r = unlinkat(fd, req->path, req->arg); break;
        case VIGIL_FILE_RENAME:
            /* The system call: glibc's renameat2 wrapper is younger than some libcs. */
            r = syscall(SYS_renameat2, fd, req->path, req->fd2, req->path2, (unsigned)req->arg);
            break;
        case VIGIL_FILE_MKDIR: r = mkdirat(fd, req->path, (mode_t)req->mode); break;
        case VIGIL_FILE_SYMLINK: r = symlinkat(req->path, fd, req->path2); break;
        case VIGIL_FILE_LINK: r = linkat(fd, req->path, req->fd2, req->path2, req->arg); break;
        case VIGIL_FILE_READLINK: r = readlinkat(fd, req->path, req->buf2, req->len); break;
        case VIGIL_FILE_TRUNCATE: r = truncate(req->path, (off_t)req->offset); break;
        case VIGIL_FILE_FTRUNCATE: r = ftruncate(fd, (off_t)req->offset); break;
        case VIGIL_FILE_FALLOCATE: r = fallocate(fd, req->arg, (off_t)req->offset, (off_t)req->arg64); break;
        case VIGIL_FILE_CHMOD:
            r = req->path ? fchmodat(fd, req->path, (mode_t)req->mode, req->arg) : fchmod(fd, (mode_t)req->mode);
            break;
        case VIGIL_FILE_CHOWN:
            r = req->path ? fchownat(fd, req->path, (uid_t)req->mode, (gid_t)req->arg2, req->arg)
                          : fchown(fd, (uid_t)req->mode, (gid_t)req->arg2);
            break;
        case VIGIL_FILE_UTIMES:
            /* futimens is utimensat(fd, NULL, ...), which glibc's utimensat refuses */
            r = req->path ? utimensat(fd, req->path, req->times, req->arg) : futimens(fd, req->times);
            break;
        case VIGIL_FILE_READDIR: return readdir_fill(req);
        case VIGIL_FILE_MKDTEMP:
            if (!req->buf)
                return -EFAULT; /* glibc's mkdtemp would crash on it */
            r = mkdtemp(req->buf) ? 0 : -1;
            break;
        case VIGIL_FILE_COPY_RANGE: {
            loff_t in = req->offset, out = req->arg64;
            r = copy_file_range(fd, req->offset == -1 ? NULL : &in, req->fd2, req->arg64 == -1 ? NULL : &out,
                                req->len, 0);
            break;
        }
        case VIGIL_FILE_SPLICE: {
            loff_t in = req->offset, out = req->arg64;
            r = splice(fd, req->offset == -1 ? NULL : &in, req->fd2, req->arg64 == -1 ? NULL : &out, req->len,
                       (unsigned)req->arg);
            break;
        }
        case VIGIL_FILE_SENDFILE: {
            off_t off = (off_t)req->offset;
            r = sendfile(req->fd2, fd, &off, req->len);
            break;
        }
        default: return -EINVAL;
        }
        if (r >= 0)
            return r;
        int e = errno;
        bool moves_data = req->op >= VIGIL_FILE_COPY_RANGE;
        if (!moves_data || (e != EINTR && e != EAGAIN))
            return -e;
        if (e == EAGAIN ? !wait_ready(req, tries) : tries >= VIGIL__FILE_RETRIES)
            return -e;
    }
}
