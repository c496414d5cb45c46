/* A stat whose path is not in the kernel's dcache goes to the engine (the loop thread
 * never waits for the disk), gives the right answer, and the next stat of the same
 * path, now cached, is answered in the loop thread.
 *
 * In a private mount namespace of this process (nothing outside it sees the mounts),
 * an ext4 image made with mkfs.ext4 is mounted (a loop device, released at the
 * unmount), files are written, the file system is unmounted and mounted again: none of
 * its names is in the dcache. Each name is then stat'ed twice through vigil: the first
 * must not move the inline counter, the second must; both answers must equal statx(2)'s
 * (taken after, so the oracle does not warm the cache). Names that do not exist too:
 * the first lookup leaves a negative dentry, the second is answered from it (-ENOENT).
 * Skips (77) with the reason when the namespace, mkfs.ext4 or the mount is refused. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ft.h"

#include <limits.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

void vigil__file_stat_counts(vigil_loop *loop, uint64_t *total, uint64_t *inline_n);

static struct {
    int done;
    int64_t res;
} one;
static void on_stat(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    (void)req;
    one.done++;
    one.res = res;
}

static int64_t vstat(vigil_loop *loop, const char *path, int flags, struct statx *stx, uint64_t *inl_delta)
{
    uint64_t t0, i0, t1, i1;
    vigil__file_stat_counts(loop, &t0, &i0);
    vigil_file_req r;
    memset(&r, 0, sizeof r);
    vigil_file_prep_stat(&r, AT_FDCWD, path, flags, STATX_BASIC_STATS, stx, on_stat);
    one.done = 0;
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    ft_run_until(loop, &one.done, 1);
    vigil__file_stat_counts(loop, &t1, &i1);
    CHECK_EQ(t1 - t0, 1);
    *inl_delta = i1 - i0;
    return one.res;
}

static void sh(const char *cmd, const char *what)
{
    int st = system(cmd);
    if (st != 0) {
        char why[512];
        snprintf(why, sizeof why, "uncached stat: %s failed (%s: status %d)", what, cmd, st);
        umount2("mnt", MNT_DETACH);
        vt_skip(why);
    }
}

int main(void)
{
    if (unshare(CLONE_NEWNS) < 0) {
        char why[200];
        snprintf(why, sizeof why, "uncached stat: unshare(CLONE_NEWNS): %s", strerror(errno));
        vt_skip(why);
    }
    /* Nothing mounted here propagates out. */
    CHECK_SYS(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
    if (system("command -v mkfs.ext4 >/dev/null 2>&1") != 0)
        vt_skip("uncached stat: no mkfs.ext4 (e2fsprogs)");

    char top[] = "ft_su_XXXXXX";
    CHECK(mkdtemp(top) != NULL);
    CHECK_SYS(chdir(top));
    int fd = open("img", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    CHECK_SYS(fd);
    CHECK_SYS(ftruncate(fd, 16 << 20));
    close(fd);
    CHECK_SYS(mkdir("mnt", 0755));
    sh("mkfs.ext4 -q -F img >/dev/null 2>&1", "mkfs.ext4");
    sh("mount -o loop img mnt 2>/dev/null", "mounting the image");
    CHECK_SYS(mkdir("mnt/dir", 0755));
    enum { NF = 8 };
    char path[64];
    for (int i = 0; i < NF; i++) {
        snprintf(path, sizeof path, "mnt/dir/f%d", i);
        int f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK_SYS(f);
        CHECK(write(f, path, (size_t)i) == i);
        close(f);
    }
    CHECK_SYS(symlink("dir/f0", "mnt/link"));
    CHECK_SYS(umount("mnt"));
    sh("mount -o loop img mnt 2>/dev/null", "mounting the image again");

    vigil_loop *loop = ft_loop();
    struct { uint64_t flags, mode, resolve; } how = {O_PATH | O_CLOEXEC, 0, 0x20 /* RESOLVE_CACHED */};
    long pfd = syscall(SYS_openat2, AT_FDCWD, "mnt", &how, sizeof how);
    if (pfd < 0 && errno != EAGAIN) {
        umount("mnt");
        vt_skip("uncached stat: this kernel has no openat2 RESOLVE_CACHED (Linux 5.12): the fast path is off");
    }
    if (pfd >= 0)
        close((int)pfd);
    const char *names[NF + 4];
    char buf[NF][32];
    for (int i = 0; i < NF; i++) {
        snprintf(buf[i], sizeof buf[i], "mnt/dir/f%d", i);
        names[i] = buf[i];
    }
    names[NF] = "mnt/link";
    names[NF + 1] = "mnt/dir/nope";
    names[NF + 2] = "mnt/nope/x";
    names[NF + 3] = "mnt/link";  /* again: now cached, but AT_SYMLINK_NOFOLLOW below */
    unsigned firsts = 0, seconds = 0;
    for (int i = 0; i < NF + 4; i++) {
        int flags = i == NF + 3 ? AT_SYMLINK_NOFOLLOW : 0;
        struct statx a, b, c;
        uint64_t d1, d2;
        int64_t r1 = vstat(loop, names[i], flags, &a, &d1);
        int64_t r2 = vstat(loop, names[i], flags, &b, &d2);
        int64_t ro = statx(AT_FDCWD, names[i], flags, STATX_BASIC_STATS, &c) < 0 ? -errno : 0;
        fprintf(stderr, "%s: %lld %lld (oracle %lld), inline %llu then %llu\n", names[i], (long long)r1,
                (long long)r2, (long long)ro, (unsigned long long)d1, (unsigned long long)d2);
        CHECK_EQ(r1, ro);
        CHECK_EQ(r2, ro);
        if (ro == 0) {
            CHECK_EQ(a.stx_ino, c.stx_ino);
            CHECK_EQ(b.stx_ino, c.stx_ino);
            CHECK_EQ(a.stx_size, c.stx_size);
            CHECK_EQ(b.stx_size, c.stx_size);
            CHECK_EQ(a.stx_mode, c.stx_mode);
            CHECK_EQ(b.stx_mode, c.stx_mode);
            CHECK_EQ(b.stx_mtime.tv_nsec, c.stx_mtime.tv_nsec);
        }
        if (i < NF + 3) { /* the first lookup of a name on the fresh mount */
            CHECK_EQ(d1, 0);
            firsts++;
        }
        CHECK_EQ(d2, 1); /* cached now */
        seconds++;
    }
    fprintf(stderr, "uncached stat (engine %s): %u first lookups to the engine, %u second ones inline\n",
            vigil_file_engine(loop), firsts, seconds);
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_SYS(umount("mnt"));
    CHECK_SYS(chdir(".."));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    CHECK_EQ(system(cmd), 0);
    return 0;
}
