/* poll backend: ppoll with a nanosecond timeout over a pollfd array kept between turns.
 *
 * The 2006 select/poll patch put small fd sets on the kernel stack instead of a page
 * per call; the user-space half of that idea is here: up to INLINE_FDS entries live in
 * storage allocated with the loop, a larger set moves once to a heap array that is kept
 * and reused (it only grows), so no turn allocates. Changes cost no system call: they
 * edit the array in place (a removal moves the last entry into the hole).
 *
 * poll() has no registration the kernel could refuse, so vigil__fd_pollable() is asked
 * for each new fd to give the results epoll would (EPERM for regular files), and an fd
 * closed while watched (POLLNVAL) is reported to its watchers as -EBADF.
 */
#include "loop/loop.h"
#include "sys/sys.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define INLINE_FDS 64

struct pl {
    struct pollfd *pfd; /* inl, or a heap array once the set outgrew it */
    int n, cap;
    struct pollfd inl[INLINE_FDS];
};

static int pl_init(struct vigil_loop *loop)
{
    struct pl *pl = calloc(1, sizeof *pl);
    if (!pl)
        return -ENOMEM;
    pl->pfd = pl->inl;
    pl->cap = INLINE_FDS;
    loop->bk = pl;
    return 0;
}

static void pl_fini(struct vigil_loop *loop)
{
    struct pl *pl = loop->bk;
    if (!pl)
        return;
    if (pl->pfd != pl->inl)
        free(pl->pfd);
    free(pl);
    loop->bk = NULL;
}

static int grow(struct pl *pl)
{
    int cap = pl->cap * 2;
    struct pollfd *p = malloc((size_t)cap * sizeof *p);
    if (!p)
        return -ENOMEM;
    memcpy(p, pl->pfd, (size_t)pl->n * sizeof *p);
    if (pl->pfd != pl->inl)
        free(pl->pfd);
    pl->pfd = p;
    pl->cap = cap;
    return 0;
}

/* slot->bk is the entry's index + 1 (0: not in the array). */
static void remove_entry(struct vigil_loop *loop, struct pl *pl, struct vigil__fd *slot)
{
    int i = slot->bk - 1;
    slot->bk = 0;
    if (--pl->n != i) {
        pl->pfd[i] = pl->pfd[pl->n];
        loop->fds[pl->pfd[i].fd].bk = i + 1;
    }
}

static void apply(struct vigil_loop *loop, struct pl *pl, int fd)
{
    struct vigil__fd *slot = &loop->fds[fd];
    uint32_t want = slot->wanted;
    if (want == 0) {
        if (slot->bk)
            remove_entry(loop, pl, slot);
        slot->applied = 0;
        slot->reset = 0;
        return;
    }
    if (slot->applied == 0 || slot->reset) {
        int r = vigil__fd_pollable(fd);
        if (r < 0) {
            if (slot->bk)
                remove_entry(loop, pl, slot);
            vigil__fd_failed(loop, fd, r);
            return;
        }
    }
    if (!slot->bk) {
        if (pl->n == pl->cap && grow(pl) < 0) {
            vigil__fd_failed(loop, fd, -ENOMEM);
            return;
        }
        pl->pfd[pl->n].fd = fd;
        slot->bk = ++pl->n;
    }
    pl->pfd[slot->bk - 1].events = (short)want;
    slot->applied = want;
    slot->reset = 0;
}

static int pl_turn(struct vigil_loop *loop, const int *dirty, int ndirty, const struct vigil__wait *w)
{
    struct pl *pl = loop->bk;
    for (int i = 0; i < ndirty; i++)
        apply(loop, pl, dirty[i]);
    struct timespec ts, *tp = NULL;
    if (w->timeout_ns >= 0) {
        ts.tv_sec = w->timeout_ns / 1000000000;
        ts.tv_nsec = w->timeout_ns % 1000000000;
        tp = &ts;
    }
    int n = vigil__ppoll(pl->pfd, (unsigned long)pl->n, tp);
    if (n <= 0)
        return n;
    int out = 0;
    for (int i = 0; i < pl->n && out < n && out < VIGIL__EV_CAP; i++) {
        short re = pl->pfd[i].revents;
        if (!re)
            continue;
        int fd = pl->pfd[i].fd;
        if (re & POLLNVAL) {
            /* Closed while watched: tell its watchers and stop polling it. The entry's
             * removal moves the last entry here; look at index i again. */
            remove_entry(loop, pl, &loop->fds[fd]);
            vigil__fd_failed(loop, fd, -EBADF);
            i--;
            n--;
            continue;
        }
        loop->ev[out].fd = fd;
        loop->ev[out].gen = loop->fds[fd].gen;
        loop->ev[out].revents = (uint16_t)re;
        out++;
    }
    return out;
}

const struct vigil__backend vigil__backend_poll = {
    .name = "poll",
    .init = pl_init,
    .fini = pl_fini,
    .turn = pl_turn,
};
