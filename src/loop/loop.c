/* The loop: its life cycle, one turn, the fd table and fd watchers, wakeup.
 *
 * A turn (turn() below):
 *   1. fire due timers (only if a timer is armed: no clock read otherwise);
 *   2. hand the backend the dirty fds (wanted mask != applied mask) and the wait the
 *      timers allow: it applies them all and waits, in one system call where it can;
 *   3. report registrations the backend could not apply, then dispatch events;
 *   4. finish a precise timer's wait, fire due timers.
 *
 * Watchers of one fd hang on its slot in start order. Safety of dispatch:
 *   - stopping a watcher from any callback: vigil_io_stop advances loop->iter_next when
 *     it unlinks the watcher the walk would visit next, so the walk never touches a
 *     stopped watcher;
 *   - a reused fd number: a slot's generation is bumped when its last watcher stops,
 *     and every event carries the generation of the registration that produced it; an
 *     event whose generation differs is dropped, and the walk ends as soon as the
 *     generation moves under it (the watchers after that point belong to a new file);
 *   - the fd table may grow (and move) inside a callback: slots are re-read by index.
 */
#include "loop/loop.h"
#include "sys/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

const clockid_t vigil__clk_id[VIGIL__CLK_N] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};

#define IO_EVENTS (VIGIL_READ | VIGIL_WRITE | VIGIL_PRI)
#define FD_TABLE_MIN 64

/* ------------------------------------------------------------------ clocks */

int vigil__clk_index(clockid_t clock)
{
    switch (clock) {
    case CLOCK_MONOTONIC: return VIGIL__CLK_MONO;
    case CLOCK_BOOTTIME: return VIGIL__CLK_BOOT;
    case CLOCK_REALTIME: return VIGIL__CLK_REAL;
    default: return -1;
    }
}

int64_t vigil__now(vigil_loop *loop, int clk)
{
    if (loop->now_epoch[clk] != loop->clock_epoch) {
        struct timespec ts;
        clock_gettime(vigil__clk_id[clk], &ts); /* vDSO: no system call */
        loop->now[clk] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        loop->now_epoch[clk] = loop->clock_epoch;
    }
    return loop->now[clk];
}

void vigil__now_invalidate(vigil_loop *loop)
{
    loop->clock_epoch++;
}

int64_t vigil_loop_now(vigil_loop *loop)
{
    return vigil__now(loop, VIGIL__CLK_MONO);
}

/* ------------------------------------------------------------------ fd table */

int vigil__fd_reserve(vigil_loop *loop, int fd)
{
    if (fd < loop->nfds)
        return 0;
    int cap = loop->nfds ? loop->nfds : FD_TABLE_MIN;
    while (cap <= fd) {
        if (cap > (1 << 29))
            return -EMFILE;
        cap *= 2;
    }
    /* Allocate both before changing either, so a failure leaves the loop as it was. */
    struct vigil__fd *fds = malloc((size_t)cap * sizeof *fds);
    int *dirty = malloc((size_t)cap * sizeof *dirty);
    if (!fds || !dirty) {
        free(fds);
        free(dirty);
        return -ENOMEM;
    }
    if (loop->nfds) {
        memcpy(fds, loop->fds, (size_t)loop->nfds * sizeof *fds);
        memcpy(dirty, loop->dirty, (size_t)loop->ndirty * sizeof *dirty);
    }
    memset(fds + loop->nfds, 0, (size_t)(cap - loop->nfds) * sizeof *fds);
    for (int i = loop->nfds; i < cap; i++)
        fds[i].fail_next = -1;
    free(loop->fds);
    free(loop->dirty);
    loop->fds = fds;
    loop->dirty = dirty;
    loop->nfds = cap;
    if (loop->backend && loop->backend->fd_table_grown)
        loop->backend->fd_table_grown(loop);
    return 0;
}

static void mark_dirty(vigil_loop *loop, int fd, struct vigil__fd *slot)
{
    if (!slot->dirty && (slot->wanted != slot->applied || slot->reset)) {
        slot->dirty = 1;
        loop->dirty[loop->ndirty++] = fd; /* each fd at most once: capacity nfds */
    }
}

