/* vigil: the loop, fd watchers, timers, signals and wakeup -- the base every other
 * public header of vigil includes (the types, the export macro, the version). Include
 * <vigil.h> for the whole library, or this header and the parts you use.
 *
 * Conventions (of every vigil header)
 *   - Every call returns 0 (or a positive count) on success and a negative errno on
 *     failure. Nothing here aborts or prints on a recoverable error.
 *   - The loop is opaque and allocated once. Watchers (vigil_io, vigil_timer,
 *     vigil_signal, ...) are structs the caller owns and embeds in its own objects;
 *     starting or stopping one allocates nothing. Zero a watcher (`= {0}` or memset)
 *     before its first start; after a stop it may be started again. Every public
 *     struct keeps the library's state in opaque members named private_*: their size
 *     is part of the ABI, their content is not.
 *   - One loop per thread. vigil_loop_wakeup() is the only call another thread (or a signal
 *     handler) may make on a loop.
 *   - All times are int64_t nanoseconds; names carry the unit (_ns).
 *   - vigil's waits are not pthread cancellation points: the loop makes its wait system
 *     calls directly, without glibc's cancellation wrapper (what that saves a turn:
 *     docs/figures.md). End a loop thread with a flag and vigil_loop_wakeup() instead.
 */
#ifndef VIGIL_LOOP_H
#define VIGIL_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/signalfd.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VIGIL_BUILDING)
#define VIGIL_EXPORT __attribute__((visibility("default")))
#else
#define VIGIL_EXPORT
#endif

#define VIGIL_VERSION_MAJOR 0
#define VIGIL_VERSION_MINOR 3
#define VIGIL_VERSION_PATCH 0
#define VIGIL_VERSION_HEX ((VIGIL_VERSION_MAJOR << 16) | (VIGIL_VERSION_MINOR << 8) | VIGIL_VERSION_PATCH)

/* The version of the library that is running (VIGIL_VERSION_HEX at its build). */
VIGIL_EXPORT unsigned vigil_version(void);
VIGIL_EXPORT const char *vigil_version_string(void);

typedef struct vigil_loop vigil_loop;

/* ---------------------------------------------------------------- the loop */

enum vigil_backend_kind {
    VIGIL_BACKEND_AUTO = 0, /* io_uring where allowed, else epoll, else poll; the
                               VIGIL_BACKEND environment variable (uring|epoll|poll)
                               forces one */
    VIGIL_BACKEND_URING = 1,
    VIGIL_BACKEND_EPOLL = 2,
    VIGIL_BACKEND_POLL = 3,
};

enum vigil_run_mode {
    VIGIL_RUN_DEFAULT = 0, /* turns until vigil_loop_stop() or nothing is active */
    VIGIL_RUN_ONCE = 1,    /* one turn; waits if nothing is ready, no callback ran yet in the
                              turn and something active (or on_wakeup) could end the wait */
    VIGIL_RUN_NOWAIT = 2,  /* one turn that never sleeps */
};

/* Loop flags. */
#define VIGIL_LOOP_PRECISE 0x1u /* every timer of this loop is precise (see timers) */

struct vigil_loop_options {
    uint32_t size;        /* sizeof(struct vigil_loop_options); set by _init */
    int backend;          /* enum vigil_backend_kind */
    uint32_t flags;       /* VIGIL_LOOP_* */
    /* The loop thread's timer slack (PR_SET_TIMERSLACK), restored by vigil_loop_free.
     * 0 (the default) sets 1 ns: the kernel then wakes the thread at the deadline
     * instead of up to 50 us after it, for every sleep of that thread (nanosleep,
     * poll, futex waits too), at the cost of fewer merged wake-ups (a little more
     * power on an idle machine). > 0 sets that value; < 0 leaves the slack alone. */
    int64_t timer_slack_ns;
    /* Precise timers: the most CPU time one wake-up may spend finishing its wait
     * without sleeping. 0 means the default (200 us). */
    int64_t precise_budget_ns;
    /* Called in the loop thread after vigil_loop_wakeup() from any thread. May be NULL. */
    void (*on_wakeup)(vigil_loop *loop, void *data);
    void *data;           /* user pointer, see vigil_loop_data() */
    uint64_t reserved[8]; /* zero */
};

VIGIL_EXPORT void vigil_loop_options_init(struct vigil_loop_options *opt);

/* Creates a loop. opt may be NULL (defaults). -EINVAL for bad options, -ENOSYS when a
 * forced backend is not offered by this kernel (or refused by its policy), -ENOMEM. */
VIGIL_EXPORT int vigil_loop_new(vigil_loop **out, const struct vigil_loop_options *opt);

