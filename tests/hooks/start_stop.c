/* Starting and stopping hooks from callbacks (libuv's rules, with the walk's end made
 * explicit): hooks of a kind run in start order; one stopped before its turn in the
 * walk does not run; one started by a hook of its own kind (a callback stopping and
 * restarting its own hook included) runs from the next turn, so every walk ends; one
 * started where its kind's point is still to come in the turn (a check hook started by
 * a prepare hook or an fd event) runs in that same turn. And vigil_loop_run and
 * vigil_loop_free are refused from a hook's callback; a loop freed with hooks started
 * forgets them (active says 0). Checked on a log of callbacks, turn by turn. */
#include "vt.h"

#include <fcntl.h>

static char logbuf[512];
static size_t loglen;
static void put(const char *s)
{
    size_t n = strlen(s);
    CHECK(loglen + n + 1 < sizeof logbuf);
    memcpy(logbuf + loglen, s, n + 1);
    loglen += n;
}
static void expect(const char *want)
{
    if (strcmp(logbuf, want) != 0) {
        fprintf(stderr, "log: got \"%s\", want \"%s\"\n", logbuf, want);
        exit(1);
    }
    loglen = 0;
    logbuf[0] = 0;
}

static vigil_prepare pa, pb, pc, pd;
static vigil_check ca;
static int phase;

static void on_ca(vigil_loop *l, vigil_check *w)
{
    (void)l, (void)w;
    put("c");
}

static void on_p(vigil_loop *l, vigil_prepare *w)
{
    char s[2] = {*(char *)w->data, 0};
    put(s);
    if (phase == 1 && w == &pa) { /* a stops b (later in the walk) and starts d */
        CHECK_EQ(vigil_prepare_stop(l, &pb), 0);
        CHECK_EQ(vigil_prepare_start(l, &pd, on_p), 0);
    }
    if (phase == 2 && w == &pa) { /* a restarts itself: it moves to the tail, runs next turn */
        CHECK_EQ(vigil_prepare_stop(l, w), 0);
        CHECK_EQ(vigil_prepare_start(l, w, on_p), 0);
    }
    if (phase == 3 && w == &pc) /* c starts a check hook: it runs in this turn's check */
        CHECK_EQ(vigil_check_start(l, &ca, on_ca), 0);
    if (phase == 4 && w == &pc) { /* the loop's own calls refused from a hook */
        CHECK_EQ(vigil_loop_run(l, VIGIL_RUN_NOWAIT), -EBUSY);
        CHECK_EQ(vigil_loop_free(l), -EBUSY);
        CHECK_EQ(vigil_prepare_start(l, w, on_p), -EBUSY);
    }
}

/* A check hook started by an fd event runs in that turn. */
static vigil_check cb2;
static void on_cb2(vigil_loop *l, vigil_check *w)
{
    put("k");
    CHECK_EQ(vigil_check_stop(l, w), 0);
}
static void on_io(vigil_loop *l, vigil_io *w, int revents)
{
    (void)revents;
    char c;
    CHECK_EQ(read(w->fd, &c, 1), 1);
    put("i");
    CHECK_EQ(vigil_check_start(l, &cb2, on_cb2), 0);
    CHECK_EQ(vigil_io_stop(l, w), 0);
}

static void turn(vigil_loop *l)
{
    CHECK(vigil_loop_run(l, VIGIL_RUN_NOWAIT) >= 0);
    put("|");
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    pa.data = "a", pb.data = "b", pc.data = "c", pd.data = "d";
    CHECK_EQ(vigil_prepare_start(loop, &pa, on_p), 0);
    CHECK_EQ(vigil_prepare_start(loop, &pb, on_p), 0);
    CHECK_EQ(vigil_prepare_start(loop, &pc, on_p), 0);
    turn(loop);
    expect("abc|"); /* start order */

    phase = 1;
    turn(loop);     /* a stops b before b's turn: b does not run; d waits for the next turn */
    phase = 0;
    turn(loop);
    expect("ac|acd|");

    phase = 2;
    turn(loop);     /* a stops and restarts itself: runs once, then from the tail */
    phase = 0;
    turn(loop);
    expect("acd|cda|");

    phase = 3;
    turn(loop);     /* c starts check hook ca: it runs at the end of this turn */
    phase = 0;
    CHECK_EQ(vigil_check_stop(loop, &ca), 0);
    turn(loop);
    expect("cdac|cda|");

    phase = 4;
    turn(loop);
    phase = 0;
    expect("cda|");

    /* A check hook started by an fd event runs in this turn's check. */
    int p[2];
    CHECK_SYS(pipe2(p, O_NONBLOCK | O_CLOEXEC));
    CHECK_EQ(write(p[1], "x", 1), 1);
    vigil_io io = {0};
    CHECK_EQ(vigil_io_start(loop, &io, p[0], VIGIL_READ, on_io), 0);
    CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0); /* waits for the pipe: one turn */
    put("|");
    expect("cdaik|");
    CHECK_EQ(vigil_io_active(&io), 0);

    /* Freed with hooks started: forgotten, inactive, and the structs are the caller's. */
    CHECK_EQ(vigil_prepare_active(&pa), 1);
    CHECK_EQ(vigil_check_start(loop, &ca, on_ca), 0);
    printf("hooks start_stop: pass (%s)\n", vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vigil_prepare_active(&pa), 0);
    CHECK_EQ(vigil_prepare_active(&pd), 0);
    CHECK_EQ(vigil_check_active(&ca), 0);
    /* ... and may be started on a new loop. */
    loop = vt_loop();
    CHECK_EQ(vigil_prepare_start(loop, &pa, on_p), 0);
    turn(loop);
    expect("a|");
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
