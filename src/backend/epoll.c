/* epoll backend: the turn's changes as one epoll_ctl each, then one wait.
 *
 * Wait: epoll_wait for "no timeout" and "forever" (the cheapest call), epoll_pwait2 with
 * a nanosecond timespec otherwise. A kernel without epoll_pwait2 (ENOSYS at run time,
 * whatever the build machine had) keeps sub-millisecond timers through a timerfd in the
 * set, armed at the absolute deadline: never a timeout rounded to milliseconds.
 *
 * Registration data is the fd and the slot generation (fd | gen << 32), so an event of a
 * registration the loop no longer has is recognised. Such a stray event means epoll
 * still holds a file the loop forgot: a watched fd was closed while a dup of it kept the
 * file open, so close() did not remove it, and EPOLL_CTL_DEL by number can no longer
 * reach it (the number is closed or names another file). The only way to drop it is a
 * new epoll set: rebuild() re-registers every applied fd (one epoll_ctl each).
 */
#include "loop/loop.h"
#include "sys/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define TIMER_TAG UINT64_MAX

struct ep {
    int epfd;
    int tfd;              /* fallback timer, -1 until needed */
    int64_t tfd_armed_ns; /* deadline the timerfd holds, 0 none */
    bool no_pwait2;       /* epoll_pwait2 returned ENOSYS */
    bool rebuild;         /* stray events seen: make a new set before the next wait */
    bool spurious;        /* ep_collect dropped an event of a lazily kept bit */
    struct epoll_event evs[VIGIL__EV_CAP];
};

static int ep_init(struct vigil_loop *loop)
{
    struct ep *ep = calloc(1, sizeof *ep);
    if (!ep)
        return -ENOMEM;
    ep->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ep->epfd < 0) {
        int r = -errno;
        free(ep);
        return r;
    }
    ep->tfd = -1;
    ep->no_pwait2 = getenv("VIGIL_TEST_NO_PWAIT2") != NULL; /* test hook: the fallback path */
    loop->bk = ep;
    loop->idle_fd = ep->epfd;
    loop->idle_buf = ep->evs;
    return 0;
}

static void ep_fini(struct vigil_loop *loop)
{
    struct ep *ep = loop->bk;
    if (!ep)
        return;
    close(ep->epfd);
    if (ep->tfd >= 0)
        close(ep->tfd);
    free(ep);
    loop->bk = NULL;
    loop->idle_fd = -1;
}

static int ctl(int epfd, int op, int fd, uint32_t events, uint64_t data)
{
    struct epoll_event e = {.events = events, .data.u64 = data};
    return vigil__epoll_ctl(epfd, op, fd, &e);
}

static inline uint64_t tag(int fd, uint32_t gen)
{
    return (uint32_t)fd | (uint64_t)gen << 32;
}

/* Lazy narrowing (as the io_uring backend does): slot->bk holds the mask registered in
 * the kernel, which may be wider than slot->applied. A change that only drops bits is
 * not sent; if a dropped bit fires later, ep_collect() narrows the registration then
 * (one epoll_ctl) and drops the event. QEMU-like loops toggle WRITE interest on and off
 * every turn while the fd stays unwritable: those toggles then cost nothing. */
static void apply(struct vigil_loop *loop, struct ep *ep, int fd)
{
    struct vigil__fd *slot = &loop->fds[fd];
    uint32_t want = slot->wanted, km = (uint32_t)slot->bk;
    int r = 0;
    if (want == 0) {
        /* Errors are fine here: the fd may be closed already, and then epoll dropped it. */
        if (km)
            ctl(ep->epfd, EPOLL_CTL_DEL, fd, 0, 0);
        slot->bk = 0;
        slot->applied = 0;
        slot->reset = 0;
        return;
    }
    if (km == 0 || slot->reset) {
        /* Afresh: the number may name a new file. EEXIST means it is the same file,
         * still registered: update it (mask and generation). */
        r = ctl(ep->epfd, EPOLL_CTL_ADD, fd, want, tag(fd, slot->gen));
        if (r == -EEXIST)
            r = ctl(ep->epfd, EPOLL_CTL_MOD, fd, want, tag(fd, slot->gen));
        km = want;
    } else if (want & ~km) {
        r = ctl(ep->epfd, EPOLL_CTL_MOD, fd, want, tag(fd, slot->gen));
        if (r == -ENOENT) /* closed and reopened under the same number since */
            r = ctl(ep->epfd, EPOLL_CTL_ADD, fd, want, tag(fd, slot->gen));
        km = want;
    }
    if (r < 0) {
        slot->bk = 0;
        vigil__fd_failed(loop, fd, r);
        return;
    }
    slot->bk = (int32_t)km;
    slot->applied = want;
    slot->reset = 0;
}

static int rebuild(struct vigil_loop *loop, struct ep *ep)
{
    int nfd = epoll_create1(EPOLL_CLOEXEC);
    if (nfd < 0)
        return -errno;
    close(ep->epfd);
    ep->epfd = nfd;
    ep->rebuild = false;
    loop->idle_fd = nfd;
    ep->tfd_armed_ns = 0;
    if (ep->tfd >= 0 && ctl(nfd, EPOLL_CTL_ADD, ep->tfd, EPOLLIN, TIMER_TAG) < 0) {
        close(ep->tfd);
        ep->tfd = -1;
    }
    for (int fd = 0; fd < loop->nfds; fd++) {
        struct vigil__fd *slot = &loop->fds[fd];
        if (!slot->applied)
            continue;
        int r = ctl(nfd, EPOLL_CTL_ADD, fd, slot->applied, tag(fd, slot->gen));
        slot->bk = r < 0 ? 0 : (int32_t)slot->applied;
        if (r < 0)
            vigil__fd_failed(loop, fd, r);
    }
    return 0;
}

