/* The child's fds 0-2: a socketpair both ways (cat echoes what the parent sends), one
 * redirected to a file of the parent's, stderr to the parent's fd 1 slot of the child
 * (FD mode with a source below 3: 2>&1 done by vigil), a closed stdin, and a stdout
 * closed early by the child (end of stream before the exit, both reported). */
#include "pt.h"

static void run_to_exit(vigil_loop *loop, vigil_proc *p, struct pt_exit *e, struct vigil_proc_options *o)
{
    memset(e, 0, sizeof *e);
    p->data = e;
    CHECK_EQ(vigil_proc_start(loop, p, o, pt_on_exit), 0);
}

int main(void)
{
    alarm(20);
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    static vigil_proc p;
    struct pt_exit e;
    {   /* stdin and stdout sockets: what goes in comes out */
        char *const argv[] = {"cat", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.stdio[0].mode = VIGIL_PROC_SOCKET;
        o.stdio[1].mode = VIGIL_PROC_SOCKET;
        run_to_exit(loop, &p, &e, &o);
        int in = p.stdio_fd[0], out = p.stdio_fd[1];
        CHECK(in >= 0 && out >= 0);
        CHECK(fcntl(in, F_GETFD) & FD_CLOEXEC);
        CHECK(fcntl(out, F_GETFL) & O_NONBLOCK);
        int type;
        socklen_t tl = sizeof type;
        CHECK_SYS(getsockopt(in, SOL_SOCKET, SO_TYPE, &type, &tl));
        CHECK_EQ(type, SOCK_STREAM);
        CHECK_EQ(write(in, "hello, child\n", 13), 13);
        CHECK_SYS(shutdown(in, SHUT_WR)); /* cat sees the end of its input */
        char *got = pt_read_all(out, NULL);
        CHECK(!strcmp(got, "hello, child\n"));
        free(got);
        pt_run_until(loop, &e.calls);
        CHECK_EQ(e.status, 0);
        close(in);
        close(out);
    }
    {   /* Redirection to fds of the parent, one of them below 3: the child's stdout
           <- file b's fd, its stderr <- the parent's fd 1 (made a dup of file a here).
           The source 1 must be taken before the child's fd 1 is replaced by file b. */
        char pa[] = "/tmp/vigil-proc-a-XXXXXX", pb[] = "/tmp/vigil-proc-b-XXXXXX";
        int fa = mkstemp(pa), fb = mkstemp(pb);
        CHECK_SYS(fa);
        CHECK_SYS(fb);
        unlink(pa);
        unlink(pb);
        char *const argv[] = {"sh", "-c", "echo out; echo err >&2", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.stdio[1].mode = VIGIL_PROC_FD;
        o.stdio[1].fd = fb;
        o.stdio[2].mode = VIGIL_PROC_FD;
        o.stdio[2].fd = 1;
        fflush(stdout);
        int saved1 = dup(1);
        CHECK_SYS(saved1);
        CHECK_SYS(dup2(fa, 1)); /* the parent's fd 1 is file a for the start */
        run_to_exit(loop, &p, &e, &o);
        CHECK_SYS(dup2(saved1, 1));
        close(saved1);
        pt_run_until(loop, &e.calls);
        CHECK_EQ(e.status, 0);
        char buf[64] = {0};
        CHECK_EQ(pread(fa, buf, sizeof buf - 1, 0), 4);
        CHECK(!strcmp(buf, "err\n"));
        memset(buf, 0, sizeof buf);
        CHECK_EQ(pread(fb, buf, sizeof buf - 1, 0), 4);
        CHECK(!strcmp(buf, "out\n"));
        close(fa);
        close(fb);
    }
    {   /* stderr as the child's stdout (2>&1 without a shell): both on the socket */
        char *const argv[] = {"sh", "-c", "echo out; echo err >&2", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.stdio[2].mode = VIGIL_PROC_AS;
        o.stdio[2].fd = 1;
        char *out = pt_output(loop, &o, &e);
        CHECK(!strcmp(out, "out\nerr\n"));
        free(out);
        /* AS must name an earlier fd */
        static vigil_proc q;
        o = pt_opts(argv);
        o.stdio[1].mode = VIGIL_PROC_AS;
        o.stdio[1].fd = 1;
        CHECK_EQ(vigil_proc_start(loop, &q, &o, pt_on_exit), -EINVAL);
        o.stdio[1].fd = 2;
        CHECK_EQ(vigil_proc_start(loop, &q, &o, pt_on_exit), -EINVAL);
    }
    {   /* stdin closed: the shell's fd 0 is not open */
        char *const argv[] = {"sh", "-c", "if [ -e /proc/$$/fd/0 ]; then echo open; else echo closed; fi", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.stdio[0].mode = VIGIL_PROC_CLOSE;
        char *out = pt_output(loop, &o, &e);
        CHECK(!strcmp(out, "closed\n"));
        free(out);
        /* and inherited (the default): open if the parent's is */
        o = pt_opts(argv);
        out = pt_output(loop, &o, &e);
        CHECK(!strcmp(out, fcntl(0, F_GETFD) >= 0 ? "open\n" : "closed\n"));
        free(out);
    }
    {   /* the child closes its stdout early and goes on: the parent reads the end of
           the stream while the child runs, then learns of its exit */
        char *const argv[] = {"sh", "-c", "echo before; exec 1>&-; read x; exit 5", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.stdio[0].mode = VIGIL_PROC_SOCKET;
        o.stdio[1].mode = VIGIL_PROC_SOCKET;
        run_to_exit(loop, &p, &e, &o);
        char *out = pt_read_all(p.stdio_fd[1], NULL);
        CHECK(!strcmp(out, "before\n"));
        free(out);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
        CHECK_EQ(e.calls, 0); /* still running: it waits for its input */
        CHECK_EQ(vigil_proc_active(&p), 1);
        CHECK_EQ(write(p.stdio_fd[0], "go\n", 3), 3);
        int in = p.stdio_fd[0], outfd = p.stdio_fd[1];
        pt_run_until(loop, &e.calls);
        CHECK_EQ(e.status, 5);
        close(in);
        close(outfd);
    }
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vt_count_fds(), fds0);
    return 0;
}
