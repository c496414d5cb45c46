/* Each call from inside each socket callback (issue 26): from a send's callback (the
 * send succeeded, or failed at a peer's reset with more sends queued), a receive
 * stream's callback (data, end of stream, reset) and a connect's callback, the program
 * closes the socket, cancels a queued send, shuts down, starts a new send, or stops
 * receiving. Whatever it calls, every request started gets exactly one callback, the
 * close callback runs once after them, vigil_loop_free from inside the callback is
 * refused (-EBUSY), and no buffer stays lent. */
#include "nt.h"

enum { E_SENT_OK, E_SENT_FAIL, E_DATA, E_EOF, E_RESET, E_CONNECTED, E_N };
enum { A_CLOSE, A_CANCEL, A_SHUTDOWN, A_SEND, A_RECV_STOP, A_N };
static const char *ename[E_N] = {"sent", "send failed", "data", "eof", "reset", "connected"};
static const char *aname[A_N] = {"close", "cancel", "shutdown", "send", "recv_stop"};

#define NREQ 5
#define BIG (1u << 20) /* more than both socket buffers take */

static vigil_loop *loop;
static vigil_sock s;
static vigil_net_req req[NREQ], creq;
static int started[NREQ], calls[NREQ], cstarted, ccalls, close_calls, acted, ev, act, closed;
static unsigned char data[BIG];

static void on_closed(vigil_loop *l, vigil_sock *ps)
{
    (void)l, (void)ps;
    for (int i = 0; i < NREQ; i++)
        CHECK_EQ(calls[i], started[i]);
    CHECK_EQ(ccalls, cstarted);
    close_calls++;
}

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res);

static void do_act(void)
{
    if (acted)
        return;
    acted = 1;
    CHECK_EQ(vigil_loop_free(loop), -EBUSY);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), -EBUSY);
    switch (act) {
    case A_CLOSE:
        CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
        closed = 1;
        break;
    case A_CANCEL:
        for (int i = NREQ - 1; i >= 0; i--)
            if (started[i] && !calls[i]) {
                CHECK_EQ(vigil_net_cancel(loop, &req[i]), 0);
                break;
            }
        break;
    case A_SHUTDOWN:
    {
        int e = vigil_sock_shutdown(loop, &s, SHUT_WR);
        CHECK(e == 0 || e == -ENOTCONN); /* the peer reset it: shutdown(2) says so */
        break;
    }
    case A_SEND:
        for (int i = 0; i < NREQ; i++)
            if (!started[i]) {
                int e = vigil_sock_send(loop, &s, &req[i], data, 100, on_sent);
                CHECK(e == 0 || e == -EPIPE);
                started[i] = e == 0;
                break;
            }
        break;
    case A_RECV_STOP:
        CHECK_EQ(vigil_sock_recv_stop(loop, &s), 0);
        break;
    }
}

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l;
    int i = (int)(r - req);
    CHECK(started[i]);
    calls[i]++;
    CHECK_EQ(calls[i], 1);
    CHECK_EQ(close_calls, 0);
    if ((ev == E_SENT_OK && res > 0) || (ev == E_SENT_FAIL && res < 0 && res != -ECANCELED))
        do_act();
}

static void on_data(vigil_loop *l, vigil_sock *ps, ssize_t n, vigil_buf *b)
{
    (void)ps;
    vigil_buf_put(l, b);
    if ((ev == E_DATA && n > 0) || (ev == E_EOF && n == 0) || (ev == E_RESET && n < 0))
        do_act();
}

static void on_connected(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r;
    CHECK_EQ(res, 0);
    ccalls++;
    CHECK_EQ(ccalls, 1);
    do_act();
}

static void scenario(int e, int a)
{
    loop = vt_loop();
    memset(&s, 0, sizeof s);
    memset(req, 0, sizeof req);
    memset(&creq, 0, sizeof creq);
    memset(started, 0, sizeof started);
    memset(calls, 0, sizeof calls);
    cstarted = ccalls = close_calls = acted = closed = 0;
    ev = e, act = a;
    int p[2], lfd = -1;
    if (e == E_CONNECTED) {
        int port;
        lfd = nt_listener(8, 0, &port);
        int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK_SYS(c);
        CHECK_EQ(vigil_sock_open(loop, &s, c), 0);
        struct sockaddr_in sa = nt_loopback(port);
        CHECK_EQ(vigil_sock_connect(loop, &s, &creq, (struct sockaddr *)&sa, sizeof sa, 0, on_connected), 0);
        cstarted = 1;
        /* queued behind nothing: sends wait for the connect in the kernel's order */
        p[0] = -1;
    } else {
        nt_pair(p, 1);
        CHECK_EQ(vigil_sock_open(loop, &s, p[1]), 0);
    }
    CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0);
    if (e == E_SENT_OK || e == E_SENT_FAIL) {
        size_t len = e == E_SENT_OK ? 100 : BIG;
        for (int i = 0; i < 3; i++) {
            CHECK_EQ(vigil_sock_send(loop, &s, &req[i], data, len, on_sent), 0);
            started[i] = 1;
        }
    }
    if (e == E_SENT_FAIL) {
        nt_run_for(loop, 10);
        CHECK_EQ(write(p[0], "unread", 6), 6);
        nt_reset(p[0]);
        p[0] = -1;
    } else if (e == E_DATA) {
        CHECK_EQ(write(p[0], "x", 1), 1);
    } else if (e == E_EOF) {
        CHECK_SYS(shutdown(p[0], SHUT_WR));
    } else if (e == E_RESET) {
        CHECK_EQ(write(p[0], "unread", 6), 6);
        nt_run_for(loop, 5);
        nt_reset(p[0]);
        p[0] = -1;
    }
    NT_RUN_UNTIL(loop, acted, 5000);
    nt_run_for(loop, 10);
    if (!closed)
        CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    NT_RUN_UNTIL(loop, close_calls == 1, 5000);
    nt_run_for(loop, 10);
    for (int i = 0; i < NREQ; i++)
        CHECK_EQ(calls[i], started[i]);
    CHECK_EQ(ccalls, cstarted);
    CHECK_EQ(close_calls, 1);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    if (p[0] >= 0)
        close(p[0]);
    if (lfd >= 0)
        close(lfd);
    (void)ename, (void)aname;
}

int main(void)
{
    alarm(100);
    signal(SIGPIPE, SIG_IGN);
    for (int e = 0; e < E_N; e++)
        for (int a = 0; a < A_N; a++) {
            fprintf(stderr, "%s -> %s\n", ename[e], aname[a]);
            scenario(e, a);
        }
    printf("%d callbacks x %d calls: every request ended once on %s\n", E_N, A_N, nt_backend());
    return 0;
}
