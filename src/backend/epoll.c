/* epoll backend: the turn's changes as one epoll_ctl each (a change that only drops
 * bits costs none: lazy narrowing, see backend.h), then one wait.
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
#include "loop/turn.h"
#include "sys/clock.h"
#include "sys/sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define TIMER_TAG UINT64_MAX

struct epoll_state {
    int epfd;
    int tfd;              /* fallback timer, -1 until needed */
    int64_t tfd_armed_ns; /* deadline the timerfd holds, 0 none */
    bool no_pwait2;       /* epoll_pwait2 returned ENOSYS */
    bool rebuild;         /* stray events seen: make a new set before the next wait */
    bool spurious;        /* collect() dropped an event of a lazily kept bit */
    struct epoll_event evs[VIGIL__EV_CAP];
};

static int be_init(vigil_loop *loop)
{
    struct epoll_state *state = calloc(1, sizeof *state);
    if (!state)
        return -ENOMEM;
    state->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (state->epfd < 0) {
        int r = -errno;
        free(state);
        return r;
    }
    state->tfd = -1;
    loop->bk = state;
    return 0;
}

static void be_fini(vigil_loop *loop)
{
    struct epoll_state *state = loop->bk;
    if (!state)
        return;
    close(state->epfd);
    if (state->tfd >= 0)
        close(state->tfd);
    free(state);
    loop->bk = NULL;
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

/* Lazy narrowing (see backend.h): slot->bk.epoll_mask holds the mask registered in
 * the kernel, which may be wider than slot->applied. A change that only drops bits is
 * not sent; if a dropped bit fires later, collect() narrows the registration then
 * (one epoll_ctl) and drops the event. QEMU-like loops toggle WRITE interest on and off
 * every turn while the fd stays unwritable: those toggles then cost nothing. */
static void apply(vigil_loop *loop, struct epoll_state *state, int fd)
{
    struct vigil__fd *slot = &loop->fds[fd];
    uint32_t want = slot->wanted, km = slot->bk.epoll_mask;
    int r = 0;
    if (want == 0) {
        /* Errors are fine here: the fd may be closed already, and then epoll dropped it. */
        if (km)
            ctl(state->epfd, EPOLL_CTL_DEL, fd, 0, 0);
        slot->bk.epoll_mask = 0;
        slot->applied = 0;
        slot->reset = 0;
        return;
    }
    if (km == 0) {
        /* Afresh: the number may name a new file. EEXIST means it is the same file,
         * still registered: update it (mask and generation). */
        r = ctl(state->epfd, EPOLL_CTL_ADD, fd, want, tag(fd, slot->gen));
        if (r == -EEXIST)
            r = ctl(state->epfd, EPOLL_CTL_MOD, fd, want, tag(fd, slot->gen));
        km = want;
    } else if (slot->reset) {
        /* Watched again after a stop, still registered (kept lazily): most often the
         * same file, so MOD first (a watcher stopped and started per request, as
         * asyncio's sock_recv does, then costs one call, not ADD's EEXIST and a MOD).
         * epoll keys a registration by file and number, so MOD reaches only the file
         * the number names now; ENOENT means a new file: ADD it. */
        r = ctl(state->epfd, EPOLL_CTL_MOD, fd, want, tag(fd, slot->gen));
        if (r == -ENOENT)
            r = ctl(state->epfd, EPOLL_CTL_ADD, fd, want, tag(fd, slot->gen));
        km = want;
    } else if (want & ~km) {
        r = ctl(state->epfd, EPOLL_CTL_MOD, fd, want, tag(fd, slot->gen));
        if (r == -ENOENT) /* closed and reopened under the same number since */
            r = ctl(state->epfd, EPOLL_CTL_ADD, fd, want, tag(fd, slot->gen));
        km = want;
    }
    if (r < 0) {
        slot->bk.epoll_mask = 0;
        vigil__fd_failed(loop, fd, r);
        return;
    }
    slot->bk.epoll_mask = km;
    slot->applied = want;
    slot->reset = 0;
}

static int rebuild(vigil_loop *loop, struct epoll_state *state)
{
    int nfd = epoll_create1(EPOLL_CLOEXEC);
    if (nfd < 0)
        return -errno;
    close(state->epfd);
    state->epfd = nfd;
    state->rebuild = false;
    state->tfd_armed_ns = 0;
    if (state->tfd >= 0 && ctl(nfd, EPOLL_CTL_ADD, state->tfd, EPOLLIN, TIMER_TAG) < 0) {
        close(state->tfd);
        state->tfd = -1;
    }
    for (int fd = 0; fd < loop->nfds; fd++) {
        struct vigil__fd *slot = &loop->fds[fd];
        if (!slot->applied)
            continue;
        int r = ctl(nfd, EPOLL_CTL_ADD, fd, slot->applied, tag(fd, slot->gen));
        slot->bk.epoll_mask = r < 0 ? 0 : slot->applied;
        if (r < 0)
            vigil__fd_failed(loop, fd, r);
    }
    return 0;
}

/* No epoll_pwait2: arm a timerfd at the absolute deadline, then wait without timeout. */
static int arm_fallback_timer(struct epoll_state *state, int64_t deadline_ns)
{
    if (state->tfd < 0) {
        state->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (state->tfd < 0)
            return -errno;
        int r = ctl(state->epfd, EPOLL_CTL_ADD, state->tfd, EPOLLIN, TIMER_TAG);
        if (r < 0) {
            close(state->tfd);
            state->tfd = -1;
            return r;
        }
    }
    if (state->tfd_armed_ns == deadline_ns)
        return 0;
    struct itimerspec its = {{0, 0}, vigil__ns_to_ts(deadline_ns)};
    if (timerfd_settime(state->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -errno;
    state->tfd_armed_ns = deadline_ns;
    return 0;
}

static int wait_events(struct epoll_state *state, const struct vigil__wait *w)
{
    if (w->timeout_ns <= 0)
        return vigil__epoll_wait(state->epfd, state->evs, VIGIL__EV_CAP, w->timeout_ns < 0 ? -1 : 0);
    if (!state->no_pwait2) {
        struct timespec ts = vigil__ns_to_ts(w->timeout_ns);
        int n = vigil__epoll_pwait2(state->epfd, state->evs, VIGIL__EV_CAP, &ts);
        if (n != -ENOSYS)
            return n;
        state->no_pwait2 = true; /* built where it exists, running where it does not */
    }
    int r = arm_fallback_timer(state, w->deadline_ns);
    if (r < 0)
        return r;
    return vigil__epoll_wait(state->epfd, state->evs, VIGIL__EV_CAP, -1);
}

static int collect(vigil_loop *loop, struct epoll_state *state, int n);

/* A turn with changes, a wait, or a set to rebuild. */
static __attribute__((noinline)) int turn_full(vigil_loop *loop, struct epoll_state *state, const struct vigil__wait *w)
{
    struct vigil__wait rest;
    for (int i = 0; i < loop->ndirty; i++)
        apply(loop, state, loop->dirty[i]);
    if (state->rebuild) {
        int r = rebuild(loop, state);
        if (r < 0)
            return r;
    }
    for (;;) {
        int n = wait_events(state, w);
        if (n <= 0)
            return n;
        state->spurious = false;
        n = collect(loop, state, n);
        /* Only lazily kept bits fired (now narrowed): that is no reason to end a wait. */
        if (n > 0 || !state->spurious || w->timeout_ns == 0)
            return n;
        if (w->timeout_ns > 0) {
            int64_t left = w->deadline_ns - vigil__clock_ns(CLOCK_MONOTONIC);
            if (left <= 0)
                return 0;
            rest = (struct vigil__wait){left, w->deadline_ns};
            w = &rest;
        }
    }
}

/* Turns epoll's events (state->evs[0..n)) into the loop's. */
static int collect(vigil_loop *loop, struct epoll_state *state, int n)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        uint64_t d = state->evs[i].data.u64;
        if (d == TIMER_TAG) {
            uint64_t ticks;
            if (read(state->tfd, &ticks, sizeof ticks) < 0) {
                /* EAGAIN: already consumed; nothing else can fail on a timerfd */
            }
            state->tfd_armed_ns = 0;
            continue;
        }
        int fd = (int)(uint32_t)d;
        uint32_t gen = (uint32_t)(d >> 32);
        if (fd >= loop->nfds || loop->fds[fd].gen != gen || !loop->fds[fd].applied) {
            state->rebuild = true; /* epoll holds a registration the loop does not: the next
                                   turn makes a new set */
            continue;
        }
        struct vigil__fd *slot = &loop->fds[fd];
        uint32_t ev = state->evs[i].events;
        if (ev & ~(slot->applied | EPOLLERR | EPOLLHUP)) {
            /* A bit the loop no longer wants, kept registered lazily, fired: narrow the
             * registration to what is wanted now, and pass on only what is wanted. */
            if (ctl(state->epfd, EPOLL_CTL_MOD, fd, slot->applied, tag(fd, gen)) == 0)
                slot->bk.epoll_mask = slot->applied;
            ev &= slot->applied | EPOLLERR | EPOLLHUP;
            if (!ev) {
                state->spurious = true;
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

/* Step 2 of the turn. The idle case (nothing to change, must not sleep) is inlined into
 * the run loop: its epoll_wait returns straight into vigil_loop_run's frame (turn.h). */
static inline __attribute__((always_inline)) int epoll_turn(vigil_loop *loop, const struct vigil__wait *w)
{
    struct epoll_state *state = loop->bk;
    if (w->timeout_ns == 0 && loop->ndirty == 0 && !state->rebuild) {
        int n = vigil__epoll_wait(state->epfd, state->evs, VIGIL__EV_CAP, 0);
        return n > 0 ? collect(loop, state, n) : n;
    }
    return turn_full(loop, state, w);
}

static __attribute__((noinline)) int run_general(vigil_loop *loop, enum vigil_run_mode mode)
{
    return vigil__run(loop, mode, epoll_turn, false);
}

/* The plain non-blocking turn (turn.h) is tested first, ahead of the general run, so
 * that its path (a few loads, the epoll_wait, a return) is not charged the general run's
 * register saves; everything else tail-calls run_general. */
static int be_run(vigil_loop *loop, enum vigil_run_mode mode)
{
    struct epoll_state *state = loop->bk;
    if (mode == VIGIL_RUN_NOWAIT && vigil__turn_plain(loop) && !state->rebuild) {
        vigil__plain_begin(loop);
        int n = vigil__epoll_wait(state->epfd, state->evs, VIGIL__EV_CAP, 0);
        return vigil__plain_end(loop, n > 0 ? collect(loop, state, n) : n);
    }
    return run_general(loop, mode);
}

/* vigil closes fd next (its watchers have stopped, so slot->wanted is 0; the stop is
 * still on the dirty list): apply that stop now, while the number names the file (one
 * EPOLL_CTL_DEL if anything is registered). The dirty entry then finds nothing to do.
 * Applied after the close, as the turn would, the DEL failed with EBADF and left a
 * dup'd file registered (a stray event and a rebuild of the whole set later). */
static void be_fd_closing(vigil_loop *loop, int fd)
{
    apply(loop, loop->bk, fd);
}

const struct vigil__backend vigil__backend_epoll = {
    .name = "epoll",
    .init = be_init,
    .fini = be_fini,
    .run = be_run,
    .fd_closing = be_fd_closing,
};
