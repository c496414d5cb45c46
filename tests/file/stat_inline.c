/* A stat alone in flight is answered in the loop thread when the kernel's dcache can
 * (src/file/stat_inline.c); these checks show its answers are the kernel's own.
 *
 * (Names never leave the tree: the build folder's own times change as other tests run.)
 * 1. Randomized against the oracle: a tree of files, directories and symlinks (to a
 *    file, to a directory, absolute, dangling, a two-link loop, a self-loop), names that
 *    do not exist, paths through a file (ENOTDIR), "..", trailing slashes; relative to
 *    AT_FDCWD, to the tree's dirfd, to a subdirectory's dirfd, and absolute; with and
 *    without AT_SYMLINK_NOFOLLOW; fd-only stats ("" + AT_EMPTY_PATH). Each stat, one at
 *    a time, through vigil and then through statx(2) directly: the same error, or the
 *    same stable fields. The inline counter must have moved (this build tree is on a
 *    local file system whose dentries the tree's creation cached), so the test cannot
 *    pass with the fast path never taken; with VIGIL_FILE_STAT_INLINE=0 it must not.
 * 2. Delivery: the callback never runs inside vigil_file_start; a cancelled inline stat
 *    ends once; vigil_loop_free with one pending runs its callback.
 * 3. 64 in flight: every stat goes to the engine (the counter does not move).
 * Seedable: VIGIL_TEST_SEED=n. */
#include "ft.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#include <sys/vfs.h>
#include <time.h>

#include <linux/magic.h>

void vigil__file_stat_counts(vigil_loop *loop, uint64_t *total, uint64_t *inline_n);

static uint64_t seed, rng;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static int in_start; /* set around vigil_file_start: a callback must not see it */
struct one {
    int done;
    int64_t res;
};
static void on_stat(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    CHECK(!in_start);
    CHECK_EQ(req->result, res);
    struct one *o = req->data;
    o->done++;
    o->res = res;
}

static int64_t vstat(vigil_loop *loop, int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
    vigil_file_req *r = vigil_file_req_get(loop);
    CHECK(r != NULL);
    struct one o = {0, 0};
    vigil_file_prep_stat(r, dirfd, path, flags, mask, stx, on_stat);
    r->data = &o;
    in_start = 1;
    CHECK_EQ(vigil_file_start(loop, r), 0);
    in_start = 0;
    CHECK_EQ(o.done, 0);
    ft_run_until(loop, &o.done, 1);
    CHECK_EQ(o.done, 1);
    vigil_file_req_put(loop, r);
    return o.res;
}

/* The 64-in-flight run: each callback starts its request again until TOTAL64 started. */
enum { N64 = 64, TOTAL64 = 640 };
static vigil_file_req rq64[N64];
static struct statx sx64[N64];
static int started64, done64;
static void on_stat64(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    CHECK_EQ(res, 0);
    CHECK(req->stx->stx_mask & STATX_SIZE);
    done64++;
    if (started64 < TOTAL64) {
        started64++;
        CHECK_EQ(vigil_file_start(loop, req), 0);
    }
}

