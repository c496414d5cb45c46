/* The loop's core: cached clocks, the fd table, fd watchers, the report of failed
 * registrations, the dispatch of fd events, and the completion point's queue. Calls
 * nothing above it (no module, no backend by name: a backend is told of a moved fd table
 * through its table's fd_table_grown).
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
#include "sys/clock.h"
#include "sys/list.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

VIGIL__HLIST_DEFINE(io_list, struct vigil__io, next, prev)

const clockid_t vigil__clk_id[VIGIL__CLK_N] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};

#define IO_EVENTS (VIGIL_READ | VIGIL_WRITE | VIGIL_PRI)


/* ------------------------------------------------------------------ clocks */

int vigil__clk_index(int clock)
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
        loop->now[clk] = vigil__clock_ns(vigil__clk_id[clk]); /* vDSO: no system call */
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
    int cap = loop->nfds ? loop->nfds : VIGIL__FD_TABLE_MIN;
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
    for (const struct vigil__io *w = slot->head; w; w = w->next)
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

void vigil__fd_close(vigil_loop *loop, int fd)
{
    if (fd < 0)
        return;
    if (fd < loop->nfds && loop->fds[fd].nwatch == 0 && loop->backend && loop->backend->fd_closing)
        loop->backend->fd_closing(loop, fd);
    close(fd);
}

/* ------------------------------------------------------------- fd watchers */

static int io_start(vigil_loop *loop, vigil_io *pub, int fd, uint32_t events, vigil_io_cb cb, uint32_t state)
{
    struct vigil__io *w = pub ? vigil__io(pub) : NULL;
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
    struct vigil__io **pp = &slot->head;
    struct vigil__io *prev = NULL;
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

int vigil_io_modify(vigil_loop *loop, vigil_io *pub, uint32_t events)
{
    struct vigil__io *w = pub ? vigil__io(pub) : NULL;
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

int vigil_io_stop(vigil_loop *loop, vigil_io *pub)
{
    struct vigil__io *w = pub ? vigil__io(pub) : NULL;
    if (!loop || !w)
        return -EINVAL;
    if (!(w->state & VIGIL__IO_ACTIVE))
        return 0;
    int fd = w->fd;
    struct vigil__fd *slot = &loop->fds[fd];
    if (loop->iter_next == w)
        loop->iter_next = w->next;
    io_list_del(&slot->head, w);
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

int vigil_io_active(const vigil_io *pub)
{
    const struct vigil__io *w = (const struct vigil__io *)(const void *)pub;
    return w && (w->state & VIGIL__IO_ACTIVE) != 0;
}

/* Registrations the backend refused: each watcher of the fd hears the error once and is
 * stopped. The slot's failure is cleared first, so a watcher started again on the same
 * fd from the callback is a fresh registration. */
void vigil__report_failures(vigil_loop *loop)
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
        for (struct vigil__io *w = slot->head; w; w = w->next)
            w->state |= VIGIL__IO_FAILING;
        for (;;) {
            struct vigil__io *w = loop->fds[fd].head;
            while (w && !(w->state & VIGIL__IO_FAILING))
                w = w->next;
            if (!w)
                break;
            vigil_io_cb cb = w->cb;
            vigil_io_stop(loop, vigil__io_pub(w));
            loop->in_callback++;
            cb(loop, vigil__io_pub(w), err);
            loop->in_callback--;
        }
    }
}

void vigil__dispatch(vigil_loop *loop, int n)
{
    for (int i = 0; i < n; i++) {
        const struct vigil__event ev = loop->ev[i];
        if (ev.fd < 0 || ev.fd >= loop->nfds)
            continue;
        if (loop->fds[ev.fd].gen != ev.gen)
            continue; /* a registration that no longer exists: not for these watchers */
        for (struct vigil__io *w = loop->fds[ev.fd].head; w; w = loop->iter_next) {
            loop->iter_next = w->next;
            uint32_t r = ev.revents & (w->events | VIGIL_ERR | VIGIL_HUP);
            if (r) {
                loop->in_callback++;
                w->cb(loop, vigil__io_pub(w), (int)r);
                loop->in_callback--;
            }
            if (loop->fds[ev.fd].gen != ev.gen)
                break; /* every watcher stopped: the rest are a new file's */
        }
        loop->iter_next = NULL;
    }
}

void vigil__fd_mark_dirty(vigil_loop *loop, int fd)
{
    mark_dirty(loop, fd, &loop->fds[fd]);
}

/* Clears the dirty marks of what the backend applied (or refused: those are on the
 * failure list with applied = 0, their watchers about to stop); keeps what it did not
 * get to (a backend that stopped early on an error). */
void vigil__keep_unapplied(vigil_loop *loop)
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

/* ------------------------------------------------------- completion point */

void vigil__defer(vigil_loop *loop, struct vigil__deferred *d)
{
    if (d->queued)
        return;
    d->queued = true;
    d->next = NULL;
    *loop->later_tail = d;
    loop->later_tail = &d->next;
}

void vigil__undefer(vigil_loop *loop, struct vigil__deferred *d)
{
    if (!d->queued)
        return;
    for (struct vigil__deferred **pp = &loop->later_head; *pp; pp = &(*pp)->next) {
        if (*pp == d) {
            *pp = d->next;
            if (loop->later_tail == &d->next)
                loop->later_tail = pp;
            break;
        }
    }
    d->queued = false;
    d->next = NULL;
}

void vigil__run_deferred(vigil_loop *loop)
{
    /* One at a time from the head, so a run that stops another module's work (and
     * unqueues it) never leaves this walk a dangling pointer. Work queued while this
     * runs goes to the next turn's completion point: only what was queued now runs. */
    unsigned n = 0;
    for (struct vigil__deferred *d = loop->later_head; d; d = d->next)
        n++;
    while (n-- > 0 && loop->later_head) {
        struct vigil__deferred *d = loop->later_head;
        loop->later_head = d->next;
        if (!loop->later_head)
            loop->later_tail = &loop->later_head;
        d->queued = false;
        d->next = NULL;
        d->run(loop, d);
    }
}
