/* VIGIL_RUN_NOWAIT on a loop with nothing but fd watchers (the plain turn of turn.h, which
 * the epoll backend takes; the others run the general turn, and must agree):
 *   - an idle turn returns 1, counts a turn and no wait, runs no callback, and renews
 *     the cached clock;
 *   - a stop requested before it is consumed by it (a later DEFAULT run is not cut short);
 *   - a ready fd's callback runs within the call, with the cached clock read afresh;
 *   - what that callback starts is served in the same turn, as the general turn does: a
 *     check hook runs (step 7) and a due timer fires (step 6);
 *   - a wakeup's on_wakeup runs within the call;
 *   - on poll, a watched fd closed behind the loop's back (POLLNVAL: a failure the wait
 *     itself finds, with no event) is reported within the call. */
#include "vt.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int calls, checks, fired, woken;
static int64_t seen_now;
static vigil_check chk;
static vigil_timer tmr;

static void on_check(vigil_loop *loop, vigil_check *w)
{
    checks++;
    CHECK_EQ(vigil_check_stop(loop, w), 0);
}

static void on_timer(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    (void)t;
    fired++;
}

/* Reads one byte; the first call stops nothing, later calls stop the loop. */
static void cb_read(vigil_loop *loop, vigil_io *w, int ev)
{
    CHECK(ev & VIGIL_READ);
    char b;
    CHECK_EQ(read(w->fd, &b, 1), 1);
    seen_now = vigil_loop_now(loop);
    if (++calls >= 2)
        vigil_loop_stop(loop);
}

/* Starts a check hook and a timer due now. */
static void cb_start(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)ev;
    char b;
    CHECK_EQ(read(w->fd, &b, 1), 1);
    calls++;
    CHECK_EQ(vigil_check_start(loop, &chk, on_check), 0);
    CHECK_EQ(vigil_timer_start(loop, &tmr, CLOCK_MONOTONIC, 0, 0, 0, on_timer), 0);
}

static int failed_with;
static void cb_fail(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)loop;
    (void)w;
    failed_with = ev;
}

static void on_wakeup(vigil_loop *loop, void *data)
{
    (void)loop;
    (void)data;
    woken++;
}

int main(void)
{
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.on_wakeup = on_wakeup;
    vigil_loop *loop = vt_loop_opts(&o);
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, cb_read), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* applies the registration */

    /* Idle turns. */
    struct vigil_loop_stats s0, s1;
    CHECK_EQ(vigil_loop_stats_get(loop, &s0), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(vigil_loop_stats_get(loop, &s1), 0);
    CHECK_EQ(s1.turns - s0.turns, 3);
    CHECK_EQ(s1.waits - s0.waits, 0);
    CHECK_EQ(calls, 0);
    /* An idle turn still renews the cached clock: a read after it is not the one cached
     * before it. */
    int64_t t0 = vigil_loop_now(loop);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK(vigil_loop_now(loop) > t0);

    /* A stop before an idle NOWAIT run is consumed by it: the DEFAULT run after it
     * turns until cb_read's second call stops it (a stale stop would end it after one). */
    vigil_loop_stop(loop);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_SYS(write(p[1], "ab", 2));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 1);
    CHECK_EQ(calls, 2);

    /* A ready fd: its callback runs within the NOWAIT call and reads the clock afresh
     * (the cached now from before the call is stale by then). */
    int64_t before = vigil_loop_now(loop);
    CHECK_SYS(write(p[1], "c", 1));
    for (int i = 0; i < 1000 && calls == 2; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(calls, 3);
    CHECK(seen_now > before);
    /* That callback called vigil_loop_stop: the NOWAIT run consumed it too. */
    CHECK_SYS(write(p[1], "d", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 1); /* stopped by the 4th call */
    CHECK_EQ(calls, 4);

    /* What a callback starts is served in the same turn. */
    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, cb_start), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* applies the change */
    CHECK_EQ(calls, 4);
    CHECK_SYS(write(p[1], "e", 1));
    for (int i = 0; i < 1000 && calls == 4; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(calls, 5);
    CHECK_EQ(checks, 1);
    CHECK_EQ(fired, 1);
    CHECK(!vigil_check_active(&chk));
    CHECK(!vigil_timer_active(&tmr));

    /* A wakeup from this thread: on_wakeup runs within the next NOWAIT call. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* plain again: nothing started */
    CHECK_EQ(vigil_loop_wakeup(loop), 0);
    for (int i = 0; i < 1000 && woken == 0; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(woken, 1);

    if (strcmp(vigil_loop_backend(loop), "poll") == 0) {
        int q[2];
        CHECK_SYS(pipe(q));
        vigil_io w2 = {0};
        CHECK_EQ(vigil_io_start(loop, &w2, q[0], VIGIL_READ, cb_fail), 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* applies it */
        CHECK_EQ(failed_with, 0);
        close(q[0]); /* not vigil's close: the loop learns it from the wait */
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
        CHECK_EQ(failed_with, -EBADF);
        CHECK(!vigil_io_active(&w2));
        close(q[1]);
    }

    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0); /* nothing active left */
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    close(p[1]);
    return 0;
}