static uint32_t slot_mask(const struct vigil__fd *slot)
{
    uint32_t m = 0;
    for (const vigil_io *w = slot->head; w; w = w->next)
        m |= w->events;
    return m;
}

void vigil__fd_failed(vigil_loop *loop, int fd, int err)
{
    struct vigil__fd *slot = &loop->fds[fd];
    slot->applied = 0;
    slot->reset = 0;
    if (slot->failed == 0) {
        slot->failed = err;
        slot->fail_next = loop->fail_head;
        loop->fail_head = fd;
    }
}

int vigil__fd_pollable(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return -EPERM;
    return 0;
}

/* ------------------------------------------------------------- fd watchers */

static int io_start(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb, uint32_t state)
{
    if (!loop || !w || !cb)
        return -EINVAL;
    if (fd < 0)
        return -EBADF;
    if (events == 0 || (events & ~IO_EVENTS))
        return -EINVAL;
    if (w->state & VIGIL__IO_ACTIVE)
        return -EBUSY;
    /* A closed fd is refused here, before the table grows for a bogus number. */
    if (fcntl(fd, F_GETFD) < 0)
        return -EBADF;
    int r = vigil__fd_reserve(loop, fd);
    if (r < 0)
        return r;
    struct vigil__fd *slot = &loop->fds[fd];
    w->cb = cb;
    w->fd = fd;
    w->events = events;
    w->state = VIGIL__IO_ACTIVE | state;
    w->next = NULL;
    /* Append: watchers of one fd run in start order. */
    vigil_io **pp = &slot->head;
    vigil_io *prev = NULL;
    while (*pp) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    w->prev = prev;
    *pp = w;
    slot->nwatch++;
    slot->wanted |= events;
    mark_dirty(loop, fd, slot);
    if (!(state & VIGIL__IO_INTERNAL))
        loop->active++;
    return 0;
}

int vigil_io_start(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb)
{
    return io_start(loop, w, fd, events, cb, 0);
}

int vigil__io_start_internal(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb)
{
    return io_start(loop, w, fd, events, cb, VIGIL__IO_INTERNAL);
}

int vigil_io_modify(vigil_loop *loop, vigil_io *w, uint32_t events)
{
    if (!loop || !w)
        return -EINVAL;
    if (!(w->state & VIGIL__IO_ACTIVE))
        return -EINVAL;
    if (events == 0 || (events & ~IO_EVENTS))
        return -EINVAL;
    if (events == w->events)
        return 0; /* unchanged costs nothing */
    struct vigil__fd *slot = &loop->fds[w->fd];
    w->events = events;
    slot->wanted = slot_mask(slot);
    mark_dirty(loop, w->fd, slot);
    return 0;
}

int vigil_io_stop(vigil_loop *loop, vigil_io *w)
{
    if (!loop || !w)
        return -EINVAL;
    if (!(w->state & VIGIL__IO_ACTIVE))
        return 0;
    int fd = w->fd;
    struct vigil__fd *slot = &loop->fds[fd];
    if (loop->iter_next == w)
        loop->iter_next = w->next;
    if (w->prev)
        w->prev->next = w->next;
    else
        slot->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->next = w->prev = NULL;
    if (!(w->state & VIGIL__IO_INTERNAL))
        loop->active--;
    w->state = 0;
    if (--slot->nwatch == 0) {
        /* The number may name another file before the next turn: new generation, and
         * whatever was applied must be registered afresh. */
        slot->gen++;
        slot->wanted = 0;
        if (slot->applied)
            slot->reset = 1;
    } else {
        slot->wanted = slot_mask(slot);
    }
    mark_dirty(loop, fd, slot);
    return 0;
}

int vigil_io_active(const vigil_io *w)
{
    return w && (w->state & VIGIL__IO_ACTIVE) != 0;
}

/* Registrations the backend refused: each watcher of the fd hears the error once and is
 * stopped. The slot's failure is cleared first, so a watcher started again on the same
 * fd from the callback is a fresh registration. */
