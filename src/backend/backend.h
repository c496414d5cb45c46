/* src/backend/: the wait engines behind one interface, one file each (epoll.c, poll.c,
 * uring.c). The loop owns the order of a turn (src/loop/turn.h); a backend owns only
 * how the turn reaches the kernel. May call: src/loop's core (fd table, failures),
 * src/ring (io_uring), src/sys.
 *
 * Each backend file defines its turn step (step 2 of turn.h) and compiles the loop's
 * turn around it with vigil__run(), exported here as run(). The statics that fill this
 * interface have the same names in every backend file: be_init, be_fini, be_run (and
 * be_fd_closing where the backend has one). The turn step:
 *   1. applies each dirty fd's change (loop->dirty[0..ndirty); slot->wanted vs
 *      slot->applied; slot->reset means "the watchers of this fd number were all
 *      stopped since it was applied: the number may now name another file, register it
 *      afresh"); sets slot->applied = slot->wanted and clears slot->reset on success;
 *      on failure calls vigil__fd_failed(loop, fd, -errno) (which stops that fd's
 *      watchers and reports the error to each once, in step 3 of the turn);
 *   2. waits: w->timeout_ns < 0 forever, 0 not at all, > 0 at most that long; when
 *      > 0, w->deadline_ns is the same instant as an absolute CLOCK_MONOTONIC time;
 *   3. stores ready events in loop->ev[0..n) (at most VIGIL__EV_CAP) and returns n, or a
 *      negative errno (-EINTR, -ETIME, -EAGAIN, -EBUSY: the wait is over, not an error).
 * A backend may wait more than once inside its step when a wake-up brought nothing the
 * loop asked for (lazy narrowing, below), but never past w's deadline.
 *
 * Each event carries the fd and the slot generation the backend saw when it applied
 * that registration (slot->gen at the time): the loop drops events whose generation is
 * stale, so a reused fd number never gets another file's event.
 *
 * Lazy narrowing (epoll and io_uring): a change that only drops bits from an fd's mask
 * is not sent; the kernel keeps watching the wider mask (slot->bk records it), the loop
 * filters events by each watcher's mask, and if a dropped bit does fire the backend
 * narrows the registration then and does not end the wait for it.
 */
#ifndef VIGIL_BACKEND_H
#define VIGIL_BACKEND_H

#include <stdint.h>

#include "vigil.h"

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
    /* Sets up loop->bk (and loop->ring, for io_uring). Returns 0 or a negative errno
     * (and may say why in loop->bk_reason). */
    int (*init)(vigil_loop *loop);
    void (*fini)(vigil_loop *loop);
    /* vigil_loop_run for this backend: the turns of src/loop/turn.h around its step. */
    int (*run)(vigil_loop *loop, enum vigil_run_mode mode);
    /* Optional: the fd table moved or grew (slot pointers changed); may be NULL. */
    void (*fd_table_grown)(vigil_loop *loop);
    /* Optional: vigil is about to close fd, a file it owns whose watchers have all
     * stopped (vigil__fd_close). A backend whose kernel registration is keyed by the
     * number drops it now, while the number still names the file: epoll's
     * EPOLL_CTL_DEL after close() fails (EBADF) and, if a dup or a forked child keeps
     * the file open, leaves it registered. May be NULL (poll and io_uring: their
     * registrations end by user data or are rebuilt every turn). */
    void (*fd_closing)(vigil_loop *loop, int fd);
};

extern const struct vigil__backend vigil__backend_epoll;
extern const struct vigil__backend vigil__backend_poll;
extern const struct vigil__backend vigil__backend_uring;

#endif
