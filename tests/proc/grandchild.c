/* A child that starts a grandchild and exits: its exit is reported when it exits (the
 * grandchild, still running, is not vigil's: it goes to init or a subreaper), with the
 * grandchild holding the child's stdout socket open. The grandchild's pid comes through
 * that socket; the test then ends it itself. */
#include "pt.h"

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    static vigil_proc p;
    static struct pt_exit e;
    char *const argv[] = {"sh", "-c", "sleep 30 & echo $!; exit 3", NULL};
    struct vigil_proc_options o = pt_opts(argv);
    o.stdio[1].mode = VIGIL_PROC_SOCKET;
    p.data = &e;
    CHECK_EQ(vigil_proc_start(loop, &p, &o, pt_on_exit), 0);
    pt_run_until(loop, &e.calls);
    CHECK_EQ(e.status, 3);
    CHECK_EQ(e.sig, 0);
    /* The grandchild still runs and still holds the socket: read its pid (one line). */
    int fd = p.stdio_fd[1];
    char line[32] = {0};
    size_t n = 0;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    while (n < sizeof line - 1 && !strchr(line, '\n')) {
        CHECK_EQ(poll(&pf, 1, 10000), 1);
        ssize_t r = read(fd, line + n, sizeof line - 1 - n);
        CHECK(r > 0);
        n += (size_t)r;
    }
    pid_t g = (pid_t)atoi(line);
    CHECK(g > 0);
    CHECK_SYS(kill(g, 0));          /* alive */
    CHECK_EQ(waitpid(g, NULL, WNOHANG), -1); /* and not our child */
    CHECK_EQ(errno, ECHILD);
    CHECK_SYS(kill(g, SIGKILL));
    /* Its end closes the socket: the end of the stream. */
    char c;
    CHECK_EQ(poll(&pf, 1, 10000), 1);
    CHECK_EQ(read(fd, &c, 1), 0);
    close(fd);
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
