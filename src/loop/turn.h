/* The order of one turn, written once and compiled into each backend's own file.
 *
 * A turn:
 *   1. due timers run (only if a timer is started: no clock read otherwise); then the
 *      idle and prepare hooks, if any is started (src/loop/hook.c; an idle hook makes
 *      the wait non-blocking);
 *   2. the backend applies every pending interest change (the dirty fds) and waits as
 *      the timers allow, in one system call where it can (io_uring: changes, the
 *      modules' requests and the wait in one io_uring_enter); it leaves the ready fds in
 *      loop->ev and, on io_uring, the op completions in the ring's queue;
 *   3. registrations the backend could not apply are reported (callbacks with revents
 *      < 0, those watchers stopped);
 *   4. fd events are dispatched (user watchers; internal watchers such as a doorbell
 *      eventfd only queue work for step 5);
 *   5. the completion point: completions of file requests and mq watchers, and every
 *      io_uring op completion, in the order they were read;
 *   6. a precise timer's last stretch is spun, and the timers due by then run;
 *   7. the check hooks, if any is started.
 * Each hook point costs a loop with no hook started one predictable branch on a
 * counter (loop->hooks, loop->hooks_check) and no call.
 * A VIGIL_RUN_NOWAIT turn of a loop with nothing but fd watchers may take the plain
 * turn (vigil__turn_plain, at the end of this file): the same steps, those with nothing
 * to do left out.
 * The same steps in the same order on every backend: an io_uring op completion read
 * during step 2 waits for step 5, as a doorbell's news does on epoll and poll.
 *
 * Why each backend compiles the turn into its own file (h2o's evloop does the same):
 * the backend's wait is then inlined into the run loop, so an idle non-blocking turn
 * makes its one system call (epoll_wait(..., 0)) from vigil_loop_run's own frame,
 * which vigil_loop_run enters with a tail call. On the lab machine (AMD EPYC, 6.18,
 * retpoline and RSB-filling mitigations) each function return after a system call costs
 * ~35 ns, a quarter of an idle turn; this layout saves that return without the loop
 * making any backend's call (docs/figures.md has the measurement). It also leaves the
 * hot path without an indirect call.
 *
 * Use, in a backend's file:
 *   static inline __attribute__((always_inline)) int my_turn(vigil_loop *loop,
 *                                                         const struct vigil__wait *w);
 *   static int my_run(vigil_loop *loop, enum vigil_run_mode mode)
 *   {
 *       return vigil__run(loop, mode, my_turn, has_ring);
 *   }
 * my_turn is step 2: it returns the number of events in loop->ev or a negative errno
 * (-EINTR, -ETIME, -EAGAIN, -EBUSY are the end of a wait, not errors).
 */
#ifndef VIGIL_TURN_H
#define VIGIL_TURN_H

#include "loop/loop.h"
#include "loop/timer.h"
#include "ring/ring.h"

#include <errno.h>

typedef int (*vigil__turn_fn)(vigil_loop *loop, const struct vigil__wait *w);

/* Steps 3 to 7: what a turn does once its wait returned n (events in loop->ev, or a
 * negative errno). timers: a timer was started before the wait. */
static inline __attribute__((always_inline)) int vigil__turn_after(vigil_loop *loop, int n, bool timers,
                                                                   bool has_ring)
{
    struct vigil__timers *tm = vigil__timers_of(loop);
    if (loop->ndirty)
        vigil__keep_unapplied(loop);
    /* One predicted branch when the wait returned events or nothing (n >= 0), not the
     * five comparisons folded into one test that the compiler made of it. */
    if (__builtin_expect(n < 0, 0) && n != -EINTR && n != -ETIME && n != -EAGAIN && n != -EBUSY)
        return n;
    loop->clock_epoch++;
    if (loop->fail_head >= 0)
        vigil__report_failures(loop); /* 3 */
    if (n > 0)
        vigil__dispatch(loop, n); /* 4 */
#ifdef VIGIL_HAVE_LIBURING
    if (has_ring && loop->ring->ndone) { /* 5 */
        /* The walk counts as one callback of the loop (in_callback: vigil_loop_free
         * refuses), so that an op's completion may call the program's callback last, as
         * a tail call (src/net/uring.c, rx_complete), without counting it itself. */
        loop->in_callback++;
        vigil__ring_complete_inline(loop, loop->ring);
        loop->in_callback--;
    }
#else
    (void)has_ring;
#endif
    if (loop->later_head)
        vigil__run_deferred(loop); /* 5 */
    if (timers || vigil__timers_any(tm)) {
        vigil__timers_finish(loop, tm); /* 6 */
        vigil__timers_run(loop, tm);
    }
    if (loop->hooks_check)
        vigil__hooks_check(loop); /* 7 */
    return 0;
}

