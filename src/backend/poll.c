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
#include "loop/turn.h"
#include "sys/clock.h"
#include "sys/sys.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define INLINE_FDS 64

struct poll_state {
    struct pollfd *pfd; /* inl, or a heap array once the set outgrew it */
    int n, cap;
    int start;          /* where the next turn's scan of revents begins (fairness) */
    struct pollfd inl[INLINE_FDS];
};

static int be_init(vigil_loop *loop)
{
    struct poll_state *state = calloc(1, sizeof *state);
    if (!state)
        return -ENOMEM;
    state->pfd = state->inl;
    state->cap = INLINE_FDS;
    loop->bk = state;
    return 0;
}

static void be_fini(vigil_loop *loop)
{
    struct poll_state *state = loop->bk;
    if (!state)
        return;
    if (state->pfd != state->inl)
        free(state->pfd);
    free(state);
    loop->bk = NULL;
}

static int grow(struct poll_state *state)
{
    int cap = state->cap * 2;
    struct pollfd *p = malloc((size_t)cap * sizeof *p);
    if (!p)
        return -ENOMEM;
    memcpy(p, state->pfd, (size_t)state->n * sizeof *p);
    if (state->pfd != state->inl)
        free(state->pfd);
    state->pfd = p;
    state->cap = cap;
    return 0;
}

/* slot->bk.poll_index is the entry's index + 1 (0: not in the array). */
static void remove_entry(vigil_loop *loop, struct poll_state *state, struct vigil__fd *slot)
{
    int i = (int)slot->bk.poll_index - 1;
    slot->bk.poll_index = 0;
    if (--state->n != i) {
        state->pfd[i] = state->pfd[state->n];
        loop->fds[state->pfd[i].fd].bk.poll_index = (uint32_t)i + 1;
    }
}

static void apply(vigil_loop *loop, struct poll_state *state, int fd)
{
    struct vigil__fd *slot = &loop->fds[fd];
    uint32_t want = slot->wanted;
    if (want == 0) {
        if (slot->bk.poll_index)
            remove_entry(loop, state, slot);
        slot->applied = 0;
        slot->reset = 0;
        return;
    }
    if (slot->applied == 0 || slot->reset) {
        int r = vigil__fd_pollable(fd);
        if (r < 0) {
            if (slot->bk.poll_index)
                remove_entry(loop, state, slot);
            vigil__fd_failed(loop, fd, r);
            return;
        }
    }
    if (!slot->bk.poll_index) {
        if (state->n == state->cap && grow(state) < 0) {
            vigil__fd_failed(loop, fd, -ENOMEM);
            return;
        }
        state->pfd[state->n].fd = fd;
        slot->bk.poll_index = (uint32_t)++state->n;
    }
    state->pfd[slot->bk.poll_index - 1].events = (short)want;
    slot->applied = want;
    slot->reset = 0;
}

/* Step 2 of the turn (turn.h). */
static inline __attribute__((always_inline)) int be_turn(vigil_loop *loop, const struct vigil__wait *w)
{
    struct poll_state *state = loop->bk;
    for (int i = 0; i < loop->ndirty; i++)
        apply(loop, state, loop->dirty[i]);
    struct timespec ts, *tp = NULL;
    if (w->timeout_ns >= 0) {
        ts = vigil__ns_to_ts(w->timeout_ns);
        tp = &ts;
    }
    int n = vigil__ppoll(state->pfd, (unsigned long)state->n, tp);
    if (n <= 0)
        return n;
    /* Which ready fds this turn serves, and in what order. The scan starts where the
     * last one stopped and wraps around: a turn takes at most VIGIL__EV_CAP fds, and a
     * scan always from index 0 served the low entries every turn and the others never
     * while more than that were ready (issue 26: 488 of 1,000 busy connections got
     * nothing); it also lets each fd in turn be dispatched first (the first served get
     * the pool's buffers when they are scarce). tests/net/fair_turns.c counts it. */
    int out = 0, seen = 0, nval = 0, i = state->start < state->n ? state->start : 0, last = -1;
    for (int k = 0; k < state->n && seen < n && out < VIGIL__EV_CAP; k++, i = i + 1 < state->n ? i + 1 : 0) {
        short re = state->pfd[i].revents;
        if (!re)
            continue;
        seen++;
        int fd = state->pfd[i].fd;
        if (re & POLLNVAL) {
            /* Closed while watched: tell its watchers; its entry goes after the scan
             * (a removal moves the last entry into its place), marked told (-1: no
             * event sets every bit) so one the scan did not reach waits for a turn. */
            vigil__fd_failed(loop, fd, -EBADF);
            state->pfd[i].revents = -1;
            nval++;
            continue;
        }
        loop->ev[out].fd = fd;
        loop->ev[out].gen = loop->fds[fd].gen;
        loop->ev[out].revents = (uint16_t)re;
        out++;
        last = i;
    }
    if (last >= 0)
        state->start = last + 1 < state->n ? last + 1 : 0;
    for (int j = 0; nval && j < state->n; j++) {
        if (state->pfd[j].revents != -1)
            continue;
        state->pfd[j].revents = 0;
        remove_entry(loop, state, &loop->fds[state->pfd[j].fd]);
        nval--;
        j--; /* the last entry moved here */
    }
    return out;
}

static __attribute__((noinline)) int run_general(vigil_loop *loop, enum vigil_run_mode mode)
{
    return vigil__run(loop, mode, be_turn, false);
}

/* The plain non-blocking turn (turn.h) first; everything else tail-calls run_general. */
static int be_run(vigil_loop *loop, enum vigil_run_mode mode)
{
    if (mode == VIGIL_RUN_NOWAIT && vigil__turn_plain(loop)) {
        vigil__plain_begin(loop);
        const struct vigil__wait w = {0, 0};
        return vigil__plain_end(loop, be_turn(loop, &w));
    }
    return run_general(loop, mode);
}

const struct vigil__backend vigil__backend_poll = {
    .name = "poll",
    .init = be_init,
    .fini = be_fini,
    .run = be_run,
};