/* No epoll_pwait2: arm a timerfd at the absolute deadline, then wait without timeout. */
static int arm_fallback_timer(struct ep *ep, int64_t deadline_ns)
{
    if (ep->tfd < 0) {
        ep->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (ep->tfd < 0)
            return -errno;
        int r = ctl(ep->epfd, EPOLL_CTL_ADD, ep->tfd, EPOLLIN, TIMER_TAG);
        if (r < 0) {
            close(ep->tfd);
            ep->tfd = -1;
            return r;
        }
    }
    if (ep->tfd_armed_ns == deadline_ns)
        return 0;
    struct itimerspec its = {{0, 0}, {deadline_ns / 1000000000, deadline_ns % 1000000000}};
    if (timerfd_settime(ep->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -errno;
    ep->tfd_armed_ns = deadline_ns;
    return 0;
}

static int ep_wait(struct ep *ep, const struct vigil__wait *w)
{
    if (w->timeout_ns <= 0)
        return vigil__epoll_wait(ep->epfd, ep->evs, VIGIL__EV_CAP, w->timeout_ns < 0 ? -1 : 0);
    if (!ep->no_pwait2) {
        struct timespec ts = {w->timeout_ns / 1000000000, w->timeout_ns % 1000000000};
        int n = vigil__epoll_pwait2(ep->epfd, ep->evs, VIGIL__EV_CAP, &ts);
        if (n != -ENOSYS)
            return n;
        ep->no_pwait2 = true; /* built where it exists, running where it does not */
    }
    int r = arm_fallback_timer(ep, w->deadline_ns);
    if (r < 0)
        return r;
    return vigil__epoll_wait(ep->epfd, ep->evs, VIGIL__EV_CAP, -1);
}

static int ep_collect(struct vigil_loop *loop, int n);

static int ep_turn(struct vigil_loop *loop, const int *dirty, int ndirty, const struct vigil__wait *w)
{
    struct ep *ep = loop->bk;
    struct vigil__wait rest;
    for (int i = 0; i < ndirty; i++)
        apply(loop, ep, dirty[i]);
    if (ep->rebuild) {
        int r = rebuild(loop, ep);
        if (r < 0)
            return r;
    }
    for (;;) {
        int n = ep_wait(ep, w);
        if (n <= 0)
            return n;
        ep->spurious = false;
        n = ep_collect(loop, n);
        /* Only lazily kept bits fired (now narrowed): that is no reason to end a wait. */
        if (n > 0 || !ep->spurious || w->timeout_ns == 0)
            return n;
        if (w->timeout_ns > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t left = w->deadline_ns - ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
            if (left <= 0)
                return 0;
            rest = (struct vigil__wait){left, w->deadline_ns};
            w = &rest;
        }
    }
}

/* Turns epoll's events (ep->evs[0..n)) into the loop's. */
static int ep_collect(struct vigil_loop *loop, int n)
{
    struct ep *ep = loop->bk;
    int out = 0;
    for (int i = 0; i < n; i++) {
        uint64_t d = ep->evs[i].data.u64;
        if (d == TIMER_TAG) {
            uint64_t ticks;
            if (read(ep->tfd, &ticks, sizeof ticks) < 0) {
                /* EAGAIN: already consumed; nothing else can fail on a timerfd */
            }
            ep->tfd_armed_ns = 0;
            continue;
        }
        int fd = (int)(uint32_t)d;
        uint32_t gen = (uint32_t)(d >> 32);
        if (fd >= loop->nfds || loop->fds[fd].gen != gen || !loop->fds[fd].applied) {
            ep->rebuild = true; /* epoll holds a registration the loop does not */
            loop->idle_fd = -1;  /* the rebuild happens in the next full turn */
            continue;
        }
        struct vigil__fd *slot = &loop->fds[fd];
        uint32_t ev = ep->evs[i].events;
        if (ev & ~(slot->applied | EPOLLERR | EPOLLHUP)) {
            /* A bit the loop no longer wants, kept registered lazily, fired: narrow the
             * registration to what is wanted now, and pass on only what is wanted. */
            if (ctl(ep->epfd, EPOLL_CTL_MOD, fd, slot->applied, tag(fd, gen)) == 0)
                slot->bk = (int32_t)slot->applied;
            ev &= slot->applied | EPOLLERR | EPOLLHUP;
            if (!ev) {
                ep->spurious = true;
                continue;
            }
        }
        loop->ev[out].fd = fd;
        loop->ev[out].gen = gen;
        loop->ev[out].revents = ev;
        out++;
    }
    return out;
}

const struct vigil__backend vigil__backend_epoll = {
    .name = "epoll",
    .init = ep_init,
    .fini = ep_fini,
    .turn = ep_turn,
    .collect = ep_collect,
};
