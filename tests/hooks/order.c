/* Where hooks run in a turn: due timers, idle, prepare, (the wait), fd events, check.
 * Shown with a log of one letter per callback, turn by turn:
 *   T  a timer due before the turn (step 1)      D  the idle hook
 *   P  the prepare hook                          I  an fd watcher's event
 *   C  the check hook
 * The prepare hook writes a byte to a pipe each turn: the wait then finds the pipe
 * readable, and the check hook sees the fd event of the same turn (I before C).
 * Then: what a prepare hook does reaches this turn's wait -- a watcher it starts on a
 * readable fd gets its event in the same turn (the interest change is applied after
 * the prepare hooks), and a timer it starts bounds the wait (a loop whose only other
 * watcher never fires would otherwise sleep for ever: alarm() fails the test). */
#include "vt.h"

#include <fcntl.h>

#include <signal.h>

static char logbuf[256];
static size_t loglen;
static int wfd;

static void put(char c)
{
    CHECK(loglen + 1 < sizeof logbuf);
    logbuf[loglen++] = c;
    logbuf[loglen] = 0;
}

static void on_timer(vigil_loop *l, vigil_timer *t)
{
    (void)l, (void)t;
    put('T');
}

static void on_idle(vigil_loop *l, vigil_idle *w)
{
    (void)l, (void)w;
    put('D');
}

static void on_prepare(vigil_loop *l, vigil_prepare *w)
{
    (void)l, (void)w;
    put('P');
    CHECK_EQ(write(wfd, "x", 1), 1);
}

static void on_io(vigil_loop *l, vigil_io *w, int revents)
{
    (void)l;
    CHECK(revents & VIGIL_READ);
    char c;
    CHECK_EQ(read(w->fd, &c, 1), 1);
    put('I');
}

static void on_check(vigil_loop *l, vigil_check *w)
{
    (void)l, (void)w;
    put('C');
}

/* Part 2: a prepare hook that starts a watcher, and one that starts a timer. */
static vigil_io late_io;
static int late_fd, late_events, late_checks_seen;
static void on_late_io(vigil_loop *l, vigil_io *w, int revents)
{
    (void)l, (void)w, (void)revents;
    late_events++;
}
static void prep_start_io(vigil_loop *l, vigil_prepare *w)
{
    CHECK_EQ(vigil_io_start(l, &late_io, late_fd, VIGIL_READ, on_late_io), 0);
    CHECK_EQ(vigil_prepare_stop(l, w), 0);
}
static void check_late(vigil_loop *l, vigil_check *w)
{
    (void)l, (void)w;
    late_checks_seen = late_events; /* the event came before this turn's check */
}

static vigil_timer bound;
static int bound_fired;
static void on_bound(vigil_loop *l, vigil_timer *t)
{
    (void)l, (void)t;
    bound_fired++;
}
static void prep_start_timer(vigil_loop *l, vigil_prepare *w)
{
    CHECK_EQ(vigil_timer_start(l, &bound, CLOCK_MONOTONIC, 1000000, 0, 0, on_bound), 0);
    CHECK_EQ(vigil_prepare_stop(l, w), 0);
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    int p[2];
    CHECK_SYS(pipe2(p, O_NONBLOCK | O_CLOEXEC));
    wfd = p[1];
    vigil_timer t = {0};
    vigil_idle idle = {0};
    vigil_prepare prep = {0};
    vigil_check check = {0};
    vigil_io io = {0};
    /* Started in the reverse of their order in a turn: the order is the turn's. */
    CHECK_EQ(vigil_check_start(loop, &check, on_check), 0);
    CHECK_EQ(vigil_io_start(loop, &io, p[0], VIGIL_READ, on_io), 0);
    CHECK_EQ(vigil_prepare_start(loop, &prep, on_prepare), 0);
    CHECK_EQ(vigil_idle_start(loop, &idle, on_idle), 0);
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 0, 0, 0, on_timer), 0);
    usleep(1000); /* the timer is due before the first turn begins */
    for (int i = 0; i < 3; i++)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    printf("log: %s\n", logbuf);
    if (strcmp(logbuf, "TDPICDPICDPIC") != 0) {
        fprintf(stderr, "turn order: got %s, want TDPICDPICDPIC\n", logbuf);
        return 1;
    }
    /* Without the idle hook the turns wait, and still run in that order. */
    CHECK_EQ(vigil_idle_stop(loop, &idle), 0);
    loglen = 0;
    for (int i = 0; i < 2; i++)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK(strcmp(logbuf, "PICPIC") == 0);
    CHECK_EQ(vigil_prepare_stop(loop, &prep), 0);
    CHECK_EQ(vigil_check_stop(loop, &check), 0);
    CHECK_EQ(vigil_io_stop(loop, &io), 0);

    /* A watcher started by a prepare hook is in this turn's wait. */
    int q[2];
    CHECK_SYS(pipe2(q, O_NONBLOCK | O_CLOEXEC));
    CHECK_EQ(write(q[1], "y", 1), 1);
    late_fd = q[0];
    vigil_prepare p2 = {0};
    vigil_check c2 = {0};
    CHECK_EQ(vigil_prepare_start(loop, &p2, prep_start_io), 0);
    CHECK_EQ(vigil_check_start(loop, &c2, check_late), 0);
    CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(late_events, 1);
    CHECK_EQ(late_checks_seen, 1);
    CHECK_EQ(vigil_check_stop(loop, &c2), 0);
    CHECK_EQ(vigil_io_stop(loop, &late_io), 0);

    /* A timer started by a prepare hook bounds the wait: the only other watcher (a pipe
     * nobody writes to) never ends it. */
    int r2[2];
    CHECK_SYS(pipe2(r2, O_NONBLOCK | O_CLOEXEC));
    vigil_io never = {0};
    CHECK_EQ(vigil_io_start(loop, &never, r2[0], VIGIL_READ, on_io), 0);
    vigil_prepare p3 = {0};
    CHECK_EQ(vigil_prepare_start(loop, &p3, prep_start_timer), 0);
    while (!bound_fired)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(vigil_io_stop(loop, &never), 0);

    printf("hooks order: pass (%s)\n", vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
