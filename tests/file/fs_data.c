/* The calls on a file's size, attributes and data -- truncate, ftruncate, fallocate,
 * chmod, chown, utimes, readdir, copy_file_range, splice, sendfile -- do what the system
 * call does (checked with fstat, read and the directory's own listing) and fail as it
 * fails (ENOENT, EISDIR, EINVAL, ENOTDIR, EBADF); readdir reads a directory of 300
 * entries in many small batches, and again from an entry's offset. */
#include "ft.h"

#include <dirent.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>

static vigil_loop *loop;
static int dfd;

static int64_t run(vigil_file_req *r)
{
    return ft_start_wait(loop, r);
}

static off_t size_of(int fd)
{
    struct stat st;
    CHECK_SYS(fstat(fd, &st));
    return st.st_size;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

#define NDIR 300

int main(void)
{
    loop = ft_loop();
    char dir[] = "ft_data_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK_SYS(dfd);
    vigil_file_req r = {0};
    int fd = openat(dfd, "f", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    CHECK_SYS(fd);

    /* ftruncate, truncate */
    vigil_file_prep_ftruncate(&r, fd, 10000, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(size_of(fd), 10000);
    vigil_file_prep_ftruncate(&r, fd, -1, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL);
    int rdonly = openat(dfd, "f", O_RDONLY | O_CLOEXEC);
    CHECK_SYS(rdonly);
    vigil_file_prep_ftruncate(&r, rdonly, 0, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL); /* not open for writing */
    vigil_file_prep_ftruncate(&r, -1, 0, ft_on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF); /* refused at submission */
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    vigil_file_prep_truncate(&r, path, 5, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(size_of(fd), 5);
    vigil_file_prep_truncate(&r, dir, 0, ft_on_done);
    CHECK_EQ(run(&r), -EISDIR);
    vigil_file_prep_truncate(&r, "ft_no_such_file", 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);

    /* fallocate */
    vigil_file_prep_fallocate(&r, fd, 0, 0, 1 << 20, ft_on_done);
    int64_t fa = run(&r);
    if (fa == -EOPNOTSUPP) {
        fprintf(stderr, "note: this filesystem has no fallocate; its error is the call's\n");
    } else {
        CHECK_EQ(fa, 0);
        CHECK_EQ(size_of(fd), 1 << 20);
    }
    vigil_file_prep_fallocate(&r, fd, 0, 0, 0, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL); /* a zero length */
    vigil_file_prep_fallocate(&r, rdonly, 0, 0, 4096, ft_on_done);
    CHECK_EQ(run(&r), -EBADF); /* not open for writing */

    /* chmod, chown, utimes */
    struct stat st;
    vigil_file_prep_chmod(&r, dfd, "f", 0640, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_SYS(fstat(fd, &st));
    CHECK_EQ(st.st_mode & 07777, 0640);
    vigil_file_prep_chmod(&r, fd, NULL, 0600, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_SYS(fstat(fd, &st));
    CHECK_EQ(st.st_mode & 07777, 0600);
    vigil_file_prep_chmod(&r, dfd, "missing", 0600, 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    vigil_file_prep_chown(&r, dfd, "f", getuid(), getgid(), 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    vigil_file_prep_chown(&r, fd, NULL, (uid_t)-1, (gid_t)-1, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    vigil_file_prep_chown(&r, dfd, "missing", getuid(), getgid(), 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    if (geteuid() != 0) {
        vigil_file_prep_chown(&r, dfd, "f", 0, 0, 0, ft_on_done);
        CHECK_EQ(run(&r), -EPERM);
    }
    struct timespec ts[2] = {{1000, 5}, {2000, 7}};
    vigil_file_prep_utimes(&r, dfd, "f", ts, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_SYS(fstat(fd, &st));
    CHECK(st.st_atim.tv_sec == 1000 && st.st_mtim.tv_sec == 2000 && st.st_mtim.tv_nsec == 7);
    struct timespec omit[2] = {{0, UTIME_OMIT}, {3000, 0}};
    vigil_file_prep_utimes(&r, fd, NULL, omit, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_SYS(fstat(fd, &st));
    CHECK(st.st_atim.tv_sec == 1000 && st.st_mtim.tv_sec == 3000);
    vigil_file_prep_utimes(&r, fd, NULL, NULL, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_SYS(fstat(fd, &st));
    CHECK(st.st_mtim.tv_sec > 3000); /* now */
    vigil_file_prep_utimes(&r, dfd, "missing", NULL, 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);

    /* readdir: 300 entries, batches of at most 1 KiB */
    CHECK_SYS(mkdirat(dfd, "many", 0755));
    int mfd = openat(dfd, "many", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK_SYS(mfd);
    for (int i = 0; i < NDIR; i++) {
        char n[32];
        snprintf(n, sizeof n, "entry-%03d", i);
        if (i % 3 == 0)
            CHECK_SYS(mkdirat(mfd, n, 0755));
        else
            close(openat(mfd, n, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    }
    static char seen[NDIR];
    char dbuf[1024];
    int batches = 0, dots = 0, count = 0;
    int64_t second_off = -1;
    for (int64_t off = 0;; off = VIGIL_FILE_DIR_NEXT) {
        vigil_file_prep_readdir(&r, mfd, dbuf, sizeof dbuf, off, ft_on_done);
        int64_t n = run(&r);
        CHECK(n >= 0 && n <= (int64_t)sizeof dbuf);
        if (n == 0)
            break;
        batches++;
        size_t pos = 0;
        const struct vigil_dirent *d;
        while ((d = vigil_file_dirent_next(dbuf, (size_t)n, &pos))) {
            if (count++ == 1)
                second_off = d->off; /* where the third entry starts */
            if (!strcmp(d->name, ".") || !strcmp(d->name, "..")) {
                CHECK(d->type == DT_DIR || d->type == DT_UNKNOWN);
                dots++;
                continue;
            }
            int i;
            CHECK(sscanf(d->name, "entry-%d", &i) == 1 && i >= 0 && i < NDIR);
            CHECK(!seen[i]);
            seen[i] = 1;
            CHECK(d->type == DT_UNKNOWN || d->type == (i % 3 == 0 ? DT_DIR : DT_REG));
        }
        CHECK_EQ(pos, (size_t)n); /* whole records only */
    }
    CHECK_EQ(dots, 2);
    CHECK_EQ(count, NDIR + 2);
    for (int i = 0; i < NDIR; i++)
        CHECK(seen[i]);
    CHECK(batches >= 300 * 24 / 1024); /* many batches, each as full as it could be */
    /* again from the third entry: the rest, and only the rest */
    static char big[64 << 10];
    vigil_file_prep_readdir(&r, mfd, big, sizeof big, second_off, ft_on_done);
    int64_t n = run(&r);
    CHECK(n > 0);
    size_t pos = 0;
    int rest = 0;
    while (vigil_file_dirent_next(big, (size_t)n, &pos))
        rest++;
    CHECK_EQ(rest, NDIR + 2 - 2);
    vigil_file_prep_readdir(&r, mfd, big, sizeof big, VIGIL_FILE_DIR_NEXT, ft_on_done);
    CHECK_EQ(run(&r), 0);
    vigil_file_prep_readdir(&r, mfd, dbuf, 8, 0, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL); /* no room for one entry */
    vigil_file_prep_readdir(&r, fd, big, sizeof big, 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOTDIR);
    for (int i = 0; i < NDIR; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "entry-%03d", i);
        CHECK_SYS(unlinkat(mfd, nm, i % 3 == 0 ? AT_REMOVEDIR : 0));
    }
    close(mfd);
    CHECK_SYS(unlinkat(dfd, "many", AT_REMOVEDIR));

    /* copy_file_range */
    enum { N = 100000 };
    static unsigned char src[N], got[N];
    fill(src, N, 7);
    CHECK_SYS(ftruncate(fd, 0));
    CHECK_EQ(pwrite(fd, src, N, 0), N);
    int out = openat(dfd, "copy", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    CHECK_SYS(out);
    int64_t done = 0;
    while (done < N) {
        vigil_file_prep_copy_range(&r, fd, done, out, done + 10, (size_t)(N - done), ft_on_done);
        int64_t k = run(&r);
        CHECK(k > 0);
        done += k;
    }
    CHECK_EQ(pread(out, got, N, 10), N);
    CHECK(memcmp(src, got, N) == 0);
    CHECK_SYS(lseek(fd, 100, SEEK_SET));
    CHECK_SYS(lseek(out, 0, SEEK_SET));
    vigil_file_prep_copy_range(&r, fd, -1, out, -1, 50, ft_on_done); /* the files' positions */
    CHECK_EQ(run(&r), 50);
    CHECK_EQ(lseek(fd, 0, SEEK_CUR), 150);
    CHECK_EQ(lseek(out, 0, SEEK_CUR), 50);
    CHECK_EQ(pread(out, got, 50, 0), 50);
    CHECK(memcmp(src + 100, got, 50) == 0);
    vigil_file_prep_copy_range(&r, dfd, 0, out, 0, 10, ft_on_done);
    CHECK_EQ(run(&r), -EISDIR);

    /* splice: file -> pipe -> file */
    int p[2];
    CHECK_SYS(pipe2(p, O_CLOEXEC));
    vigil_file_prep_splice(&r, fd, 4096, p[1], -1, 4096, 0, ft_on_done);
    CHECK_EQ(run(&r), 4096);
    vigil_file_prep_splice(&r, p[0], -1, out, 200000, 4096, 0, ft_on_done);
    CHECK_EQ(run(&r), 4096);
    CHECK_EQ(pread(out, got, 4096, 200000), 4096);
    CHECK(memcmp(src + 4096, got, 4096) == 0);
    vigil_file_prep_splice(&r, fd, 0, out, 0, 4096, 0, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL); /* neither end is a pipe */

    /* sendfile to a socket */
    int sv[2];
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
    vigil_file_prep_sendfile(&r, sv[0], fd, 8192, 4096, ft_on_done);
    CHECK_EQ(run(&r), 4096);
    size_t have = 0;
    while (have < 4096) {
        ssize_t k = read(sv[1], got + have, 4096 - have);
        CHECK(k > 0);
        have += (size_t)k;
    }
    CHECK(memcmp(src + 8192, got, 4096) == 0);
    CHECK_EQ(lseek(fd, 0, SEEK_CUR), 150); /* sendfile with an offset leaves the position */
    int wronly = openat(dfd, "f", O_WRONLY | O_CLOEXEC);
    CHECK_SYS(wronly);
    vigil_file_prep_sendfile(&r, sv[0], wronly, 0, 4096, ft_on_done);
    CHECK_EQ(run(&r), -EBADF); /* not open for reading */
    vigil_file_prep_sendfile(&r, -1, fd, 0, 4096, ft_on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);

    close(sv[0]);
    close(sv[1]);
    close(p[0]);
    close(p[1]);
    close(wronly);
    close(out);
    close(rdonly);
    close(fd);
    CHECK_SYS(unlinkat(dfd, "copy", 0));
    CHECK_SYS(unlinkat(dfd, "f", 0));
    close(dfd);
    CHECK_SYS(rmdir(dir));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
