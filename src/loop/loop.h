/* The loop's internal state, shared by loop.c, the backends and the feature modules
 * (timer, signal, file, mq watch). Not installed.
 *
 * Memory: everything here is allocated by vigil_loop_new, or grown when a new
 * high-water mark is reached (a bigger fd number, more timers than ever before); a
 * steady-state turn allocates nothing.
 */
#ifndef VIGIL_LOOP_H
#define VIGIL_LOOP_H

#include "vigil.h"
#include "backend/backend.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define VIGIL__EV_CAP 512 /* events taken from the kernel per turn */

/* One slot per fd number. */
struct vigil__fd {
    vigil_io *head;    /* watchers of this fd, in start order */
    uint32_t wanted;   /* union of the watchers' masks */
    uint32_t applied;  /* what the backend registered (0: nothing) */
    uint32_t gen;      /* bumped whenever the last watcher stops */
    uint16_t nwatch;
    uint8_t dirty;     /* on loop->dirty */
    uint8_t reset;     /* all watchers stopped since applied: register afresh */
    int32_t bk;        /* backend-private (poll: index in its pollfd array) */
    int32_t failed;    /* negative errno from applying, pending report; 0 none */
    int32_t fail_next; /* next fd on loop->fail_head's list, -1 ends it */
    uint32_t bk_gen;   /* backend-private (uring: generation of the armed poll) */
};

/* Internal fd watchers (wakeup eventfd, signalfd, timerfds) are ordinary vigil_io
 * watchers with this state bit: they do not keep vigil_loop_run(DEFAULT) alive. */
#define VIGIL__IO_ACTIVE 0x1u
#define VIGIL__IO_INTERNAL 0x2u
#define VIGIL__IO_FAILING 0x4u  /* being told of a failed registration */

/* Timers: one min-heap per clock, ordered by (deadline, seq). */
enum { VIGIL__CLK_MONO = 0, VIGIL__CLK_BOOT = 1, VIGIL__CLK_REAL = 2, VIGIL__CLK_N = 3 };

struct vigil__heap {
    vigil_timer **a;
    uint32_t n, cap;
};

/* Lateness window for stats; sleep-lateness window the precise margin is learned from. */
#define VIGIL__LATE_WIN 1024
#define VIGIL__SLEEP_WIN 128

struct vigil_loop {
    const struct vigil__backend *backend;
    void *bk;               /* backend state */
    char bk_reason[96];     /* why this backend (fallback reason) */

    /* fd table and the turn's pending changes */
    struct vigil__fd *fds;
    int nfds;               /* capacity of fds[] */
    int *dirty;             /* fd numbers with pending changes; capacity nfds */
    int ndirty;
    int fail_head;          /* fds with a pending failure report (list via fail_next), -1 */
    vigil_io *iter_next;    /* next watcher of the dispatch walk (stop() advances it) */

    struct vigil__event ev[VIGIL__EV_CAP];
    int idle_fd;            /* the backend's idle probe (see backend.h), -1 none */
    void *idle_buf;

    /* state of the run */
    int in_callback;        /* depth of callbacks running (vigil_loop_free refuses) */
    bool stop;
    unsigned active;        /* user watchers, timers, requests that keep RUN_DEFAULT going */
    uint64_t turns;
    uint64_t waits;

    /* cached clocks: now[c] is valid while now_epoch[c] == clock_epoch; the loop bumps
     * clock_epoch at the start of a turn and after its wait */
    int64_t now[VIGIL__CLK_N];
    uint64_t now_epoch[VIGIL__CLK_N];
    uint64_t clock_epoch;

    /* timers */
    struct vigil__heap heap[VIGIL__CLK_N];
    uint64_t timer_seq;
    vigil_io clk_io[VIGIL__CLK_N];   /* timerfds for BOOT and REAL (MONO unused) */
    int clk_fd[VIGIL__CLK_N];
    int64_t clk_armed[VIGIL__CLK_N]; /* absolute expiry the timerfd is armed at, or -1 */
    bool real_changed;               /* the REALTIME clock was set: recheck */
    int64_t real_offset_ns;          /* test-only shift of REALTIME (inject_clock_change) */

    /* precise mode and stats */
    uint32_t flags;                  /* VIGIL_LOOP_* */
    int64_t precise_budget_ns;
    int64_t precise_margin_ns;
    int64_t wait_target_ns;          /* MONO instant this turn's wait aims at; 0 none; -1 no wait */
    int64_t comp_ns;                 /* default mode: wake this much before the deadline */
    int64_t sleep_late[VIGIL__SLEEP_WIN]; /* ring of observed sleep lateness (margin input) */
    uint32_t nsleep;
    bool learn_due;                  /* SLEEP_EVERY new samples: recompute margin, comp */
    uint64_t precise_spin_ns, precise_wakeups, timer_wakeups, early_wakeups;
    int64_t late[VIGIL__LATE_WIN];   /* ring of recent lateness samples */
    uint32_t nlate;

    /* wakeup */
    int wake_fd;
    vigil_io wake_io;
    atomic_int wake_pending;
    void (*on_wakeup)(vigil_loop *, void *);
    void *data;

    /* signals */
    int sig_fd;
    vigil_io sig_io;
    vigil_signal *sig_head;
    vigil_signal *sig_iter_next;
    sigset_t sig_mask;

    /* timer slack to restore at free (-1: untouched) */
    long old_slack;

    /* feature modules hang their per-loop state here */
    void *file;                       /* src/file.c */
    void (*file_fini)(vigil_loop *);
};

/* loop.c */
int vigil__fd_reserve(vigil_loop *loop, int fd);     /* grow the fd table to hold fd */
/* A backend could not apply fd's registration: err (negative errno) reaches each of its
 * watchers once, after the turn, and stops them. Sets slot->applied = 0. */
void vigil__fd_failed(vigil_loop *loop, int fd, int err);
/* 0 if fd can be watched like epoll would accept it, -EBADF if closed, -EPERM for a
 * regular file or directory (epoll refuses them; poll and io_uring would report them
 * always ready): backends that do not get this from the kernel call it for new
 * registrations, so every backend gives the same result. One fstat. */
int vigil__fd_pollable(int fd);
int vigil__io_start_internal(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb);
int64_t vigil__now(vigil_loop *loop, int clk);       /* cached per turn */
void vigil__now_invalidate(vigil_loop *loop);
int vigil__clk_index(clockid_t clock);               /* -1 if unsupported */
extern const clockid_t vigil__clk_id[VIGIL__CLK_N];

/* timer.c */
int vigil__timers_init(vigil_loop *loop);
void vigil__timers_fini(vigil_loop *loop);
/* Fires due timers; returns the number fired. */
int vigil__timers_run(vigil_loop *loop);
/* The wait a turn may do given the timers: fills w (timeout_ns -1 if no MONO timer). */
void vigil__timers_wait(vigil_loop *loop, struct vigil__wait *w);
/* Precise mode: after the wait, finish the last stretch to a due precise deadline. */
void vigil__timers_finish(vigil_loop *loop);
bool vigil__heap_valid(const struct vigil__heap *h);  /* invariant check for tests */
/* Test-only: shifts the timers' view of CLOCK_REALTIME by offset_ns and takes the path a
 * real clock_settime takes (the REALTIME timerfd's ECANCELED): re-read, refire, re-arm. */
void vigil__timers_inject_clock_change(vigil_loop *loop, int64_t offset_ns);

/* signal.c */
void vigil__signals_fini(vigil_loop *loop);

#endif
