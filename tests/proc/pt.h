/* Helpers of the child-process tests (<vigil/proc.h>): real programs (/bin/sh, cat,
 * sleep, true), an exit record per child, turns until a condition, and the zombie and
 * fd checks every test ends with. */
#ifndef VIGIL_TEST_PT_H
#define VIGIL_TEST_PT_H

#include "vt.h"
#include "fds.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* What an exit callback saw: p->data points to one. */
struct pt_exit {
    int calls;
    int status;
    int sig;
};

static inline void pt_on_exit(vigil_loop *l, vigil_proc *p, int status, int sig)
{
    (void)l;
    struct pt_exit *e = p->data;
    CHECK(!vigil_proc_active(p));
    CHECK_EQ(p->pid, 0);
    CHECK_EQ(vigil_proc_pidfd(p), -1);
    e->calls++;
    e->status = status;
    e->sig = sig;
}

/* Options for argv (argv[0] is the file, a path or a name searched in PATH). */
static inline struct vigil_proc_options pt_opts(char *const *argv)
{
    struct vigil_proc_options o;
    vigil_proc_options_init(&o);
    o.file = argv[0];
    o.argv = argv;
    o.flags = VIGIL_PROC_SEARCH_PATH;
    return o;
}

/* Runs turns until *flag is nonzero (alarm() in main bounds a hang). */
static inline void pt_run_until(vigil_loop *loop, const int *flag)
{
    while (!*flag)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
}

/* Reads fd (the parent's socket end: made blocking here) to its end; returns the bytes,
 * NUL-terminated, *len their count. */
static inline char *pt_read_all(int fd, size_t *len)
{
    int fl = fcntl(fd, F_GETFL);
    CHECK_SYS(fcntl(fd, F_SETFL, fl & ~O_NONBLOCK));
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    CHECK(b);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            b = realloc(b, cap);
            CHECK(b);
        }
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        CHECK(r >= 0);
        if (r == 0)
            break;
        n += (size_t)r;
    }
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}

/* No child of this process is left, exited or not (zombies included):
 * waitid(P_ALL, WNOHANG | WNOWAIT) finds none. */
static inline void pt_no_children(void)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL);
    if (r == 0) {
        fprintf(stderr, "a child is left: pid %d (code %d)\n", si.si_pid, si.si_code);
        exit(1);
    }
    CHECK_EQ(errno, ECHILD);
}

/* Runs a command to its end with its stdout on a socket; returns what it wrote and its
 * exit record. */
static inline char *pt_output(vigil_loop *loop, struct vigil_proc_options *o, struct pt_exit *e)
{
    static vigil_proc p;
    memset(&p, 0, sizeof p);
    memset(e, 0, sizeof *e);
    p.data = e;
    o->stdio[1].mode = VIGIL_PROC_SOCKET;
    CHECK_EQ(vigil_proc_start(loop, &p, o, pt_on_exit), 0);
    CHECK(p.stdio_fd[1] >= 0);
    CHECK_EQ(p.stdio_fd[0], -1);
    CHECK_EQ(p.stdio_fd[2], -1);
    int fd = p.stdio_fd[1];
    char *out = pt_read_all(fd, NULL);
    close(fd);
    pt_run_until(loop, &e->calls);
    CHECK_EQ(e->calls, 1);
    return out;
}

#endif
