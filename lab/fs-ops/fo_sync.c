/* fs-ops, system "kernel", case "sync": the plain system calls in one thread, one
 * operation after the other (inflight 1 only): the floor a loop's hand-offs add to. */
#include "fo.h"

static char dbuf[FO_DIRBUF];

static long one(struct fo *fo, int s, int i)
{
    int fd;
    struct statx stx;
    switch (fo->op) {
    case FO_CREATE:
    case FO_READ:
        fd = open(fo->f[i], fo->op == FO_CREATE ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC,
                  0644);
        if (fd < 0)
            return -errno;
        if ((fo->op == FO_CREATE ? pwrite(fd, fo->wbuf, FO_BS, 0) : pread(fd, fo->rbuf[s], FO_BS, 0)) != FO_BS)
            return -EIO;
        return close(fd) < 0 ? -errno : 0;
    case FO_STAT: return statx(AT_FDCWD, fo->f[i], 0, STATX_BASIC_STATS, &stx) < 0 ? -errno : 0;
    case FO_RENAME: return rename(fo_src(fo, i), fo_dst(fo, i)) < 0 ? -errno : 0;
    case FO_UNLINK: return unlink(fo->f[i]) < 0 ? -errno : 0;
    case FO_READDIR: {
        fd = open(fo->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        long n;
        while ((n = syscall(SYS_getdents64, fd, dbuf, sizeof dbuf)) > 0)
            fo->entries += fo_count_dirents(dbuf, n);
        close(fd);
        return n < 0 ? -errno : 0;
    }
    case FO_MKDIR: return mkdir(fo->g[i], 0755) < 0 ? -errno : 0;
    case FO_SYMLINK: return symlink("target", fo->g[i]) < 0 ? -errno : 0;
    case FO_LINK: return link(fo->f[i], fo->g[i]) < 0 ? -errno : 0;
    case FO_FTRUNCATE: return ftruncate(fo->fds[s], (i & 1) ? 8192 : 0) < 0 ? -errno : 0;
    case FO_FALLOCATE: return fallocate(fo->fds[s], 0, (off_t)(i % 16) * 4096, 4096) < 0 ? -errno : 0;
    }
    return -EINVAL;
}

static void sys_start(struct fo *fo, int s, int i)
{
    fo_done(fo, s, one(fo, s, i));
}

static void sys_wait(struct fo *fo)
{
    (void)fo;
}

static void sys_init(struct fo *fo)
{
    fo->cas = "sync";
}

int main(int argc, char **argv)
{
    static struct fo fo;
    fo.system = "kernel";
    static const struct fo_sys sys = {sys_init, sys_start, sys_wait, NULL};
    return fo_main(argc, argv, &fo, &sys);
}