/* Frees a loop. Watchers still started are stopped and forgotten (their memory stays
 * the caller's; an mq watcher's helper thread is joined); file requests in flight are
 * cancelled and waited for; child processes still running are killed (SIGKILL), reaped
 * and reported to their exit callbacks (<vigil/proc.h>). -EBUSY if called
 * from inside one of the loop's callbacks. */
VIGIL_EXPORT int vigil_loop_free(vigil_loop *loop);

/* Runs turns. A turn, the same on every backend: (1) due timers run, then idle and
 * prepare hooks; (2) all interest changes are applied and the loop waits (one system
 * call where the backend allows); (3) registrations that failed are reported; (4) fd
 * events are dispatched; (5) file request and mq watcher completions run; (6) timers
 * that became due run, then check hooks (see "hooks around the wait").
 * Returns 1 if watchers are still active, 0 if none are, or a negative errno; -EBUSY
 * when called from one of the loop's own callbacks (the running turn goes on). */
VIGIL_EXPORT int vigil_loop_run(vigil_loop *loop, enum vigil_run_mode mode);

/* Makes vigil_loop_run(DEFAULT) return after the current turn. Loop thread only. */
VIGIL_EXPORT void vigil_loop_stop(vigil_loop *loop);

/* "uring", "epoll" or "poll". */
VIGIL_EXPORT const char *vigil_loop_backend(const vigil_loop *loop);
/* Why the loop runs this backend, e.g. "io_uring_setup: Operation not permitted". */
VIGIL_EXPORT const char *vigil_loop_backend_reason(const vigil_loop *loop);

/* CLOCK_MONOTONIC now in ns, cached for the turn: the first call in a turn reads the
 * clock (vDSO), later calls in the same turn return the same value. */
VIGIL_EXPORT int64_t vigil_loop_now(vigil_loop *loop);

VIGIL_EXPORT void *vigil_loop_data(const vigil_loop *loop);

/* Thread-safe and async-signal-safe: makes the loop's wait return and, in the loop
 * thread, calls options.on_wakeup. Calls made before the loop runs coalesce. */
VIGIL_EXPORT int vigil_loop_wakeup(vigil_loop *loop);

struct vigil_loop_stats {
    uint64_t turns;
    uint64_t waits;          /* turns that entered the kernel to wait */
    uint64_t timer_wakeups;  /* timer callbacks run */
    /* Lateness of timer callbacks (callback start minus deadline), over the most recent
     * wake-ups (a window of 1024). */
    int64_t late_p50_ns, late_p99_ns, late_max_ns;
    int64_t precise_margin_ns;   /* margin of the last precise wait (learned per class of sleep length) */
    uint64_t precise_spin_ns;    /* CPU spent finishing waits without sleeping, total */
    uint64_t precise_wakeups;    /* precise timer callbacks run */
    uint64_t reserved[8];
};
VIGIL_EXPORT int vigil_loop_stats_get(vigil_loop *loop, struct vigil_loop_stats *out);

/* ------------------------------------------------------------ fd watchers */

/* Event bits: the same values as EPOLLIN/EPOLLPRI/EPOLLOUT/EPOLLERR/EPOLLHUP and
 * POLLIN/POLLPRI/POLLOUT/POLLERR/POLLHUP. ERR and HUP are always reported. */
#define VIGIL_READ 0x001u
#define VIGIL_PRI 0x002u
#define VIGIL_WRITE 0x004u
#define VIGIL_ERR 0x008u
#define VIGIL_HUP 0x010u

typedef struct vigil_io vigil_io;

/* revents > 0: the ready bits (VIGIL_READ...). revents < 0: a negative errno found when
 * the loop applied this watcher's registration (the fd was closed since, or epoll
 * refuses the file: -EPERM for a regular file); the watcher is already stopped. */
typedef void (*vigil_io_cb)(vigil_loop *loop, vigil_io *w, int revents);

struct vigil_io {
    void *data;           /* the caller's */
    int fd;               /* read-only: the watched fd, set by vigil_io_start */
    uint32_t events;      /* read-only: the mask asked for (start, modify) */
    uint64_t private_[6]; /* the library's */
};

/* Watches fd for events (VIGIL_READ|VIGIL_WRITE|VIGIL_PRI, at least one). Several
 * watchers may watch one fd. Level-triggered on every backend: in each turn, a started
 * watcher whose fd is ready for bits of its mask gets one callback with those bits. What
 * io_uring may add: a spurious event (a readiness the program consumed after the kernel
 * reported it and before the turn ran, e.g. the fd drained between two turns: handle
 * EAGAIN), and a hang-up (HUP/ERR) that came after the fd's poll had fired for another
 * bit arrives with the next turn's event. Never a lost readiness bit. -EBADF for a negative or closed fd, -EINVAL for a bad
 * mask or NULL callback, -EBUSY if w is already started. The registration reaches the
 * kernel with the next turn's batch.
 *
 * Closing a watched fd is safe: vigil never delivers an event to a watcher of another
 * file. Stop the watcher before close(). On epoll a stop reaches the kernel with the
 * next turn, after the close: a file that was dup'd or inherited then stays registered,
 * and vigil, seeing its stray events, rebuilds its epoll set without it (one epoll_ctl
 * per watched fd). Sockets handed to vigil_sock_open (<vigil/net.h>) do not have this
 * cost: vigil closes them itself and deletes the registration first. */
