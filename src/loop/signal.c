/* Signal watchers: one signalfd per loop carries every watched signal, so a handler
 * runs as an ordinary callback in the loop thread, never in signal context.
 *
 * A watched signal is blocked in the thread that starts the watcher (a signalfd only
 * receives signals that are blocked). Stopping the last watcher of a signal removes it
 * from the signalfd but leaves it blocked: unblocking could run the default action on
 * a signal already pending (for SIGTERM: end the process) that the caller meant to
 * ignore; the caller unblocks it when it wants the default action back.
 */
#include "loop/loop.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static bool watched(const vigil_loop *loop, int signo)
{
    for (const vigil_signal *w = loop->sig_head; w; w = w->next)
        if (w->signo == signo)
            return true;
    return false;
}

static void sig_cb(vigil_loop *loop, vigil_io *io, int revents)
{
    (void)io;
    (void)revents;
    struct signalfd_siginfo si[16];
    ssize_t got = read(loop->sig_fd, si, sizeof si);
    if (got <= 0)
        return;
    for (size_t i = 0; i < (size_t)got / sizeof si[0]; i++) {
        for (vigil_signal *w = loop->sig_head; w; w = loop->sig_iter_next) {
            loop->sig_iter_next = w->next;
            if (w->signo == (int)si[i].ssi_signo) {
                loop->in_callback++;
                w->cb(loop, w, &si[i]);
                loop->in_callback--;
            }
        }
        loop->sig_iter_next = NULL;
    }
}

int vigil_signal_start(vigil_loop *loop, vigil_signal *w, int signo, vigil_signal_cb cb)
{
    if (!loop || !w || !cb || signo <= 0 || signo >= NSIG || signo == SIGKILL || signo == SIGSTOP)
        return -EINVAL;
    if (w->state)
        return -EBUSY;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, signo);
    int r = pthread_sigmask(SIG_BLOCK, &one, NULL);
    if (r)
        return -r;
    if (!sigismember(&loop->sig_mask, signo)) {
        sigset_t mask = loop->sig_mask;
        sigaddset(&mask, signo);
        int fd = signalfd(loop->sig_fd, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (fd < 0)
            return -errno;
        if (loop->sig_fd < 0) {
            r = vigil__io_start_internal(loop, &loop->sig_io, fd, VIGIL_READ, sig_cb);
            if (r < 0) {
                close(fd);
                return r;
            }
            loop->sig_fd = fd;
        }
        loop->sig_mask = mask;
    }
    w->cb = cb;
    w->signo = signo;
    w->state = 1;
    w->next = loop->sig_head;
    loop->sig_head = w;
    loop->active++;
    return 0;
}

int vigil_signal_stop(vigil_loop *loop, vigil_signal *w)
{
    if (!loop || !w)
        return -EINVAL;
    if (!w->state)
        return 0;
    for (vigil_signal **pp = &loop->sig_head; *pp; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    if (loop->sig_iter_next == w)
        loop->sig_iter_next = w->next;
    w->state = 0;
    w->next = NULL;
    loop->active--;
    if (!watched(loop, w->signo)) {
        sigdelset(&loop->sig_mask, w->signo);
        if (signalfd(loop->sig_fd, &loop->sig_mask, 0) < 0)
            return -errno;
    }
    return 0;
}

void vigil__signals_fini(vigil_loop *loop)
{
    if (loop->sig_fd >= 0) {
        vigil_io_stop(loop, &loop->sig_io);
        close(loop->sig_fd);
        loop->sig_fd = -1;
    }
}
