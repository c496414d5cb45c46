/* The interface every wait engine implements. The loop owns the order of a turn;
 * a backend owns only how the turn reaches the kernel.
 *
 * Per turn the loop calls turn() exactly once, with the fds whose wanted mask may differ
 * from what the backend applied (the dirty list) and the wait it wants. The backend:
 *   1. applies each dirty fd's change (slot->wanted vs slot->applied; slot->reset means
 *      "the watchers of this fd number were all stopped since it was applied: the
 *      number may now name another file, register it afresh");
 *      sets slot->applied = slot->wanted and clears slot->reset on success;
 *      on failure calls vigil__fd_failed(loop, fd, -errno) (which stops that fd's
 *      watchers and reports the error to each once, after the turn);
 *   2. waits: w->timeout_ns < 0 forever, 0 not at all, > 0 at most that long; when
 *      > 0, w->deadline_ns is the same instant as an absolute CLOCK_MONOTONIC time;
 *   3. stores ready events in loop->ev[0..n) (at most loop->ev_cap) and returns n, or a
 *      negative errno (-EINTR is fine: the loop just goes on).
 * One system call for all of it is the ideal (io_uring); epoll makes one per change plus
 * the wait; poll needs none for changes.
 *
 * Each event carries the fd and the slot generation the backend saw when it applied
 * that registration (slot->gen at the time): the loop drops events whose generation is
 * stale, so a reused fd number never gets another file's event.
 */
#ifndef VIGIL_BACKEND_H
#define VIGIL_BACKEND_H

#include <stdint.h>

struct vigil_loop;

struct vigil__wait {
    int64_t timeout_ns;  /* < 0 forever, 0 poll, > 0 relative */
    int64_t deadline_ns; /* CLOCK_MONOTONIC absolute, valid when timeout_ns > 0 */
};

struct vigil__event {
    int32_t fd;
    uint32_t gen;
    uint32_t revents; /* VIGIL_READ... */
};

struct vigil__backend {
    const char *name;
    /* Sets up loop->bk. Returns 0 or a negative errno (and may set loop->bk_reason). */
    int (*init)(struct vigil_loop *loop);
    void (*fini)(struct vigil_loop *loop);
    int (*turn)(struct vigil_loop *loop, const int *dirty, int ndirty, const struct vigil__wait *w);
    /* Optional, with loop->idle_fd >= 0: the idle probe. A non-blocking turn with no
     * changes is answered by one epoll_wait(loop->idle_fd, loop->idle_buf, EV_CAP, 0)
     * made by the loop itself, in vigil_loop_run's own frame, and collect(loop, n)
     * turns the n events it left in idle_buf into loop->ev (returns the count).
     * Why the loop makes the call: on this kind of machine (AMD EPYC, 6.18, retpoline
     * and RSB-filling mitigations) every function return after a system call costs
     * ~35 ns (the return-stack predictions are gone), a quarter of the whole idle turn;
     * making the call one frame up saves one such return. A backend without the probe
     * leaves idle_fd at -1. */
    int (*collect)(struct vigil_loop *loop, int n);
    /* Optional: the fd table moved or grew (slot pointers changed); may be NULL. */
    void (*fd_table_grown)(struct vigil_loop *loop);
};

extern const struct vigil__backend vigil__backend_epoll;
extern const struct vigil__backend vigil__backend_poll;
extern const struct vigil__backend vigil__backend_uring;

#endif
