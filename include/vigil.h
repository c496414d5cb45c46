/* vigil: a runtime for Linux programs that wait -- on file descriptors, deadlines,
 * messages from other processes and file I/O.
 *
 * Conventions
 *   - Every call returns 0 (or a positive count) on success and a negative errno on
 *     failure. Nothing here aborts or prints on a recoverable error.
 *   - The loop is opaque and allocated once. Watchers (vigil_io, vigil_timer,
 *     vigil_signal, ...) are structs the caller owns and embeds in its own objects;
 *     starting or stopping one allocates nothing. Zero a watcher (`= {0}` or memset)
 *     before its first start; after a stop it may be started again.
 *   - One loop per thread. vigil_wakeup() is the only call another thread (or a signal
 *     handler) may make on a loop.
 *   - All times are int64_t nanoseconds; names carry the unit (_ns).
 *   - vigil's waits are not pthread cancellation points: the loop makes its wait system
 *     calls directly, without glibc's cancellation wrapper (~37 ns a call on the lab
 *     machine). End a loop thread with a flag and vigil_wakeup() instead.
 */
#ifndef VIGIL_H
#define VIGIL_H

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
#define VIGIL_VERSION_MINOR 1
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
    /* Called in the loop thread after vigil_wakeup() from any thread. May be NULL. */
    void (*on_wakeup)(vigil_loop *loop, void *data);
    void *data;           /* user pointer, see vigil_loop_data() */
    uint64_t reserved[8]; /* zero */
};

VIGIL_EXPORT void vigil_loop_options_init(struct vigil_loop_options *opt);

/* Creates a loop. opt may be NULL (defaults). -EINVAL for bad options, -ENOSYS when a
 * forced backend is not offered by this kernel (or refused by its policy), -ENOMEM. */
VIGIL_EXPORT int vigil_loop_new(vigil_loop **out, const struct vigil_loop_options *opt);

/* Frees a loop. Watchers still started are simply forgotten (their memory stays the
 * caller's); file requests in flight are cancelled and waited for. -EBUSY if called
 * from inside one of the loop's callbacks. */
VIGIL_EXPORT int vigil_loop_free(vigil_loop *loop);

/* Runs turns. A turn: fire due timers -> apply all interest changes and wait (one
 * system call where the backend allows) -> dispatch events -> fire due timers.
 * Returns 1 if watchers are still active, 0 if none are, or a negative errno. */
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
VIGIL_EXPORT int vigil_wakeup(vigil_loop *loop);

struct vigil_loop_stats {
    uint64_t turns;
    uint64_t waits;          /* turns that entered the kernel to wait */
    uint64_t timer_wakeups;  /* timer callbacks run */
    /* Lateness of timer callbacks (callback start minus deadline), over the most recent
     * wake-ups (a window of 1024). */
    int64_t late_p50_ns, late_p99_ns, late_max_ns;
    int64_t precise_margin_ns;   /* current learned margin of precise mode */
    uint64_t precise_spin_ns;    /* CPU spent finishing waits without sleeping, total */
    uint64_t precise_wakeups;    /* precise timer callbacks run */
    uint64_t early_wakeups;      /* callbacks that ran before their deadline: always 0 */
    uint64_t reserved[8];
};
VIGIL_EXPORT int vigil_loop_stats(vigil_loop *loop, struct vigil_loop_stats *out);

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
    void *data; /* the caller's */
    /* private */
    vigil_io_cb cb;
    vigil_io *next, *prev;
    int fd;
    uint32_t events;
    uint32_t state;
    uint32_t pad_;
    uint64_t reserved[2];
};

/* Watches fd for events (VIGIL_READ|VIGIL_WRITE|VIGIL_PRI, at least one). Several
 * watchers may watch one fd. -EBADF for a negative or closed fd, -EINVAL for a bad
 * mask or NULL callback, -EBUSY if w is already started. The registration reaches the
 * kernel with the next turn's batch.
 *
 * Closing a watched fd is safe: vigil never delivers an event to a watcher of another
 * file. Stop the watcher before close(): on epoll, a file that was dup'd or inherited
 * stays registered after close(); vigil notices its stray events and rebuilds its epoll
 * set without it, which costs one epoll_ctl per watched fd. */
VIGIL_EXPORT int vigil_io_start(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb);
/* Changes the mask of a started watcher. Unchanged masks cost nothing. */
VIGIL_EXPORT int vigil_io_modify(vigil_loop *loop, vigil_io *w, uint32_t events);
/* Stops w; safe from any callback, its own included. Stopping a stopped watcher is 0. */
VIGIL_EXPORT int vigil_io_stop(vigil_loop *loop, vigil_io *w);
VIGIL_EXPORT int vigil_io_active(const vigil_io *w);

