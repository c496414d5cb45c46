/* The order of callbacks within one turn, the same on every backend:
 *   1. timers due when the turn begins;
 *   2. registration failures (revents < 0: a regular file's -EPERM, a closed fd's -EBADF);
 *   3. fd events;
 *   4. completions: file requests, mq watchers;
 *   5. the rest of the timers (due during the wait, or started by a callback of this turn).
 * Everything is made pending before the first turn: a MONOTONIC timer already due (its
 * callback makes a second socket readable and starts a timer due at once, which must run
 * in the same turn's last pass), a watcher on a regular file, one on an fd closed before
 * the turn, a readable socketpair, a file read, an mq watcher whose queue holds a
 * message, and a timer due later that a blocking turn waits for. Turns (RUN_ONCE) run
 * until everything has called back; a file read or an mq wait may take a thread
 * hand-off, hence more than one turn, so the rule checked is that within each turn the
 * recorded kinds never go backwards. In the first turn the due timer must also come
 * before the fd events of that turn, and the timer its callback started must run in it.
 * Phase 2 does it again with every registration in place, setting things off in the
 * reverse of the order they must run in: a file read and an mq message first (given
 * 10 ms to complete), then an fd event, a new failure, and a due timer last.
 */
#include "vt.h"
#include "../mq/mqt.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum kind { K_TIMER_DUE = 1, K_FAIL = 2, K_FD = 3, K_DONE = 4, K_TIMER_LATE = 5 };
static const char *const kind_name[] = {"", "due timer", "failure", "fd event", "completion", "timer after wait"};

struct rec {
    int turn;
    int kind;
    const char *what;
    long val;
};

static struct rec recs[64];
static int nrec;
static int turn_no; /* bumped before each vigil_loop_run */

/* What must call back before the test ends. */
static int seen_t1, seen_t2, seen_t3, seen_eperm, seen_ebadf, seen_s1, seen_s2, seen_file, seen_mq;
/* Phase 2's (counted from its start). */
static int seen_t4, seen_file2, seen_mq2, seen_s1b, seen_eperm2;

static vigil_loop *loop;
static int s1[2], s2[2];
static mqd_t q;
static vigil_timer t1, t2, t3;
static vigil_timer t4;
static vigil_io w_reg, w_reg2, w_closed, w_s1, w_s2;
static vigil_mq_watch mw;
static char fbuf[64];

static void rec(int kind, const char *what, long val)
{
    CHECK(nrec < (int)(sizeof recs / sizeof recs[0]));
    recs[nrec++] = (struct rec){turn_no, kind, what, val};
}

static int first_of_turn(void)
{
    return nrec == 0 || recs[nrec - 1].turn != turn_no;
}

static void on_t2(vigil_loop *l, vigil_timer *t)
{
    (void)l;
    (void)t;
    rec(K_TIMER_LATE, "t2 (started by t1's callback)", 0);
    seen_t2++;
}

static void on_t1(vigil_loop *l, vigil_timer *t)
{
    (void)t;
    rec(K_TIMER_DUE, "t1 (due before the turn)", 0);
    seen_t1++;
    /* Makes s2 readable before this turn's wait, and starts a timer due at once: it
     * belongs to this turn's last pass. */
    CHECK_SYS(write(s2[1], "y", 1));
    CHECK_EQ(vigil_timer_start(l, &t2, CLOCK_MONOTONIC, 0, 0, 0, on_t2), 0);
}

static void on_t3(vigil_loop *l, vigil_timer *t)
{
    (void)l;
    (void)t;
    /* t3 is due 100 ms after the set-up: normally a blocking turn waits for it and it
     * runs in the last pass. Should a turn begin after its deadline instead (a slow
     * machine), it runs in the first pass; that can be told apart only when something
     * ran before it in the same turn, so a t3 that opens its turn counts as pass 1. */
    rec(first_of_turn() ? K_TIMER_DUE : K_TIMER_LATE, "t3 (waited for)", 0);
    seen_t3++;
}

static void on_fail(vigil_loop *l, vigil_io *w, int revents)
{
    (void)l;
    CHECK(!vigil_io_active(w));
    if (w == &w_reg) {
        CHECK_EQ(revents, -EPERM);
        rec(K_FAIL, "regular file watcher: -EPERM", revents);
        seen_eperm++;
    } else if (w == &w_reg2) {
        CHECK_EQ(revents, -EPERM);
        rec(K_FAIL, "regular file watcher 2: -EPERM", revents);
        seen_eperm2++;
    } else {
        CHECK_EQ(revents, -EBADF);
        rec(K_FAIL, "closed fd watcher: -EBADF", revents);
        seen_ebadf++;
    }
}