VIGIL_EXPORT int vigil_io_start(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb);
/* Changes the mask of a started watcher. Unchanged masks cost nothing. */
VIGIL_EXPORT int vigil_io_modify(vigil_loop *loop, vigil_io *w, uint32_t events);
/* Stops w; safe from any callback, its own included. Stopping a stopped watcher is 0. */
VIGIL_EXPORT int vigil_io_stop(vigil_loop *loop, vigil_io *w);
VIGIL_EXPORT int vigil_io_active(const vigil_io *w);

/* ----------------------------------------------------------------- timers
 *
 * Deadlines are int64_t ns on CLOCK_MONOTONIC, CLOCK_BOOTTIME (counts suspend) or
 * CLOCK_REALTIME (wall clock); one min-heap per clock, ordered by (deadline, start
 * order): start, stop and fire are O(log n) and allocate nothing once the loop has held
 * that many timers before. Never early: a callback runs only once a clock read taken
 * after the wait shows its deadline reached, in every mode and on every backend.
 * Default mode sleeps to the deadline (less a small learned compensation, spun if the
 * wait ends early); precise mode (VIGIL_TIMER_PRECISE, or VIGIL_LOOP_PRECISE for every
 * timer) sleeps to deadline minus a learned margin and spins the rest on the vDSO clock,
 * for sub-microsecond median error at the cost of CPU (at most
 * vigil_loop_options.precise_budget_ns per wake-up). docs/timers.md explains both modes,
 * the timer slack and what vigil_loop_stats_get() reports; docs/figures.md has measurements.
 */

#define VIGIL_TIMER_ABS 0x1u     /* when_ns is an absolute time on the timer's clock */
#define VIGIL_TIMER_PRECISE 0x2u /* median wake-up within 1 us of the deadline (costs CPU) */

typedef struct vigil_timer vigil_timer;
typedef void (*vigil_timer_cb)(vigil_loop *loop, vigil_timer *t);

struct vigil_timer {
    void *data;           /* the caller's */
    uint64_t private_[8]; /* the library's */
};

/* Starts a timer on CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME. when_ns is
 * relative to now on that clock (a fresh clock read, not the turn's cached now) unless
 * VIGIL_TIMER_ABS. interval_ns > 0 repeats (deadline += interval, keeping the phase;
 * after a stall it fires once, then at the next multiple of the interval past now). An
 * absolute REALTIME timer follows clock_settime in both directions; a relative one is
 * turned into an absolute wall-clock deadline at start, so it follows too (use
 * MONOTONIC for an elapsed time). BOOTTIME counts suspend. Deadlines past INT64_MAX
 * clamp to INT64_MAX (never fire). A callback never runs before its deadline. Equal
 * deadlines fire in start order; a timer started by a callback runs at the earliest in
 * the next firing pass. Callbacks may start and stop any timer, their own included.
 * -EINVAL for an unknown clock, negative interval, unknown flags or NULL callback,
 * -EBUSY if already started (stop it first), -ENOMEM if the heap could not grow,
 * -EMFILE/-ENFILE if the first BOOTTIME/REALTIME timer could not get its timerfd. */
VIGIL_EXPORT int vigil_timer_start(vigil_loop *loop, vigil_timer *t, int clock_id, int64_t when_ns,
                                   int64_t interval_ns, uint32_t flags, vigil_timer_cb cb);
/* Stops t; safe from any callback, its own included. Stopping a stopped timer is 0. */
VIGIL_EXPORT int vigil_timer_stop(vigil_loop *loop, vigil_timer *t);
/* 1 while started (a repeating timer stays started across its callbacks), else 0. */
VIGIL_EXPORT int vigil_timer_active(const vigil_timer *t);

/* ---------------------------------------------------------------- signals */

typedef struct vigil_signal vigil_signal;
typedef void (*vigil_signal_cb)(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si);

struct vigil_signal {
    void *data;           /* the caller's */
    uint64_t private_[5]; /* the library's */
};

/* Runs cb in the loop thread when signo arrives (signalfd). Blocks signo in the calling
 * thread; block it in every other thread too, or it may be delivered there instead.
 * Several watchers may watch one signal. -EINVAL for SIGKILL/SIGSTOP/bad numbers. */
