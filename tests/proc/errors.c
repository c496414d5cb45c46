/* What cannot start is an error from vigil_proc_start, never a child that exits 127:
 * -ENOENT (no such path, a name in no PATH directory, a cwd that does not exist),
 * -EACCES (a file without execute permission, a directory), -ENOEXEC (an executable
 * file of no format the kernel runs), -ENOTDIR; and bad input: -EINVAL, -EBADF. No
 * callback runs for any of them, no child (zombie) is left, no fd stays open. */
#include "pt.h"

#include <sys/stat.h>

static void on_exit_never(vigil_loop *l, vigil_proc *p, int status, int sig)
{
    (void)l, (void)p;
    fprintf(stderr, "exit callback of a failed start: %d %d\n", status, sig);
    exit(1);
}

static int start(vigil_loop *loop, struct vigil_proc_options *o)
{
    static vigil_proc p;
    memset(&p, 0, sizeof p);
    int r = vigil_proc_start(loop, &p, o, on_exit_never);
    CHECK(!vigil_proc_active(&p));
    return r;
}

static int start_argv(vigil_loop *loop, char *file, uint32_t flags)
{
    char *const argv[] = {file, NULL};
    struct vigil_proc_options o = pt_opts(argv);
    o.flags = flags;
    return start(loop, &o);
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    char dir[] = "/tmp/vigil-proc-XXXXXX";
    CHECK(mkdtemp(dir));
    char noexec[64], garbage[64], sub[64];
    snprintf(noexec, sizeof noexec, "%s/noexec", dir);
    snprintf(garbage, sizeof garbage, "%s/garbage", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    int fd = open(noexec, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    CHECK_SYS(fd);
    CHECK_SYS(write(fd, "#!/bin/sh\nexit 0\n", 17));
    close(fd);
    fd = open(garbage, O_CREAT | O_WRONLY | O_CLOEXEC, 0755);
    CHECK_SYS(fd);
    CHECK_SYS(write(fd, "\x01\x02\x03\x04garbage", 11));
    close(fd);
    CHECK_SYS(mkdir(sub, 0755));
    int fds0 = vt_count_fds();

    CHECK_EQ(start_argv(loop, "/nonexistent/prog", 0), -ENOENT);
    CHECK_EQ(start_argv(loop, "no-such-program-vigil", VIGIL_PROC_SEARCH_PATH), -ENOENT);
    CHECK_EQ(start_argv(loop, "true", 0), -ENOENT); /* no search: relative to the cwd */
    CHECK_EQ(start_argv(loop, noexec, 0), -EACCES);
    CHECK_EQ(start_argv(loop, sub, 0), -EACCES);
    CHECK_EQ(start_argv(loop, garbage, 0), -ENOEXEC);
    char notdir[96];
    snprintf(notdir, sizeof notdir, "%s/x", noexec);
    CHECK_EQ(start_argv(loop, notdir, 0), -ENOTDIR);
    {   /* A name found only in a PATH directory where it is not executable: EACCES. */
        char *const argv[] = {"noexec", NULL};
        char pathvar[96];
        snprintf(pathvar, sizeof pathvar, "PATH=/nonexistent:%s", dir);
        char *const envp[] = {pathvar, NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.envp = envp;
        CHECK_EQ(start(loop, &o), -EACCES);
        /* The envp's PATH is the one searched: "true" is in none of its directories. */
        char *const argv2[] = {"true", NULL};
        o.file = "true";
        o.argv = argv2;
        CHECK_EQ(start(loop, &o), -ENOENT);
    }
    {   /* A cwd that does not exist: chdir's error. */
        char *const argv[] = {"/bin/true", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.cwd = "/nonexistent-dir";
        CHECK_EQ(start(loop, &o), -ENOENT);
    }
    {   /* Bad input. */
        char *const argv[] = {"/bin/true", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        static vigil_proc p;
        CHECK_EQ(vigil_proc_start(NULL, &p, &o, on_exit_never), -EINVAL);
        CHECK_EQ(vigil_proc_start(loop, NULL, &o, on_exit_never), -EINVAL);
        CHECK_EQ(vigil_proc_start(loop, &p, NULL, on_exit_never), -EINVAL);
        CHECK_EQ(vigil_proc_start(loop, &p, &o, NULL), -EINVAL);
        o.file = NULL;
        CHECK_EQ(start(loop, &o), -EINVAL);
        o.file = "";
        CHECK_EQ(start(loop, &o), -EINVAL);
        o = pt_opts(argv);
        o.flags |= 0x8000;
        CHECK_EQ(start(loop, &o), -EINVAL);
        o = pt_opts(argv);
        o.size = 8;
        CHECK_EQ(start(loop, &o), -EINVAL);
        o = pt_opts(argv);
        o.reserved[3] = 1;
        CHECK_EQ(start(loop, &o), -EINVAL);
        o = pt_opts(argv);
        o.stdio[1].mode = 99;
        CHECK_EQ(start(loop, &o), -EINVAL);
        o = pt_opts(argv);
        o.stdio[1].mode = VIGIL_PROC_FD;
        o.stdio[1].fd = -1;
        CHECK_EQ(start(loop, &o), -EINVAL);
        o.stdio[1].fd = 1000;
        CHECK_EQ(start(loop, &o), -EBADF);
        CHECK_EQ(vigil_proc_kill(loop, &p, SIGTERM), -ESRCH);
        CHECK_EQ(vigil_proc_kill(NULL, &p, SIGTERM), -EINVAL);
        CHECK_EQ(vigil_proc_active(NULL), 0);
        CHECK_EQ(vigil_proc_pidfd(NULL), -1);
    }
    /* Nothing keeps the loop alive, nothing was left behind. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    pt_no_children();
    CHECK_EQ(vt_count_fds(), fds0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    unlink(noexec);
    unlink(garbage);
    rmdir(sub);
    rmdir(dir);
    return 0;
}
