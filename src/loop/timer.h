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

/* Lateness window for stats; sleep-lateness window the precise margin is learned from. */
#define VIGIL__LATE_WIN 1024
#define VIGIL__SLEEP_WIN 128

struct vigil__timers {
    struct vigil__heap heap[VIGIL__CLK_N]; /* one min-heap per clock, by (deadline, seq) */
    uint64_t seq;                    /* start order of the next timer started */
    vigil_io clk_io[VIGIL__CLK_N];   /* timerfds for BOOT and REAL (MONO unused) */
    int clk_fd[VIGIL__CLK_N];
    int64_t clk_armed[VIGIL__CLK_N]; /* kernel expiry the timerfd is armed at, or -1 */
    bool real_changed;               /* the REALTIME clock was set: recheck */

    /* precise mode and default-mode compensation */
    int64_t budget_ns;               /* the loop's precise_budget_ns, default applied */
    int64_t precise_margin_ns;
    int64_t wait_target_ns;          /* MONO instant this turn's wait aims at; 0 none; -1 no wait */
    int64_t comp_ns;                 /* default mode: wake this much before the deadline */
    int64_t sleep_late[VIGIL__SLEEP_WIN]; /* ring of observed sleep lateness (margin input) */
    uint32_t nsleep;
    bool learn_due;                  /* SLEEP_EVERY new samples: recompute margin, comp */

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
/* Takes the path a clock_settime takes (the REALTIME timerfd's read fails with
 * ECANCELED): re-read the clocks, fire what became due, re-arm. Called by tests, which
 * shift CLOCK_REALTIME in their own process instead of setting the machine's clock. */
void vigil__timers_clock_was_set(vigil_loop *loop);

#endif
