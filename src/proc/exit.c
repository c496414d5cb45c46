/* A child's end: its pidfd turns readable when it has exited (on every backend: an
 * ordinary fd watcher); the watcher reaps it with waitid(P_PIDFD, WNOHANG) and runs
 * the exit callback once. Also kill (pidfd_send_signal) and what vigil_loop_free does
 * with children still running (SIGKILL, reap, callback: no zombie). No SIGCHLD handler,
 * no wait on anything but the child's own pidfd.
 *
 * io_uring's IORING_OP_WAITID (6.7+) would reap inside the turn's submission; the
 * poll of the pidfd costs the same one readiness event per child, and the reap is one
 * waitid call either way, so the watcher is used on every backend (one path).
 */
#include "proc/proc_int.h"
#include "sys/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int vigil__proc_waitid(int pidfd, siginfo_t *si, int options)
{
    for (;;) {
        memset(si, 0, sizeof *si);
        long r = vigil__syscall6(SYS_waitid, VIGIL__P_PIDFD, pidfd, (long)si, options, 0, 0);
        if (r != -EINTR)
            return (int)r;
    }
}

static struct vigil__proc *of_io(vigil_io *w)
{
    return (struct vigil__proc *)(void *)((char *)w - offsetof(struct vigil__proc, io));
}

/* Ends p: off the live list, watcher stopped, pidfd closed, then the callback (which
 * may start p again or free it). res < 0: waitid's error. */
static void finish(vigil_loop *loop, struct vigil__proc *p, int res, const siginfo_t *si)
{
    struct vigil__procs *s = loop->mod[VIGIL__MOD_PROC];
    vigil__proc_list_del(&s->head, p);
    vigil_io_stop(loop, &p->io);
    vigil__fd_close(loop, p->pidfd); /* the registration goes first (epoll: now) */
    p->pidfd = -1;
    p->pid = 0;
    p->state = 0;
    int status = 0, sig = 0;
    if (res < 0)
        status = res;
    else if (si->si_code == CLD_EXITED)
        status = si->si_status;
    else
        sig = si->si_status; /* CLD_KILLED, CLD_DUMPED */
    p->cb(loop, (vigil_proc *)(void *)p, status, sig);
}

static void on_pidfd(vigil_loop *loop, vigil_io *w, int revents)
{
    struct vigil__proc *p = of_io(w);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r;
    if (revents < 0) {
        r = revents; /* the pidfd could not be watched (cannot happen for a live pidfd) */
    } else {
        r = vigil__proc_waitid(p->pidfd, &si, WEXITED | WNOHANG | __WALL);
        if (r == 0 && si.si_pid == 0)
            return; /* not exited yet (a spurious readiness): keep watching */
    }
    finish(loop, p, r, &si);
}

int vigil__proc_watch(vigil_loop *loop, struct vigil__proc *p)
{
    return vigil_io_start(loop, &p->io, p->pidfd, VIGIL_READ, on_pidfd);
}

int vigil_proc_kill(vigil_loop *loop, vigil_proc *pp, int sig)
{
    if (!loop || !pp)
        return -EINVAL;
    struct vigil__proc *p = vigil__proc(pp);
    if (!(p->state & VIGIL__P_ACTIVE))
        return -ESRCH;
    if (sig < 0 || sig > 64)
        return -EINVAL;
    return (int)vigil__syscall4(SYS_pidfd_send_signal, p->pidfd, sig, 0, 0);
}

/* vigil_loop_free: every child still running is killed and reaped, and its callback
 * runs (inside vigil_loop_free, where vigil_proc_start answers -ECANCELED). */
void vigil__procs_fini(vigil_loop *loop, void *state)
{
    struct vigil__procs *s = state;
    s->closing = true;
    while (s->head) {
        struct vigil__proc *p = s->head;
        siginfo_t si;
        vigil__syscall4(SYS_pidfd_send_signal, p->pidfd, SIGKILL, 0, 0);
        int r = vigil__proc_waitid(p->pidfd, &si, WEXITED | __WALL);
        loop->in_callback++;
        finish(loop, p, r, &si);
        loop->in_callback--;
    }
    munmap(s->stack, s->stack_len);
    free(s);
}
