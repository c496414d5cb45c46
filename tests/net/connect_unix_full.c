/* vigil_sock_connect to an AF_UNIX listener whose backlog is full: connect(2) says
 * EAGAIN (non-blocking fd) and nothing signals room, so vigil retries. With fds blocking
 * and non-blocking, on every backend: a connect with a 100 ms timeout ends -ETIMEDOUT,
 * not before 100 ms; one cancelled ends -ECANCELED (also when cancelled in the call's
 * wake, before its first try's end was reported); one without a timeout ends 0 once
 * the listener accepts a waiting connection, and its socket is then connected
 * (getpeername; before the fix the epoll and poll backends said 0 at once on an
 * unconnected socket, io_uring said -EAGAIN for a non-blocking fd). Each callback once. */
#include "nt.h"

#include <stddef.h>
#include <sys/un.h>

static int calls;
static ssize_t last;
static void on_conn(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r; calls++, last = res; }
static int closed;
static void on_closed(vigil_loop *l, vigil_sock *s) { (void)l, (void)s; closed++; }

/* A listener (autobound abstract name in *a) with a backlog of 0, filled: the fds that
 * filled it in fills[]. */
static int full_listener(struct sockaddr_un *a, socklen_t *al, int *fills, int *nfill)
{
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(l);
    struct sockaddr_un u = {.sun_family = AF_UNIX};
    CHECK_SYS(bind(l, (struct sockaddr *)&u, sizeof(sa_family_t)));
    *al = sizeof *a;
    CHECK_SYS(getsockname(l, (struct sockaddr *)a, al));
    CHECK_SYS(listen(l, 0));
    *nfill = 0;
    for (;;) {
        int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        CHECK_SYS(c);
        if (connect(c, (struct sockaddr *)a, *al) < 0) {
            CHECK(errno == EAGAIN);
            close(c);
            break;
        }
        CHECK(*nfill < 8);
        fills[(*nfill)++] = c;
    }
    CHECK(*nfill >= 1);
    return l;
}

static void start(vigil_loop *loop, vigil_sock *s, vigil_net_req *r, int nonblock, const struct sockaddr_un *a,
                  socklen_t al, int64_t timeout_ns)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
    CHECK_SYS(fd);
    memset(s, 0, sizeof *s);
    memset(r, 0, sizeof *r);
    CHECK_EQ(vigil_sock_open(loop, s, fd), 0);
    CHECK_EQ(vigil_sock_connect(loop, s, r, (const struct sockaddr *)a, al, timeout_ns, on_conn), 0);
}

static void finish(vigil_loop *loop, vigil_sock *s)
{
    int c0 = closed;
    CHECK_EQ(vigil_sock_close(loop, s, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == c0 + 1, 3000);
}

/* A connect cancelled after running the loop for wait_ms (0: not at all) ends -ECANCELED. */
static void cancelled(vigil_loop *loop, int nonblock, const struct sockaddr_un *a, socklen_t al, int wait_ms)
{
    vigil_sock s;
    vigil_net_req r;
    int before = calls;
    start(loop, &s, &r, nonblock, a, al, 0);
    if (wait_ms) {
        nt_run_for(loop, wait_ms);
        CHECK_EQ(calls, before);
    }
    CHECK_EQ(vigil_net_cancel(loop, &r), 0);
    NT_RUN_UNTIL(loop, calls == before + 1, 3000);
    CHECK_EQ(last, -ECANCELED);
    finish(loop, &s);
}

static void round_of(vigil_loop *loop, int nonblock)
{
    struct sockaddr_un a;
    socklen_t al;
    int fills[8], nfill;
    int l = full_listener(&a, &al, fills, &nfill);
    vigil_sock s;
    vigil_net_req r;

    /* 1. A timeout: never early, -ETIMEDOUT. */
    int before = calls;
    int64_t t0 = nt_ms();
    start(loop, &s, &r, nonblock, &a, al, 100 * 1000000LL);
    NT_RUN_UNTIL(loop, calls == before + 1, 3000);
    int64_t took = nt_ms() - t0;
    printf("%s fd, %s: timeout after %lld ms: %s\n", nonblock ? "non-blocking" : "blocking", nt_backend(),
           (long long)took, strerror((int)-last));
    CHECK_EQ(last, -ETIMEDOUT);
    CHECK(took >= 99);
    finish(loop, &s);

    /* 2. A cancel while it waits; and one in the call's wake, before the first try's
     * -EAGAIN reached the completion point: that end is not retried. */
    cancelled(loop, nonblock, &a, al, 20);
    cancelled(loop, nonblock, &a, al, 0);

    /* 3. Room comes: the listener accepts one waiting connection. */
    before = calls;
    start(loop, &s, &r, nonblock, &a, al, 0);
    nt_run_for(loop, 20);
    CHECK_EQ(calls, before);
    int got = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    CHECK_SYS(got);
    t0 = nt_ms();
    NT_RUN_UNTIL(loop, calls == before + 1, 3000);
    printf("%s fd, %s: connected %lld ms after room came: %s\n", nonblock ? "non-blocking" : "blocking",
           nt_backend(), (long long)(nt_ms() - t0), strerror((int)-last));
    CHECK_EQ(last, 0);
    struct sockaddr_un p;
    socklen_t pl = sizeof p;
    CHECK_SYS(getpeername(s.fd, (struct sockaddr *)&p, &pl));
    nt_run_for(loop, 10);
    CHECK_EQ(calls, before + 1);
    finish(loop, &s);

    close(got);
    for (int i = 0; i < nfill; i++)
        close(fills[i]);
    close(l);
}

int main(void)
{
    alarm(30);
    vigil_loop *loop = vt_loop();
    round_of(loop, 0);
    round_of(loop, 1);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