static void on_sock(vigil_loop *l, vigil_io *w, int revents)
{
    (void)l;
    CHECK(revents > 0 && (revents & VIGIL_READ));
    char b[16];
    CHECK(read(w->fd, b, sizeof b) == 1);
    if (w == &w_s1) {
        rec(K_FD, "socket s1 readable", revents);
        seen_s1++;
        seen_s1b++;
    } else {
        rec(K_FD, "socket s2 readable (written by t1)", revents);
        seen_s2++;
    }
}

static void on_file(vigil_loop *l, vigil_file_req *req, int64_t res)
{
    CHECK_EQ(res, 5);
    CHECK(memcmp(fbuf, "hello", 5) == 0);
    rec(K_DONE, "file read", (long)res);
    seen_file++;
    seen_file2++;
    vigil_file_req_put(l, req);
}

static void on_mq(vigil_loop *l, vigil_mq_watch *w, int revents)
{
    CHECK(revents > 0 && (revents & VIGIL_READ));
    char b[16];
    CHECK_EQ(vigil_mq_receive(q, b, sizeof b, NULL), 1);
    rec(K_DONE, "mq watcher", revents);
    seen_mq++;
    seen_mq2++;
    CHECK_EQ(vigil_mq_watch_stop(l, w), 0);
}

static bool all_seen(void)
{
    return seen_t1 && seen_t2 && seen_t3 && seen_eperm && seen_ebadf && seen_s1 && seen_s2 && seen_file && seen_mq;
}