static void report_failures(vigil_loop *loop)
{
    while (loop->fail_head >= 0) {
        int fd = loop->fail_head;
        struct vigil__fd *slot = &loop->fds[fd];
        int err = slot->failed;
        loop->fail_head = slot->fail_next;
        slot->fail_next = -1;
        slot->failed = 0;
        /* Mark the watchers the failure belongs to: a callback may stop some of them or
         * start new ones (those get a fresh registration next turn). */
        for (vigil_io *w = slot->head; w; w = w->next)
            w->state |= VIGIL__IO_FAILING;
        for (;;) {
            vigil_io *w = loop->fds[fd].head;
            while (w && !(w->state & VIGIL__IO_FAILING))
                w = w->next;
            if (!w)
                break;
            vigil_io_cb cb = w->cb;
            vigil_io_stop(loop, w);
            loop->in_callback++;
            cb(loop, w, err);
            loop->in_callback--;
        }
    }
}

static void dispatch(vigil_loop *loop, int n)
{
    for (int i = 0; i < n; i++) {
        const struct vigil__event ev = loop->ev[i];
        if (ev.fd < 0 || ev.fd >= loop->nfds)
            continue;
        if (loop->fds[ev.fd].gen != ev.gen)
            continue; /* a registration that no longer exists: not for these watchers */
        for (vigil_io *w = loop->fds[ev.fd].head; w; w = loop->iter_next) {
            loop->iter_next = w->next;
            uint32_t r = ev.revents & (w->events | VIGIL_ERR | VIGIL_HUP);
            if (r) {
                loop->in_callback++;
                w->cb(loop, w, (int)r);
                loop->in_callback--;
            }
            if (loop->fds[ev.fd].gen != ev.gen)
                break; /* every watcher stopped: the rest are a new file's */
        }
        loop->iter_next = NULL;
    }
}

/* ------------------------------------------------------------------ wakeup */