static inline __attribute__((always_inline)) int vigil__turn(vigil_loop *loop, enum vigil_run_mode mode,
                                                             vigil__turn_fn backend_turn, bool has_ring)
{
    struct vigil__timers *tm = vigil__timers_of(loop);
    loop->turns++;
    loop->clock_epoch++;
    bool timers = vigil__timers_any(tm);
    int fired = timers ? vigil__timers_run(loop, tm) : 0; /* 1 */
    if (loop->hooks) { /* 1b: idle and prepare hooks */
        /* A started idle hook counts as a callback that ran: the wait does not block
         * (folded into fired so that a loop without hooks tests nothing more); so does
         * a loop kept alive by hooks alone, which nothing could wake. */
        fired += vigil__hooks_before(loop);
        timers = vigil__timers_any(tm); /* they may have started the first timer */
    }

    /* Never sleep when this turn already ran callbacks (a RUN_ONCE whose first pass
     * fired the last active timer would otherwise wait forever), when completions are
     * queued, while an idle hook is started, nor when nothing is left that could end
     * the wait (an on_wakeup callback counts: such a loop waits for vigil_loop_wakeup). */
    struct vigil__wait w = {-1, 0};
    if (mode == VIGIL_RUN_NOWAIT || loop->stop || loop->fail_head >= 0 || fired > 0 || loop->later_head ||
        (loop->active == 0 && !loop->on_wakeup))
        w.timeout_ns = 0;
    else if (timers) {
        vigil__timers_deadline(loop, tm, &w);
        vigil__timers_arm(loop, tm);
    }
    if (w.timeout_ns != 0)
        loop->waits++;

    int n = backend_turn(loop, &w); /* 2 */
    return vigil__turn_after(loop, n, timers, has_ring);
}

static inline __attribute__((always_inline)) int vigil__run(vigil_loop *loop, enum vigil_run_mode mode,
                                                            vigil__turn_fn backend_turn, bool has_ring)
{
    loop->running = true;
    for (;;) {
        int r = vigil__turn(loop, mode, backend_turn, has_ring);
        if (r < 0) {
            loop->running = false;
            return r;
        }
        if (mode != VIGIL_RUN_DEFAULT || loop->stop || loop->active == 0)
            break;
    }
    loop->running = false;
    loop->stop = false;
    return loop->active ? 1 : 0;
}

/* The plain non-blocking turn: VIGIL_RUN_NOWAIT on a loop that has nothing but fd
 * watchers to serve. A backend's run may test vigil__turn_plain first and, when it
 * holds, make its non-blocking wait at once and end with vigil__plain_end; otherwise it
 * runs vigil__run. On the lab's Intel Xeon VM (2.1 GHz) the general turn wrapped an idle
 * epoll_wait(..., 0) in ~90 instructions, ~12 ns more than a loop of glibc's
 * epoll_wait (1.12x); the plain turn in ~40, ~5 ns (1.05x; one process alternating
 * batches of each, 6 runs).
 *
 * What the plain turn leaves out of vigil__turn, and why each is safe when
 * vigil__turn_plain holds:
 *   - steps 1 and 6 (no clock read, no deadline): no timer is started, and
 *     nothing runs before the wait that could start one (no hook is started);
 *   - the hook points 1b and 7: no hook is started (loop->hooks counts the check hooks
 *     too), and a callback that starts one is served by vigil__plain_end's general end;
 *   - the choice of the wait: VIGIL_RUN_NOWAIT never sleeps, whatever else holds;
 *   - the backend's changes: loop->ndirty is 0 (the backend also checks its own state,
 *     such as epoll's pending rebuild, before taking this path);
 *   - steps 3 and 5: no failure is queued (fail_head < 0) nor deferred work
 *     (later_head) before the wait, and only a backend without a ring uses this path;
 *     a failure the wait itself finds (poll's POLLNVAL) sends vigil__plain_end to the
 *     general end, as events do; deferred work is queued only by callbacks, which run
 *     there too;
 *   - loop->running: no callback can run between the test and the wait; when the wait
 *     returns anything but 0 events, vigil__plain_end runs steps 3 to 7 under it;
 *   - the clock epoch's two bumps (start of turn, after the wait) become one add of 2:
 *     nothing reads the clock between them on this path.
 * The stats keep counting: turns++ (a NOWAIT turn never counts in waits). */
static inline __attribute__((always_inline)) bool vigil__turn_plain(const vigil_loop *loop)
{
    return (loop->hooks | (unsigned)loop->ndirty) == 0 && loop->fail_head < 0 && !loop->later_head &&
           !vigil__timers_any(loop->mod[VIGIL__MOD_TIMERS]);
}

/* Starts a plain turn (vigil__turn_plain held): the bookkeeping before the wait. */
static inline __attribute__((always_inline)) void vigil__plain_begin(vigil_loop *loop)
{
    loop->turns++;
    loop->clock_epoch += 2;
}

/* The rest of a plain turn whose wait returned n != 0 (collected events, or a negative
 * errno) or found a failure: steps 3 to 7 and the end of a VIGIL_RUN_NOWAIT run, as
 * vigil__run has them. */
static __attribute__((noinline)) int vigil__plain_rest(vigil_loop *loop, int n)
{
    loop->running = true;
    int r = vigil__turn_after(loop, n, false, false);
    loop->running = false;
    if (r < 0)
        return r;
    loop->stop = false;
    return loop->active ? 1 : 0;
}

/* Ends a plain turn: n as the backend's turn returns it (events in loop->ev). */
static inline __attribute__((always_inline)) int vigil__plain_end(vigil_loop *loop, int n)
{
    if (n != 0 || loop->fail_head >= 0)
        return vigil__plain_rest(loop, n);
    loop->stop = false; /* a NOWAIT run consumes a stop request, as vigil__run does */
    return loop->active ? 1 : 0;
}

#endif