static void print_log(FILE *out)
{
    for (int i = 0; i < nrec; i++)
        fprintf(out, "  turn %d: %d %-16s %s\n", recs[i].turn, recs[i].kind, kind_name[recs[i].kind], recs[i].what);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs turns (RUN_ONCE) until done() or 5 s; returns the number of the first. */
static int run_until(bool (*done)(void))
{
    int first = turn_no + 1;
    int64_t give_up = now_ns() + 5 * 1000000000LL;
    while (!done() && now_ns() < give_up && turn_no < 400) {
        turn_no++;
        int r = vigil_loop_run(loop, VIGIL_RUN_ONCE);
        CHECK(r >= 0);
    }
    return first;
}

/* Index of the first record of turn whose text starts with what, or -1. */
static int find(int turn, const char *what)
{
    for (int i = 0; i < nrec; i++)
        if (recs[i].turn == turn && strncmp(recs[i].what, what, strlen(what)) == 0)
            return i;
    return -1;
}

static int bad;
static const char *backend;

static void fail(const char *msg)
{
    fprintf(stderr, "FAIL on %s: %s\n", backend, msg);
    bad = 1;
}

/* Phase 2: everything registered already; the completions are set off first, then the
 * fd event, then the failure, then the due timer: the reverse of the order they must
 * run in, so that an order that only follows readiness or start order shows. */

static void on_t4(vigil_loop *l, vigil_timer *t)
{
    (void)l;
    (void)t;
    rec(K_TIMER_DUE, "t4 (phase 2, due before the turn)", 0);
    seen_t4++;
}

static bool phase2_seen(void)
{
    return seen_t4 && seen_file2 && seen_mq2 && seen_s1b && seen_eperm2;
}

int main(void)
{
    mqt_setup();
    loop = vt_loop();
    backend = vigil_loop_backend(loop);

    q = mqt_create("/order", 4, 16);
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = O_NONBLOCK}, NULL));
    CHECK_EQ(vigil_mq_send(q, "m", 1, 0), 0);

    char path[] = "/tmp/vigil-order-XXXXXX";
    int f = mkstemp(path);
    CHECK_SYS(f);
    unlink(path);
    CHECK_EQ(write(f, "hello", 5), 5);

    /* Phase 1. The completions' sources are set up first (their eventfds, where they
     * have some, get the lowest numbers and the first registrations), the fd watchers
     * next, the closed fd last: nothing may reuse its number before the turn. */
    vigil_file_req *req = vigil_file_req_get(loop);
    CHECK(req != NULL);
    vigil_file_prep_read(req, f, fbuf, sizeof fbuf, 0, on_file);
    CHECK_EQ(vigil_file_start(loop, req), 0);
    CHECK_EQ(vigil_mq_watch_start(loop, &mw, q, VIGIL_READ, on_mq), 0);
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, s1));
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, s2));
    CHECK_SYS(write(s1[1], "x", 1));
    CHECK_EQ(vigil_io_start(loop, &w_s1, s1[0], VIGIL_READ, on_sock), 0);
    CHECK_EQ(vigil_io_start(loop, &w_s2, s2[0], VIGIL_READ, on_sock), 0);
    CHECK_EQ(vigil_io_start(loop, &w_reg, f, VIGIL_READ, on_fail), 0);
    CHECK_EQ(vigil_timer_start(loop, &t1, CLOCK_MONOTONIC, 0, 0, 0, on_t1), 0);
    CHECK_EQ(vigil_timer_start(loop, &t3, CLOCK_MONOTONIC, 100 * 1000000LL, 0, 0, on_t3), 0);
    int p[2];
    CHECK_SYS(pipe(p));
    CHECK_EQ(vigil_io_start(loop, &w_closed, p[0], VIGIL_READ, on_fail), 0);
    close(p[0]);
    close(p[1]);

    printf("turn_order: backend %s, file engine %s, mq watcher %s\n", backend, vigil_file_engine(loop),
           vigil_mq_watch_threaded(&mw) ? "helper thread" : "in the ring");
    /* Let helper threads (file workers, the mq watcher's) finish what they can: their
     * completions are then pending when the first turn begins. */
    usleep(10000);
    int p1 = run_until(all_seen);
    if (!all_seen()) {
        fprintf(stderr, "FAIL on %s: phase 1: not everything called back within 5 s: t1 %d t2 %d t3 %d eperm %d ebadf %d s1 %d s2 %d file %d mq %d\n",
                backend, seen_t1, seen_t2, seen_t3, seen_eperm, seen_ebadf, seen_s1, seen_s2, seen_file, seen_mq);
        bad = 1;
    }
    /* The first turn: t1 first of all, s1's and s2's events in it, and t2, which t1
     * started, in its last pass. */
    int t1_at = find(p1, "t1"), s1_at = find(p1, "socket s1"), s2_at = find(p1, "socket s2");
    if (t1_at < 0 || (t1_at > 0 && recs[t1_at - 1].turn == p1))
        fail("the due timer t1 was not the first callback of turn 1");
    if (s1_at < 0 || s2_at < 0)
        fail("turn 1 lacks an fd event of s1 or s2, though both were readable before its wait");
    else if (t1_at > s1_at || t1_at > s2_at)
        fail("an fd event ran before the due timer t1 in turn 1");
    if (find(p1, "t2") < 0)
        fail("t2 (started by t1's callback, due at once) did not run in turn 1's last pass");

    /* Phase 2. */
    seen_file2 = seen_mq2 = seen_s1b = 0;
    req = vigil_file_req_get(loop);
    CHECK(req != NULL);
    memset(fbuf, 0, sizeof fbuf);
    vigil_file_prep_read(req, f, fbuf, sizeof fbuf, 0, on_file);
    CHECK_EQ(vigil_file_start(loop, req), 0);
    CHECK_EQ(vigil_mq_send(q, "n", 1, 0), 0);
    CHECK_EQ(vigil_mq_watch_start(loop, &mw, q, VIGIL_READ, on_mq), 0);
    usleep(10000);
    CHECK_SYS(write(s1[1], "z", 1));
    CHECK_EQ(vigil_io_start(loop, &w_reg2, f, VIGIL_READ, on_fail), 0);
    CHECK_EQ(vigil_timer_start(loop, &t4, CLOCK_MONOTONIC, 0, 0, 0, on_t4), 0);
    int p2 = run_until(phase2_seen);
    if (!phase2_seen()) {
        fprintf(stderr, "FAIL on %s: phase 2: not everything called back within 5 s: t4 %d eperm %d s1 %d file %d mq %d\n",
                backend, seen_t4, seen_eperm2, seen_s1b, seen_file2, seen_mq2);
        bad = 1;
    }
    int t4_at = find(p2, "t4"), s1b_at = find(p2, "socket s1");
    if (t4_at < 0 || s1b_at < 0)
        fail("the first turn of phase 2 lacks t4 (due) or s1's event (readable before it)");
    else if (t4_at > s1b_at)
        fail("an fd event ran before the due timer t4 in the first turn of phase 2");

    /* Within a turn the kinds never go backwards. */
    for (int i = 1; i < nrec; i++) {
        if (recs[i].turn == recs[i - 1].turn && recs[i].kind < recs[i - 1].kind) {
            fprintf(stderr, "FAIL on %s: turn %d ran \"%s\" (%s) after \"%s\" (%s)\n", backend, recs[i].turn,
                    recs[i].what, kind_name[recs[i].kind], recs[i - 1].what, kind_name[recs[i - 1].kind]);
            bad = 1;
        }
    }
    printf("turn_order: %d turns (phase 2 from turn %d), callbacks in the order they ran:\n", turn_no, p2);
    print_log(stdout);
    if (bad)
        fprintf(stderr, "turn_order: %s FAILED (the order of the callbacks is printed above)\n", backend);

    vigil_io_stop(loop, &w_s1);
    vigil_io_stop(loop, &w_s2);
    vigil_mq_watch_stop(loop, &mw);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(s1[0]);
    close(s1[1]);
    close(s2[0]);
    close(s2[1]);
    close(f);
    vigil_mq_close(q);
    return bad;
}
