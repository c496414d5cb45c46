/* Timers' per-loop state (a module, see loop.h) and what the turn calls. timer.c owns
 * it; the turn (turn.h) calls the functions below; vigil_loop_stats_get reads the stats.
 */
#ifndef VIGIL_TIMER_H
#define VIGIL_TIMER_H

#include "loop/loop.h"

/* The library's view of a vigil_timer (its private_ words given names). */
struct vigil__timer {
    void *data;
    vigil_timer_cb cb;
    int64_t deadline_ns; /* absolute, on clock */
    int64_t interval_ns;
    uint64_t seq;        /* start order: equal deadlines fire in start order */
    uint32_t heap_index;
    int32_t clock;       /* VIGIL__CLK_* */
    uint32_t flags;
    uint32_t state;
    uint64_t reserved_[2];
};
_Static_assert(sizeof(struct vigil__timer) == sizeof(vigil_timer), "vigil_timer: size is ABI");
_Static_assert(offsetof(struct vigil__timer, data) == offsetof(vigil_timer, data),
               "struct vigil__timer must mirror vigil_timer");
static inline struct vigil__timer *vigil__timer(vigil_timer *t)
{
    return (struct vigil__timer *)(void *)t;
}

struct vigil__heap {
    struct vigil__timer **a;
    uint32_t n, cap;
};

/* Lateness window for stats; sleep-lateness window the precise margin is learned from,
 * one per class of sleep length (see vigil__sleep_class). */
#define VIGIL__LATE_WIN 1024
#define VIGIL__SLEEP_WIN 128
#define VIGIL__SLEEP_CLASSES 4

/* What the loop learned of one class of sleeps (by how far the deadline they wait for was:
 * a guest's wake-up latency differs between sleeps the host polls through and longer
 * ones it schedules the vCPU out for). */
struct vigil__sleep_class {
    int32_t late[VIGIL__SLEEP_WIN]; /* ring of observed sleep lateness, ns (clamped) */
    uint32_t n;                     /* samples taken */
    bool learn_due;                 /* SLEEP_EVERY new samples: recompute margin, comp */
    int64_t margin_ns;              /* precise mode: end the wait this much early */
    int64_t base_ns;                /* the level learned at the last recompute: a burst's
                                     * raised margin decays back to it */
    int64_t comp_ns;                /* default mode: wake this much before the deadline */
};

struct vigil__timers {
    struct vigil__heap heap[VIGIL__CLK_N]; /* one min-heap per clock, by (deadline, seq) */
    uint64_t seq;                    /* start order of the next timer started */
    vigil_io clk_io[VIGIL__CLK_N];   /* timerfds for BOOT and REAL (MONO unused) */
    int clk_fd[VIGIL__CLK_N];
    int64_t clk_armed[VIGIL__CLK_N]; /* kernel expiry the timerfd is armed at, or -1 */
    bool real_changed;               /* the REALTIME clock was set: recheck */

    /* precise mode and default-mode compensation */
    int64_t budget_ns;               /* the loop's precise_budget_ns, default applied */
    int64_t precise_margin_ns;       /* margin of the last precise wait (stats) */
    int64_t wait_target_ns;          /* MONO instant this turn's wait aims at; 0 none; -1 no wait */
    int wait_class;                  /* the sleep class that wait is a sample of */
    int64_t comp_max_ns;             /* largest comp_ns of the classes */
    struct vigil__sleep_class cls[VIGIL__SLEEP_CLASSES];

    /* stats */
    uint64_t precise_spin_ns, precise_wakeups, timer_wakeups;
    int64_t late[VIGIL__LATE_WIN];   /* ring of recent lateness samples */
    uint32_t nlate;
};

/* Makes the loop's timer state (vigil_loop_new). */
int vigil__timers_new(vigil_loop *loop);
/* Whether any timer is started (the turn skips every timer step otherwise). */
static inline bool vigil__timers_any(const struct vigil__timers *tm)
{
    return (tm->heap[VIGIL__CLK_MONO].n | tm->heap[VIGIL__CLK_BOOT].n | tm->heap[VIGIL__CLK_REAL].n) != 0;
}
/* Fires due timers; returns the number fired. */
int vigil__timers_run(vigil_loop *loop, struct vigil__timers *tm);
/* The wait a turn may do given the timers: fills w (timeout_ns -1 if no MONO timer).
 * A computation only: no system call. */
void vigil__timers_deadline(vigil_loop *loop, struct vigil__timers *tm, struct vigil__wait *w);
/* Arms the BOOTTIME/REALTIME timerfds at their earliest deadlines, where those changed
 * since the last arming (one timerfd_settime each, at most). */
void vigil__timers_arm(vigil_loop *loop, struct vigil__timers *tm);
/* Precise mode: after the wait, finish the last stretch to a due precise deadline. */
void vigil__timers_finish(vigil_loop *loop, struct vigil__timers *tm);
void vigil__timers_stats(const struct vigil__timers *tm, struct vigil_loop_stats *out);
bool vigil__heap_valid(const struct vigil__heap *h);  /* invariant check for tests */
/* The class of a sleep for a deadline sleep_ns away (0 .. VIGIL__SLEEP_CLASSES - 1). */
int vigil__sleep_class(int64_t sleep_ns);
/* Feeds one observed sleep lateness of class c to the margin's learning, as a timed wait
 * that ended late_ns after the instant it aimed at does; then, if a recompute is due,
 * recomputes (what the next vigil__timers_deadline does). For tests of the learning rule:
 * the margin must stay within [its floor, the budget] whatever the sequence. */
void vigil__timers_feed_sleep(struct vigil__timers *tm, int c, int64_t late_ns);
/* The precise margin and the default-mode compensation class c uses now. */
int64_t vigil__timers_margin(const struct vigil__timers *tm, int c);
int64_t vigil__timers_comp(const struct vigil__timers *tm, int c);
/* Takes the path a clock_settime takes (the REALTIME timerfd's read fails with
 * ECANCELED): re-read the clocks, fire what became due, re-arm. Called by tests, which
 * shift CLOCK_REALTIME in their own process instead of setting the machine's clock. */
void vigil__timers_clock_was_set(vigil_loop *loop);

#endif
