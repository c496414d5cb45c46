/* Signal watchers (a module, see loop.h): one signalfd per loop carries every watched
 * signal, so a handler runs as an ordinary callback in the loop thread, never in signal
 * context. The state is made at the first vigil_signal_start.
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
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

/* The library's view of a vigil_signal (its private_ words given names). */
struct sigw {
    void *data;
    vigil_signal_cb cb;
    struct sigw *next;   /* started watchers, newest first */
    int signo;
    uint32_t state;
    uint64_t reserved_[2];
};
_Static_assert(sizeof(struct sigw) == sizeof(vigil_signal), "vigil_signal: size is ABI");
_Static_assert(offsetof(struct sigw, data) == offsetof(vigil_signal, data), "struct sigw must mirror vigil_signal");

static inline struct sigw *sigw_of(vigil_signal *w)
{
    return (struct sigw *)(void *)w;
}

struct signals {
    int fd;                     /* the signalfd */
    vigil_io io;                /* its internal watcher */
    struct sigw *head;          /* started watchers, newest first */
    struct sigw *iter_next;     /* next watcher of the dispatch walk (stop advances it) */
    sigset_t mask;              /* the signals the signalfd carries */
};

static bool watched(const struct signals *s, int signo)
{
    for (const struct sigw *w = s->head; w; w = w->next)
        if (w->signo == signo)
            return true;
    return false;
}

static void sig_cb(vigil_loop *loop, vigil_io *io, int revents)
{
    (void)revents;
    struct signals *s = io->data;
    struct signalfd_siginfo si[16];
    ssize_t got = read(s->fd, si, sizeof si);
    if (got <= 0)
        return;
    for (size_t i = 0; i < (size_t)got / sizeof si[0]; i++) {
        for (struct sigw *w = s->head; w; w = s->iter_next) {
            s->iter_next = w->next;
            if (w->signo == (int)si[i].ssi_signo) {
                loop->in_callback++;
                w->cb(loop, (vigil_signal *)(void *)w, &si[i]);
                loop->in_callback--;
            }
        }
        s->iter_next = NULL;
    }
}

static void signals_fini(vigil_loop *loop, void *state)
{
    struct signals *s = state;
    if (s->fd >= 0) {
        vigil_io_stop(loop, &s->io);
        close(s->fd);
    }
    free(s);
}

static void signals_init(void *state)
{
    struct signals *s = state;
    s->fd = -1;
    sigemptyset(&s->mask);
}

static struct signals *signals_get(vigil_loop *loop)
{
    return vigil__module_get(loop, VIGIL__MOD_SIGNALS, sizeof(struct signals), signals_fini, signals_init);
}

int vigil_signal_start(vigil_loop *loop, vigil_signal *pub, int signo, vigil_signal_cb cb)
{
    struct sigw *w = pub ? sigw_of(pub) : NULL;
    if (!loop || !w || !cb || signo <= 0 || signo >= NSIG || signo == SIGKILL || signo == SIGSTOP)
        return -EINVAL;
    if (w->state)
        return -EBUSY;
    struct signals *s = signals_get(loop);
    if (!s)
        return -ENOMEM;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, signo);
    int r = pthread_sigmask(SIG_BLOCK, &one, NULL);
    if (r)
        return -r;
    if (!sigismember(&s->mask, signo)) {
        sigset_t mask = s->mask;
        sigaddset(&mask, signo);
        int fd = signalfd(s->fd, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (fd < 0)
            return -errno;
        if (s->fd < 0) {
            s->io.data = s;
            r = vigil__io_start_internal(loop, &s->io, fd, VIGIL_READ, sig_cb);
            if (r < 0) {
                close(fd);
                return r;
            }
            s->fd = fd;
        }
        s->mask = mask;
    }
    w->cb = cb;
    w->signo = signo;
    w->state = 1;
    w->next = s->head;
    s->head = w;
    loop->active++;
    return 0;
}

int vigil_signal_stop(vigil_loop *loop, vigil_signal *pub)
{
    struct sigw *w = pub ? sigw_of(pub) : NULL;
    if (!loop || !w)
        return -EINVAL;
    if (!w->state)
        return 0;
    struct signals *s = loop->mod[VIGIL__MOD_SIGNALS];
    for (struct sigw **pp = &s->head; *pp; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    if (s->iter_next == w)
        s->iter_next = w->next;
    w->state = 0;
    w->next = NULL;
    loop->active--;
    if (!watched(s, w->signo)) {
        sigdelset(&s->mask, w->signo);
        if (signalfd(s->fd, &s->mask, 0) < 0)
            return -errno;
    }
    return 0;
}

int vigil_signal_active(const vigil_signal *pub)
{
    const struct sigw *w = (const struct sigw *)(const void *)pub;
    return w && w->state ? 1 : 0;
}