/* ----------------------------------------------------------------- timers
 *
 * Deadlines are int64_t ns on CLOCK_MONOTONIC, CLOCK_BOOTTIME (counts suspend) or
 * CLOCK_REALTIME (wall clock). Each clock keeps a min-heap ordered by (deadline, start
 * order): start, stop and fire cost O(log n) and allocate nothing once the loop has held
 * that many timers before. MONOTONIC deadlines become the loop's wait timeout (ns:
 * io_uring, epoll_pwait2, ppoll); BOOTTIME and REALTIME ones wake the loop through a
 * timerfd on their own clock (one timerfd_settime per turn at most, and only when the
 * earliest deadline changed).
 *
 * Never early: a callback runs only once a clock read taken after the wait shows its
 * deadline reached, in every mode and on every backend.
 *
 * Default mode: the loop sleeps until the deadline less a small compensation, the
 * constant part of the kernel's wake-up latency as this loop observes it (the p10 of its
 * recent sleeps' lateness, at most 10 us), and if it wakes before the deadline it spins
 * on the vDSO clock for the rest. Nine wake-ups in ten still arrive after the deadline
 * and spin not at all; the median error drops by that constant part for well under
 * 1 us of CPU per wake-up on average (a delay shorter than the compensation is spun
 * outright, which is cheaper than entering the kernel). BOOTTIME and REALTIME timers
 * in default mode wake at the deadline itself (their timerfd), uncompensated. The rest
 * of the error is the kernel's wake-up latency plus the thread's timer slack: the
 * kernel may delay a sleeping thread's
 * wake-up by up to its slack (50 us by default) to merge wake-ups and save power. vigil
 * sets the loop thread's slack to 1 ns unless vigil_loop_options.timer_slack_ns says
 * otherwise; that applies to every sleep of that thread (nanosleep, poll, futex waits
 * in other libraries too) and costs a few more distinct wake-ups on an idle machine.
 * Accuracy. The lab's timer-error (run 20261122T205424Z: a 2-core AMD EPYC KVM guest,
 * kernel 6.18, shared with other builds; delays 1 us to 2 ms): a raw epoll_pwait2 with
 * 1 ns slack woke a median 5-32 us late (longer sleeps wake later: deeper idle in a
 * VM), 55-85 us with the default 50 us slack; vigil's default mode 0.1-29 us; precise
 * mode 0.11-0.83 us, for 1-55 us of CPU per wake-up. p99 tails there were tens to
 * hundreds of us in every mode (the machine's other load, not the timers). On bare
 * metal the kernel's wake-up latency is typically a few us (the 2008 hrtimer patch
 * measured about 4; not measured by this project). No CPU is spent while sleeping.
 *
 * Precise mode (VIGIL_TIMER_PRECISE on a timer, or VIGIL_LOOP_PRECISE for all of a
 * loop's timers): the loop sleeps until deadline - margin and spins on the vDSO clock
 * (no system call) for the rest, then runs the callback: median error well under 1 us.
 * The margin is learned from how late this loop's recent sleeps woke (their p75 plus
 * 2 us, raised so that the p99 sleep wakes at most 10 us past it, but never more than
 * doubled for a tail of scheduling delays) and never exceeds
 * vigil_loop_options.precise_budget_ns (default 200 us): the CPU one wake-up may spend
 * spinning. A precise wake-up thus costs about the margin in CPU (a few us to tens of
 * us in a VM), and an fd event that arrives during the spin waits for it to end (the
 * spin uses no system call, for that is what keeps the error under a microsecond).
 * A spinning thread can still be preempted: on a machine whose cores are all busy the
 * tail grows; precise mode cannot beat the scheduler. vigil_loop_stats() reports the
 * wake-ups, their lateness p50/p99/max, the margin and the CPU spent spinning.
 */

#define VIGIL_TIMER_ABS 0x1u     /* when_ns is an absolute time on the timer's clock */
#define VIGIL_TIMER_PRECISE 0x2u /* wake within a few us of the deadline (costs CPU) */

typedef struct vigil_timer vigil_timer;
typedef void (*vigil_timer_cb)(vigil_loop *loop, vigil_timer *t);

struct vigil_timer {
    void *data; /* the caller's */
    /* private */
    vigil_timer_cb cb;
    int64_t deadline_ns; /* absolute, on clock */
    int64_t interval_ns;
    uint64_t seq;        /* start order: equal deadlines fire in start order */
    uint32_t heap_index;
    int32_t clock;
    uint32_t flags;
    uint32_t state;
    uint64_t reserved[2];
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
    void *data;
    /* private */
    vigil_signal_cb cb;
    vigil_signal *next;
    int signo;
    uint32_t state;
    uint64_t reserved[2];
};

/* Runs cb in the loop thread when signo arrives (signalfd). Blocks signo in the calling
 * thread; block it in every other thread too, or it may be delivered there instead.
 * Several watchers may watch one signal. -EINVAL for SIGKILL/SIGSTOP/bad numbers. */
VIGIL_EXPORT int vigil_signal_start(vigil_loop *loop, vigil_signal *w, int signo, vigil_signal_cb cb);
VIGIL_EXPORT int vigil_signal_stop(vigil_loop *loop, vigil_signal *w);

/* ----------------------------------------------- more watchers, by feature */
/* VIGIL_MORE_HEADERS: each feature adds one line below. */
#include "vigil/file.h"
#include "vigil/mq_watch.h"

#ifdef __cplusplus
}
#endif
#endif
