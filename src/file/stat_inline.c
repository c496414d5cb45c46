/* Async file I/O, stat without a hand-off: a VIGIL_FILE_STAT that is the only request
 * of the loop's file engine in flight is answered in the loop thread when the kernel
 * can answer it from its caches, on every engine; the answer is delivered through the
 * done stack at the turn's completion point, as every completion (never inside the
 * starting call). Called by front.c only; calls done.c. Loop thread only.
 *
 * Why. On io_uring IORING_OP_STATX is always handed to an io-wq worker
 * (REQ_F_FORCE_ASYNC), on the other engines to the engine's threads; at one in flight
 * a stat then costs two wake-ups, whose latency the 2-core shared guest sets (20-60k
 * stats/s through any worker against 472k/s for a plain stat(2) in one thread). Doing
 * the stat in the loop thread was rejected because a cold inode would block the loop on
 * disk I/O. These calls never do I/O:
 *
 *  1. openat2(dirfd, path, O_PATH | O_CLOEXEC [| O_NOFOLLOW], RESOLVE_CACHED): the walk
 *     runs in RCU mode and fails with EAGAIN as soon as anything needs I/O or sleeping
 *     revalidation (a component not in the dcache, a network file system's
 *     d_revalidate that must ask its server, an ACL not cached, an automount). O_PATH
 *     calls no ->open. io_uring uses the same flag to try its own opens inline. An
 *     error of the walk (ENOENT from a negative dentry, ENOTDIR, ELOOP, EACCES,
 *     ENAMETOOLONG) is the one statx's walk would meet in the same dcache: the same
 *     lookup with the same revalidation (a negative dentry only reaches ENOENT when its
 *     file system accepted it without asking anyone), so it is the answer; any other
 *     error (EAGAIN, EMFILE...) sends the request to the engine. ENOSYS, EINVAL, E2BIG
 *     (no openat2 or no RESOLVE_CACHED: Linux < 5.12) turn the path off for the loop.
 *  2. statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, mask, stx) on that fd (an
 *     fd-only stat, "" with AT_EMPTY_PATH, skips step 1). Its device is then looked up
 *     in a per-loop table (filled once per device with fstatfs(2)'s f_type): only on
 *     ext2/3/4, xfs, btrfs, f2fs, tmpfs and ramfs is the answer kept. Their ->getattr
 *     reads the in-memory inode and ignores the AT_STATX_* sync flags, so the answer is
 *     the one the worker's statx (with the request's own flags) would give. Elsewhere
 *     (NFS, CIFS, FUSE, Ceph: they honour DONT_SYNC and answer from their cache; 9p
 *     without a cache keeps no dentries, so step 1 fails first) the answer is dropped
 *     and the engine does the stat with the request's flags. overlayfs is left out: its
 *     getattr asks the layers below, which may be anything.
 *
 * Only at one in flight: with other requests in flight the engine's workers run stats
 * in parallel, which wins (64 in flight: ring 608k/s against one core's 472k/s).
 * Requests whose equivalence is not shown here take the engine's route: a NULL path, ""
 * without AT_EMPTY_PATH, AT_* flags other than SYMLINK_NOFOLLOW, EMPTY_PATH,
 * NO_AUTOMOUNT and one sync mode. VIGIL_FILE_STAT_INLINE=0 turns the path off (for
 * measuring); vigil__file_stat_counts() reads how many stats took each route.
 */
#include "file/file_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#ifndef RESOLVE_CACHED
#define RESOLVE_CACHED 0x20
#endif

/* struct open_how, as <linux/openat2.h> has it (not every libc header set has it). */
struct stat_inline_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

enum { ST_UNKNOWN = 0, ST_ON, ST_OFF };

static bool local_type(long t)
{
    switch ((unsigned long)t) {
    case EXT4_SUPER_MAGIC: /* ext2, ext3, ext4 */
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
        return true;
    default:
        return false;
    }
}

/* Whether the device of fd (its statx dev) is a local file system; fstatfs once per
 * device, the table is a small ring (a program stats on a few devices). */
static bool dev_local(struct vigil__file *f, int fd, uint64_t dev)
{
    for (unsigned i = 0; i < f->st_ndev; i++)
        if (f->st_dev[i].dev == dev)
            return f->st_dev[i].local;
    struct statfs sf;
    if (fstatfs(fd, &sf) < 0)
        return false;
    unsigned slot = f->st_ndev < VIGIL__STAT_DEVS ? f->st_ndev++ : (f->st_devnext++ % VIGIL__STAT_DEVS);
    f->st_dev[slot].dev = dev;
    f->st_dev[slot].local = local_type((long)sf.f_type);
    return f->st_dev[slot].local;
}

/* The answer, or 1 when the request must take the engine's route. */
static int64_t try_stat(struct vigil__file *f, vigil_file_req *req)
{
    const int allowed = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE;
    if (!req->path || (req->arg & ~allowed) || (req->arg & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
        return 1;
    int fd = req->fd;
    bool opened = false;
    if (req->path[0] == 0) {
        if (!(req->arg & AT_EMPTY_PATH))
            return 1;
    } else {
        struct stat_inline_how how = {
            .flags = O_PATH | O_CLOEXEC | ((req->arg & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0),
            .resolve = RESOLVE_CACHED,
        };
        long r = syscall(SYS_openat2, req->fd, req->path, &how, sizeof how);
        if (r < 0) {
            switch (errno) {
            case ENOENT:
            case ENOTDIR:
            case ELOOP:
            case EACCES:
            case ENAMETOOLONG:
                return -errno;
            case ENOSYS:
            case EINVAL:
            case E2BIG:
                f->st_state = ST_OFF;
                return 1;
            default:
                return 1;
            }
        }
        fd = (int)r;
        opened = true;
    }
    int64_t res = 1;
    if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, req->mode, req->stx) == 0 &&
        dev_local(f, fd, makedev(req->stx->stx_dev_major, req->stx->stx_dev_minor)))
        res = 0;
    if (opened)
        close(fd);
    return res;
}

bool vigil__file_stat_inline(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    if (__builtin_expect(f->st_state == ST_UNKNOWN, 0)) {
        const char *e = getenv("VIGIL_FILE_STAT_INLINE");
        f->st_state = e && strcmp(e, "0") == 0 ? ST_OFF : ST_ON;
    }
    int64_t res = f->st_state == ST_ON ? try_stat(f, req) : 1;
    if (res == 1 || vigil__file_bell_init(loop, f) < 0)
        return false;
    vigil__freq(req)->inl = 1; /* for vigil_file_cancel: no engine holds it (check_slow clears it) */
    f->st_inline++;
    vigil__file_done_here(loop, f, req, res);
    return true;
}

void vigil__file_stat_counts(vigil_loop *loop, uint64_t *total, uint64_t *inline_n)
{
    struct vigil__file *f = loop ? vigil__file_of(loop) : NULL;
    *total = f ? f->st_total : 0;
    *inline_n = f ? f->st_inline : 0;
}