int vigil_wakeup(vigil_loop *loop)
{
    if (!loop)
        return -EINVAL;
    /* Only the first wakeup since the loop last drained writes: later ones coalesce. */
    if (atomic_exchange_explicit(&loop->wake_pending, 1, memory_order_acq_rel) == 0) {
        uint64_t one = 1;
        if (write(loop->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
            return -errno;
    }
    return 0;
}

static void wake_cb(vigil_loop *loop, vigil_io *w, int revents)
{
    (void)w;
    (void)revents;
    /* Clear the flag before draining: a wakeup racing with us either sees 0 and writes
     * (we or the next turn drain it), or saw 1 before we cleared and is served by the
     * on_wakeup call below, which runs after both. */
    atomic_store_explicit(&loop->wake_pending, 0, memory_order_release);
    uint64_t v;
    while (read(loop->wake_fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
    if (loop->on_wakeup)
        loop->on_wakeup(loop, loop->data);
}

/* ------------------------------------------------------------------- turns */

/* Clears the dirty marks of what the backend applied (or refused: those are on the
 * failure list with applied = 0, their watchers about to stop); keeps what it did not
 * get to (a backend that stopped early on an error). */
static void keep_unapplied(vigil_loop *loop)
{
    int keep = 0;
    for (int i = 0; i < loop->ndirty; i++) {
        int fd = loop->dirty[i];
        struct vigil__fd *slot = &loop->fds[fd];
        if (slot->failed == 0 && (slot->wanted != slot->applied || slot->reset))
            loop->dirty[keep++] = fd;
        else
            slot->dirty = 0;
    }
    loop->ndirty = keep;
}

/* Inlined into vigil_loop_run: the idle probe's system call then returns straight to
 * the caller's frame (see backend.h). */
static inline __attribute__((always_inline)) int turn(vigil_loop *loop, enum vigil_run_mode mode)
{
    loop->turns++;
    loop->clock_epoch++;
    bool timers = loop->heap[VIGIL__CLK_MONO].n | loop->heap[VIGIL__CLK_BOOT].n | loop->heap[VIGIL__CLK_REAL].n;
    int fired = timers ? vigil__timers_run(loop) : 0;

    /* Never sleep when this turn already ran callbacks (a RUN_ONCE whose first pass
     * fired the last active timer would otherwise wait forever), nor when nothing is
     * left that could end the wait (an on_wakeup callback counts: such a loop waits
     * for vigil_wakeup). */
    struct vigil__wait w = {-1, 0};
    if (mode == VIGIL_RUN_NOWAIT || loop->stop || loop->fail_head >= 0 || fired > 0 ||
        (loop->active == 0 && !loop->on_wakeup))
        w.timeout_ns = 0;
    else if (timers)
        vigil__timers_wait(loop, &w);
    if (w.timeout_ns != 0)
        loop->waits++;

    int n;
    if (w.timeout_ns == 0 && loop->ndirty == 0 && loop->idle_fd >= 0) {
        n = vigil__epoll_wait(loop->idle_fd, loop->idle_buf, VIGIL__EV_CAP, 0); /* see backend.h */
        if (n > 0)
            n = loop->backend->collect(loop, n);
    } else {
        n = loop->backend->turn(loop, loop->dirty, loop->ndirty, &w);
    }
    if (loop->ndirty)
        keep_unapplied(loop);
    if (n < 0 && n != -EINTR && n != -ETIME && n != -EAGAIN)
        return n;
    loop->clock_epoch++;
    if (loop->fail_head >= 0)
        report_failures(loop);
    if (n > 0)
        dispatch(loop, n);
    if (timers || loop->heap[VIGIL__CLK_MONO].n | loop->heap[VIGIL__CLK_BOOT].n | loop->heap[VIGIL__CLK_REAL].n) {
        vigil__timers_finish(loop);
        vigil__timers_run(loop);
    }
    return 0;
}

int vigil_loop_run(vigil_loop *loop, enum vigil_run_mode mode)
{
    if (!loop || (mode != VIGIL_RUN_DEFAULT && mode != VIGIL_RUN_ONCE && mode != VIGIL_RUN_NOWAIT))
        return -EINVAL;
    for (;;) {
        int r = turn(loop, mode);
        if (r < 0)
            return r;
        if (mode != VIGIL_RUN_DEFAULT || loop->stop || loop->active == 0)
            break;
    }
    loop->stop = false;
    return loop->active ? 1 : 0;
}

void vigil_loop_stop(vigil_loop *loop)
{
    if (loop)
        loop->stop = true;
}

/* ------------------------------------------------------------- life cycle */

void vigil_loop_options_init(struct vigil_loop_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

static const struct vigil__backend *backend_named(const char *name)
{
    if (!strcmp(name, "uring"))
        return &vigil__backend_uring;
    if (!strcmp(name, "epoll"))
        return &vigil__backend_epoll;
    if (!strcmp(name, "poll"))
        return &vigil__backend_poll;
    return NULL;
}

/* AUTO tries io_uring, then epoll, then poll, and keeps why it fell back. A forced
 * backend the kernel refuses is an error: the caller asked for it by name. */
static int pick_backend(vigil_loop *loop, int kind)
{
    static const struct vigil__backend *const order[] = {&vigil__backend_uring, &vigil__backend_epoll,
                                                        &vigil__backend_poll};
    const struct vigil__backend *forced = NULL;
    if (kind == VIGIL_BACKEND_URING)
        forced = &vigil__backend_uring;
    else if (kind == VIGIL_BACKEND_EPOLL)
        forced = &vigil__backend_epoll;
    else if (kind == VIGIL_BACKEND_POLL)
        forced = &vigil__backend_poll;
    else if (kind != VIGIL_BACKEND_AUTO)
        return -EINVAL;
    if (!forced) {
        const char *env = getenv("VIGIL_BACKEND");
        if (env && *env && strcmp(env, "auto") != 0) {
            forced = backend_named(env);
            if (!forced)
                return -EINVAL;
        }
    }
    if (forced) {
        loop->backend = forced;
        int r = forced->init(loop);
        if (r < 0) {
            loop->backend = NULL;
            return r == -ENOMEM ? r : -ENOSYS;
        }
        snprintf(loop->bk_reason, sizeof loop->bk_reason, "forced");
        return 0;
    }
    char why[sizeof loop->bk_reason] = "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        loop->backend = order[i];
        loop->bk_reason[0] = 0;
        int r = order[i]->init(loop);
        if (r == 0) {
            if (why[0])
                snprintf(loop->bk_reason, sizeof loop->bk_reason, "%s", why);
            else
                snprintf(loop->bk_reason, sizeof loop->bk_reason, "first choice");
            return 0;
        }
        if (!why[0] && snprintf(why, sizeof why, "%s: %s", order[i]->name,
                                loop->bk_reason[0] ? loop->bk_reason : strerror(-r)) < 0)
            why[0] = 0;
    }
    loop->backend = NULL;
    return -ENOSYS;
}

int vigil_loop_new(vigil_loop **out, const struct vigil_loop_options *opt)
{
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (opt) {
        if (opt->size < offsetof(struct vigil_loop_options, reserved) || opt->size > sizeof o)
            return -EINVAL;
        memcpy(&o, opt, opt->size);
        for (size_t i = 0; i < sizeof o.reserved / sizeof o.reserved[0]; i++)
            if (o.reserved[i])
                return -EINVAL;
        if (o.flags & ~VIGIL_LOOP_PRECISE || o.precise_budget_ns < 0)
            return -EINVAL;
    }
    vigil_loop *loop = calloc(1, sizeof *loop);
    if (!loop)
        return -ENOMEM;
    loop->wake_fd = loop->sig_fd = -1;
    loop->idle_fd = -1;
    loop->fail_head = -1;
    loop->old_slack = -1;
    loop->flags = o.flags;
    loop->precise_budget_ns = o.precise_budget_ns ? o.precise_budget_ns : 200000;
    loop->on_wakeup = o.on_wakeup;
    loop->data = o.data;
    for (int c = 0; c < VIGIL__CLK_N; c++)
        loop->clk_fd[c] = -1;
    loop->clock_epoch = 1;
    sigemptyset(&loop->sig_mask);

    int r = vigil__fd_reserve(loop, FD_TABLE_MIN - 1);
    if (r < 0)
        goto out_free;
    r = pick_backend(loop, o.backend);
    if (r < 0)
        goto out_free;
    r = vigil__timers_init(loop);
    if (r < 0)
        goto out_backend;
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->wake_fd < 0) {
        r = -errno;
        goto out_timers;
    }
    r = vigil__io_start_internal(loop, &loop->wake_io, loop->wake_fd, VIGIL_READ, wake_cb);
    if (r < 0)
        goto out_wake;
    if (o.timer_slack_ns >= 0) {
        /* Timer slack is per thread: remember it, restore it at free. */
        int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
        unsigned long slack = o.timer_slack_ns ? (unsigned long)o.timer_slack_ns : 1;
        if (old >= 0 && prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0) == 0)
            loop->old_slack = old;
    }
    *out = loop;
    return 0;

out_wake:
    close(loop->wake_fd);
out_timers:
    vigil__timers_fini(loop);
out_backend:
    loop->backend->fini(loop);
out_free:
    free(loop->fds);
    free(loop->dirty);
    free(loop);
    return r;
}

int vigil_loop_free(vigil_loop *loop)
{
    if (!loop)
        return -EINVAL;
    if (loop->in_callback)
        return -EBUSY;
    if (loop->file_fini)
        loop->file_fini(loop);
    vigil__signals_fini(loop);
    vigil__timers_fini(loop);
    loop->backend->fini(loop);
    if (loop->wake_fd >= 0)
        close(loop->wake_fd);
    if (loop->old_slack >= 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)loop->old_slack, 0, 0, 0);
    free(loop->fds);
    free(loop->dirty);
    free(loop);
    return 0;
}

const char *vigil_loop_backend(const vigil_loop *loop)
{
    return loop && loop->backend ? loop->backend->name : "none";
}

const char *vigil_loop_backend_reason(const vigil_loop *loop)
{
    return loop ? loop->bk_reason : "";
}

void *vigil_loop_data(const vigil_loop *loop)
{
    return loop ? loop->data : NULL;
}
