/* The path calls -- mkdir, rmdir, unlink, rename (plain, RENAME_NOREPLACE,
 * RENAME_EXCHANGE), symlink, readlink, link, mkdtemp -- do what the system call does and
 * fail as it fails (ENOENT, ENOTDIR, EISDIR, EEXIST, ENOTEMPTY, EPERM, EINVAL), checked
 * against the tree with plain system calls after each; and vigil refuses at submission
 * what it must (registered files, a missing callback). */
#include "ft.h"

#include <sys/stat.h>

static vigil_loop *loop;
static int dfd;

static int64_t run(vigil_file_req *r)
{
    return ft_start_wait(loop, r);
}

static int kind_of(const char *path) /* S_IFMT bits of lstat, 0 when absent */
{
    struct stat st;
    if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        CHECK(errno == ENOENT);
        return 0;
    }
    return (int)(st.st_mode & S_IFMT);
}

static void put_file(const char *path, const char *content)
{
    int fd = openat(dfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK_SYS(fd);
    CHECK_EQ(write(fd, content, strlen(content)), (long)strlen(content));
    close(fd);
}

static void check_content(const char *path, const char *want)
{
    char buf[64] = {0};
    int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
    CHECK_SYS(fd);
    CHECK(read(fd, buf, sizeof buf - 1) >= 0);
    close(fd);
    CHECK(strcmp(buf, want) == 0);
}

int main(void)
{
    loop = ft_loop();
    char dir[] = "ft_paths_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK_SYS(dfd);
    vigil_file_req r = {0};

    /* mkdir */
    vigil_file_prep_mkdir(&r, dfd, "d", 0750, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("d"), S_IFDIR);
    CHECK_EQ(run(&r), -EEXIST); /* the same request again */
    vigil_file_prep_mkdir(&r, dfd, "missing/x", 0755, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    put_file("f", "f-content");
    vigil_file_prep_mkdir(&r, dfd, "f/x", 0755, ft_on_done);
    CHECK_EQ(run(&r), -ENOTDIR);

    /* unlink */
    vigil_file_prep_unlink(&r, dfd, "d", ft_on_done);
    CHECK_EQ(run(&r), -EISDIR);
    CHECK_EQ(kind_of("d"), S_IFDIR);
    vigil_file_prep_unlink(&r, dfd, "missing", ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    vigil_file_prep_unlink(&r, dfd, "f/x", ft_on_done);
    CHECK_EQ(run(&r), -ENOTDIR);

    /* rmdir */
    CHECK_SYS(mkdirat(dfd, "d/sub", 0755));
    vigil_file_prep_rmdir(&r, dfd, "d", ft_on_done);
    CHECK_EQ(run(&r), -ENOTEMPTY);
    vigil_file_prep_rmdir(&r, dfd, "f", ft_on_done);
    CHECK_EQ(run(&r), -ENOTDIR);
    vigil_file_prep_rmdir(&r, dfd, "missing", ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    vigil_file_prep_rmdir(&r, dfd, "d/sub", ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("d/sub"), 0);

    /* rename */
    vigil_file_prep_rename(&r, dfd, "f", dfd, "g", 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("f"), 0);
    check_content("g", "f-content");
    CHECK_EQ(run(&r), -ENOENT); /* f is gone */
    put_file("h", "h-content");
    vigil_file_prep_rename(&r, dfd, "g", dfd, "h", RENAME_NOREPLACE, ft_on_done);
    CHECK_EQ(run(&r), -EEXIST);
    check_content("h", "h-content");
    vigil_file_prep_rename(&r, dfd, "g", dfd, "h", RENAME_EXCHANGE, ft_on_done);
    CHECK_EQ(run(&r), 0);
    check_content("h", "f-content");
    check_content("g", "h-content");
    vigil_file_prep_rename(&r, dfd, "g", dfd, "nothing", RENAME_EXCHANGE, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    vigil_file_prep_rename(&r, dfd, "g", dfd, "fresh", RENAME_NOREPLACE, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("g"), 0);
    check_content("fresh", "h-content");
    vigil_file_prep_rename(&r, dfd, "fresh", dfd, "d", 0, ft_on_done);
    CHECK_EQ(run(&r), -EISDIR); /* a file over a directory */
    vigil_file_prep_rename(&r, dfd, "d", dfd, "fresh", 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOTDIR); /* a directory over a file */
    vigil_file_prep_rename(&r, dfd, "d", dfd, "d/inside", 0, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL); /* into itself */
    vigil_file_prep_rename(&r, dfd, "fresh", dfd, "h", RENAME_NOREPLACE | RENAME_EXCHANGE, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL);

    /* symlink and readlink */
    vigil_file_prep_symlink(&r, "h", dfd, "s", ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("s"), S_IFLNK);
    CHECK_EQ(run(&r), -EEXIST);
    vigil_file_prep_symlink(&r, "h", dfd, "missing/s", ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    char buf[32];
    memset(buf, 0, sizeof buf);
    vigil_file_prep_readlink(&r, dfd, "s", buf, sizeof buf, ft_on_done);
    CHECK_EQ(run(&r), 1);
    CHECK(buf[0] == 'h');
    CHECK_SYS(symlinkat("abcdefgh", dfd, "long"));
    vigil_file_prep_readlink(&r, dfd, "long", buf, 3, ft_on_done);
    CHECK_EQ(run(&r), 3); /* cut short, as readlink(2) */
    CHECK(memcmp(buf, "abc", 3) == 0);
    vigil_file_prep_readlink(&r, dfd, "h", buf, sizeof buf, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL); /* not a link */
    vigil_file_prep_readlink(&r, dfd, "missing", buf, sizeof buf, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);

    /* link */
    vigil_file_prep_link(&r, dfd, "h", dfd, "l", 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    struct stat a, b;
    CHECK_SYS(fstatat(dfd, "h", &a, 0));
    CHECK_SYS(fstatat(dfd, "l", &b, 0));
    CHECK(a.st_ino == b.st_ino && a.st_nlink == 2);
    CHECK_EQ(run(&r), -EEXIST);
    vigil_file_prep_link(&r, dfd, "missing", dfd, "l2", 0, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);
    vigil_file_prep_link(&r, dfd, "d", dfd, "dl", 0, ft_on_done);
    CHECK_EQ(run(&r), -EPERM); /* no hard link to a directory */
    vigil_file_prep_link(&r, dfd, "s", dfd, "sl", AT_SYMLINK_FOLLOW, ft_on_done);
    CHECK_EQ(run(&r), 0); /* the link's target, h */
    CHECK_SYS(fstatat(dfd, "sl", &b, AT_SYMLINK_NOFOLLOW));
    CHECK(a.st_ino == b.st_ino && S_ISREG(b.st_mode));
    vigil_file_prep_unlink(&r, dfd, "l", ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("l"), 0);

    /* mkdtemp */
    char tmpl[64];
    snprintf(tmpl, sizeof tmpl, "%s/t_XXXXXX", dir);
    vigil_file_prep_mkdtemp(&r, tmpl, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK(strstr(tmpl, "XXXXXX") == NULL);
    struct stat st;
    CHECK_SYS(stat(tmpl, &st));
    CHECK(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    CHECK_SYS(rmdir(tmpl));
    char bad[] = "no_x_here";
    vigil_file_prep_mkdtemp(&r, bad, ft_on_done);
    CHECK_EQ(run(&r), -EINVAL);
    char nodir[] = "ft_missing_dir/t_XXXXXX";
    vigil_file_prep_mkdtemp(&r, nodir, ft_on_done);
    CHECK_EQ(run(&r), -ENOENT);

    /* relative to the working directory */
    char p1[64], p2[64];
    snprintf(p1, sizeof p1, "%s/h", dir);
    snprintf(p2, sizeof p2, "%s/h2", dir);
    vigil_file_prep_rename(&r, AT_FDCWD, p1, AT_FDCWD, p2, 0, ft_on_done);
    CHECK_EQ(run(&r), 0);
    CHECK_EQ(kind_of("h2"), S_IFREG);

    /* refused at submission */
    vigil_file_prep_unlink(&r, dfd, "h2", ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_unlink(&r, dfd, "h2", NULL);
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    CHECK_EQ(kind_of("h2"), S_IFREG);

    /* a batch of independent calls, one submission */
    vigil_file_req v[4];
    ft_reqs(v, 4);
    vigil_file_prep_unlink(&v[0], dfd, "h2", ft_on_done);
    vigil_file_prep_unlink(&v[1], dfd, "sl", ft_on_done);
    vigil_file_prep_rmdir(&v[2], dfd, "d", ft_on_done);
    vigil_file_prep_mkdir(&v[3], dfd, "d2", 0700, ft_on_done);
    ft_submit_wait(loop, v, 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ft_results()->res[i], 0);
    CHECK(kind_of("h2") == 0 && kind_of("sl") == 0 && kind_of("d") == 0 && kind_of("d2") == S_IFDIR);

    unlinkat(dfd, "s", 0);
    unlinkat(dfd, "long", 0);
    unlinkat(dfd, "g", 0);
    unlinkat(dfd, "fresh", 0);
    unlinkat(dfd, "d2", AT_REMOVEDIR);
    close(dfd);
    CHECK_SYS(rmdir(dir));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