VIGIL_EXPORT int vigil_signal_start(vigil_loop *loop, vigil_signal *w, int signo, vigil_signal_cb cb);
/* Stops w; safe from any callback, its own included. Stopping a stopped watcher is 0.
 * The signal stays blocked (see above). */
VIGIL_EXPORT int vigil_signal_stop(vigil_loop *loop, vigil_signal *w);
/* 1 while started, else 0. */
VIGIL_EXPORT int vigil_signal_active(const vigil_signal *w);

/* ------------------------------------------------------ hooks around the wait
 *
 * For libraries that must act around the loop's wait (libcurl's multi socket interface,
 * c-ares, a GUI toolkit's queue): a callback that runs in every turn of the loop while
 * its hook is started.
 *   idle     runs first in each turn (after the due timers, before the wait) and makes
 *            the turn's wait non-blocking: while an idle hook is started the loop never
 *            sleeps (it polls the kernel and comes back, turn after turn).
 *   prepare  runs right after the idle hooks, before the turn applies its interest
 *            changes and waits: the last moment to change watchers and timers for this
 *            wait (the wait's timeout is computed after the prepare hooks ran).
 *   check    runs last in each turn, after the wait and after every callback the wake-up
 *            brought (fd events, completions, the timers due after the wait).
 * In a turn: due timers, idle hooks, prepare hooks, the wait, fd events, completions,
 * due timers, check hooks. Hooks of one kind run in the order they were started.
 *
 * Each kind keeps the loop alive, as libuv's uv_idle/uv_prepare/uv_check do: a started
 * hook counts as an active watcher, so vigil_loop_run(VIGIL_RUN_DEFAULT) goes on while
 * one is started. A hook cannot end a wait, so a loop whose only active watchers are
 * hooks (and that has no on_wakeup) does not sleep either: it runs turn after turn, as
 * libuv's does; stop the hooks when their work is done. Hook callbacks do not count as
 * "a callback ran" for VIGIL_RUN_ONCE: such a turn still waits (unless an idle hook is
 * started or only hooks are active).
 *
 * A callback may start and stop any hook, its own included, and make any other call of
 * the loop thread but vigil_loop_run and vigil_loop_free (-EBUSY). A hook stopped before
 * its kind's turn comes does not run. A hook started while hooks of its kind are being
 * run (from one of their callbacks, its own stop-and-start included) runs from the next
 * turn on; one started elsewhere runs at its kind's next point, in the same turn if that
 * point is still to come. Starting and stopping allocate nothing after the loop's first
 * hook. A loop with no hook started pays one predictable branch per point (two a turn).
 */

typedef struct vigil_prepare vigil_prepare;
typedef struct vigil_check vigil_check;
typedef struct vigil_idle vigil_idle;
typedef void (*vigil_prepare_cb)(vigil_loop *loop, vigil_prepare *w);
typedef void (*vigil_check_cb)(vigil_loop *loop, vigil_check *w);
typedef void (*vigil_idle_cb)(vigil_loop *loop, vigil_idle *w);

struct vigil_prepare {
    void *data;           /* the caller's */
    uint64_t private_[6]; /* the library's */
};
struct vigil_check {
    void *data;           /* the caller's */
    uint64_t private_[6]; /* the library's */
};
struct vigil_idle {
    void *data;           /* the caller's */
    uint64_t private_[6]; /* the library's */
};

/* Starts w: cb runs in every turn from now on (see above for when). -EINVAL for a NULL
 * loop, w or cb; -EBUSY if w is started already (stop it first; starting a hook twice
 * never runs it twice a turn); -ENOMEM if the loop's first hook could not get its state. */
VIGIL_EXPORT int vigil_prepare_start(vigil_loop *loop, vigil_prepare *w, vigil_prepare_cb cb);
/* Stops w; safe from any callback, its own included. Stopping a stopped hook is 0. */
VIGIL_EXPORT int vigil_prepare_stop(vigil_loop *loop, vigil_prepare *w);
/* 1 while started, else 0. */
VIGIL_EXPORT int vigil_prepare_active(const vigil_prepare *w);

VIGIL_EXPORT int vigil_check_start(vigil_loop *loop, vigil_check *w, vigil_check_cb cb);
VIGIL_EXPORT int vigil_check_stop(vigil_loop *loop, vigil_check *w);
VIGIL_EXPORT int vigil_check_active(const vigil_check *w);

VIGIL_EXPORT int vigil_idle_start(vigil_loop *loop, vigil_idle *w, vigil_idle_cb cb);
VIGIL_EXPORT int vigil_idle_stop(vigil_loop *loop, vigil_idle *w);
VIGIL_EXPORT int vigil_idle_active(const vigil_idle *w);

#ifdef __cplusplus
}
#endif
#endif