#define SAME(field)                                                                                          \
    do {                                                                                                     \
        if (a->field != b->field) {                                                                          \
            fprintf(stderr, "stat_inline (seed %llu): %s (dirfd %d flags %#x): " #field " %llu vs %llu\n",   \
                    (unsigned long long)seed, what, dirfd, flags, (unsigned long long)a->field,              \
                    (unsigned long long)b->field);                                                           \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static void same(const struct statx *a, const struct statx *b, const char *what, int dirfd, int flags)
{
    SAME(stx_mask);
    SAME(stx_mode);
    SAME(stx_ino);
    SAME(stx_nlink);
    SAME(stx_uid);
    SAME(stx_gid);
    SAME(stx_size);
    SAME(stx_blocks);
    SAME(stx_blksize);
    SAME(stx_attributes);
    SAME(stx_dev_major);
    SAME(stx_dev_minor);
    SAME(stx_rdev_major);
    SAME(stx_rdev_minor);
    SAME(stx_mtime.tv_sec);
    SAME(stx_mtime.tv_nsec);
    SAME(stx_ctime.tv_sec);
    SAME(stx_ctime.tv_nsec);
    if (a->stx_mask & STATX_BTIME) {
        SAME(stx_btime.tv_sec);
        SAME(stx_btime.tv_nsec);
    }
}

static const char *const names[] = {
    "f0", "f1", "f2", "d0", "d1", "d0/g0", "d0/g1", "d0/e", "d1/h", "sf", "sd", "sd/g0", "sabs", "sdang",
    "sloop1", "sloop2", "sself", "schain", "nope", "d0/nope", "nope/x", "f0/x", "f0/", "d0/", "sd/",
    "sf/", "sdang/", "d0/../f1", "d0/e/..", ".", "d0/g0/../g1", "schain/", "sloop1/x",
    "d0/e/f", "sd/nope",
};

int main(void)
{
    const char *s = getenv("VIGIL_TEST_SEED");
    seed = s && *s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    rng = seed ? seed : 1;
    fprintf(stderr, "stat_inline: seed %llu (VIGIL_TEST_SEED=%llu reruns it)\n", (unsigned long long)seed,
            (unsigned long long)seed);

    /* The tree, in the build tree's folder. */
    char top[] = "ft_si_XXXXXX";
    CHECK(mkdtemp(top) != NULL);
    char abs_top[PATH_MAX];
    CHECK(realpath(top, abs_top) != NULL);
    int tfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK_SYS(tfd);
    CHECK_SYS(mkdirat(tfd, "d0", 0755));
    CHECK_SYS(mkdirat(tfd, "d1", 0700));
    CHECK_SYS(mkdirat(tfd, "d0/e", 0750));
    const char *files[] = {"f0", "f1", "f2", "d0/g0", "d0/g1", "d1/h"};
    for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
        int fd = openat(tfd, files[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600 + i);
        CHECK_SYS(fd);
        char buf[5000];
        memset(buf, 'x', sizeof buf);
        CHECK(write(fd, buf, 1000 * i) == (ssize_t)(1000 * i));
        close(fd);
    }
    char target[PATH_MAX + 8];
    snprintf(target, sizeof target, "%s/f2", abs_top);
    CHECK_SYS(symlinkat("f0", tfd, "sf"));
    CHECK_SYS(symlinkat("d0", tfd, "sd"));
    CHECK_SYS(symlinkat(target, tfd, "sabs"));
    CHECK_SYS(symlinkat("gone", tfd, "sdang"));
    CHECK_SYS(symlinkat("sloop2", tfd, "sloop1"));
    CHECK_SYS(symlinkat("sloop1", tfd, "sloop2"));
    CHECK_SYS(symlinkat("sself", tfd, "sself"));
    CHECK_SYS(symlinkat("sd", tfd, "schain"));
    int d0fd = openat(tfd, "d0", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK_SYS(d0fd);
    int f1fd = openat(tfd, "f1", O_RDONLY | O_CLOEXEC);
    CHECK_SYS(f1fd);
    CHECK_SYS(chdir(top)); /* AT_FDCWD paths are the tree's */

    /* Does this kernel and file system allow the fast path? (Both are needed for the
     * counter check; the comparisons run either way.) */
    struct { uint64_t flags, mode, resolve; } how = {O_PATH | O_CLOEXEC, 0, 0x20 /* RESOLVE_CACHED */};
    long pfd = syscall(SYS_openat2, tfd, "f0", &how, sizeof how);
    bool kernel_ok = pfd >= 0;
    if (pfd >= 0)
        close((int)pfd);
    struct statfs sf;
    CHECK_SYS(fstatfs(tfd, &sf));
    unsigned long t = (unsigned long)sf.f_type;
    bool fs_ok = t == EXT4_SUPER_MAGIC || t == XFS_SUPER_MAGIC || t == BTRFS_SUPER_MAGIC || t == TMPFS_MAGIC ||
                 t == F2FS_SUPER_MAGIC || t == RAMFS_MAGIC;

    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            setenv("VIGIL_FILE_STAT_INLINE", "0", 1); /* read when the loop's first stat starts */
        vigil_loop *loop = ft_loop();
        for (int it = 0; it < 1500; it++) {
            const char *name = names[rnd(sizeof names / sizeof names[0])];
            char path[PATH_MAX + 64];
            int dirfd, how_ = (int)rnd(5);
            int flags = rnd(2) ? AT_SYMLINK_NOFOLLOW : 0;
            if (rnd(8) == 0)
                flags |= AT_STATX_FORCE_SYNC;
            if (rnd(8) == 0)
                flags |= AT_NO_AUTOMOUNT;
            unsigned mask = rnd(2) ? STATX_BASIC_STATS : STATX_BASIC_STATS | STATX_BTIME;
            switch (how_) {
            case 0: dirfd = AT_FDCWD; snprintf(path, sizeof path, "%s", name); break;
            case 1: dirfd = tfd; snprintf(path, sizeof path, "%s", name); break;
            case 2: dirfd = d0fd; snprintf(path, sizeof path, "../%s", name); break;
            case 3: dirfd = -1; snprintf(path, sizeof path, "%s/%s", abs_top, name); break;
            default: /* fd-only */
                dirfd = rnd(2) ? f1fd : d0fd;
                path[0] = 0;
                flags |= rnd(4) ? AT_EMPTY_PATH : 0; /* without it: ENOENT */
                break;
            }
            struct statx a, b;
            memset(&a, 0xa5, sizeof a);
            memset(&b, 0x5a, sizeof b);
            int64_t rv = vstat(loop, dirfd, path, flags, mask, &a);
            int64_t ro = statx(dirfd, path, flags, mask, &b) < 0 ? -errno : 0;
            if (rv != ro) {
                fprintf(stderr, "stat_inline (seed %llu): %s (dirfd %d flags %#x): vigil %lld, statx %lld\n",
                        (unsigned long long)seed, path, dirfd, flags, (long long)rv, (long long)ro);
                return 1;
            }
            if (rv == 0)
                same(&a, &b, path, dirfd, flags);
        }
        uint64_t total, inl;
        vigil__file_stat_counts(loop, &total, &inl);
        fprintf(stderr, "stat_inline: pass %d engine %s: %llu stats, %llu in the loop thread\n", pass,
                vigil_file_engine(loop), (unsigned long long)total, (unsigned long long)inl);
        CHECK_EQ(total, 1500);
        if (pass == 1)
            CHECK_EQ(inl, 0);
        else if (kernel_ok && fs_ok)
            CHECK(inl >= 1000); /* nearly all: everything here is cached */

        if (pass == 0) {
            /* Delivery: cancel an inline stat, then free the loop with one pending. */
            struct statx a;
            struct one o = {0, 0};
            vigil_file_req r;
            memset(&r, 0, sizeof r);
            vigil_file_prep_stat(&r, tfd, "f0", 0, STATX_BASIC_STATS, &a, on_stat);
            r.data = &o;
            in_start = 1;
            CHECK_EQ(vigil_file_start(loop, &r), 0);
            in_start = 0;
            CHECK_EQ(vigil_file_cancel(loop, &r), 0);
            CHECK_EQ(vigil_file_cancel(loop, &r), 0);
            ft_run_until(loop, &o.done, 1);
            CHECK(o.res == 0 || o.res == -ECANCELED);
            for (int i = 0; i < 3; i++)
                CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
            CHECK_EQ(o.done, 1);

            /* 64 in flight, kept there by the callbacks: all to the engine. */
            uint64_t t0, i0, t1, i1;
            vigil__file_stat_counts(loop, &t0, &i0);
            vigil_file_req *batch[N64];
            for (int i = 0; i < N64; i++) {
                memset(&rq64[i], 0, sizeof rq64[i]);
                vigil_file_prep_stat(&rq64[i], tfd, files[i % 6], 0, STATX_BASIC_STATS, &sx64[i], on_stat64);
                batch[i] = &rq64[i];
            }
            started64 = N64;
            in_start = 1;
            CHECK_EQ(vigil_file_submit(loop, batch, N64), N64);
            in_start = 0;
            ft_run_until(loop, &done64, TOTAL64);
            CHECK_EQ(vigil_file_inflight(loop), 0);
            vigil__file_stat_counts(loop, &t1, &i1);
            CHECK_EQ(t1 - t0, TOTAL64);
            CHECK_EQ(i1 - i0, 0);

            o.done = 0;
            vigil_file_prep_stat(&r, tfd, "f0", 0, STATX_BASIC_STATS, &a, on_stat);
            r.data = &o;
            CHECK_EQ(vigil_file_start(loop, &r), 0);
            CHECK_EQ(vigil_loop_free(loop), 0);
            CHECK_EQ(o.done, 1);
            CHECK_EQ(o.res, 0);
        } else {
            CHECK_EQ(vigil_loop_free(loop), 0);
        }
    }
    close(f1fd);
    close(d0fd);
    close(tfd);
    CHECK_SYS(chdir(".."));
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", abs_top);
    CHECK_EQ(system(cmd), 0);
    return 0;
}
