/* A request ended twice (issue 26): sends queued on a connection whose peer resets
 * (SO_LINGER {1, 0}) with bytes unread, and the failed send's callback closes the
 * socket, as examples/echo_server.c's on_sent does. Every send's callback must run
 * exactly once, in start order, and the close callback once after them. Before the fix
 * the next queued send was handed to the engine before the failed one's callback ran,
 * and the close then ended it a second time: on epoll and poll it got -ECANCELED and
 * then -EPIPE, on io_uring its completion found an empty send queue (a NULL
 * dereference in send_done). Rounds vary how many sends are queued and which callback
 * closes (the first failure, or every one). */
#include "nt.h"

#define MAXQ 6
#define LEN (1u << 20) /* far more than both socket buffers take (the kernel doubles SO_SNDBUF and SO_RCVBUF) */

static vigil_sock s;
static vigil_net_req req[MAXQ];
static int calls[MAXQ], order[MAXQ], norder, closed, close_calls, close_from_each;
static ssize_t results[MAXQ];

static void on_closed(vigil_loop *loop, vigil_sock *ps)
{
    (void)loop;
    CHECK(ps == &s);
    CHECK_EQ(norder, MAXQ); /* every request ended before the close did */
    close_calls++;
}

static void on_sent(vigil_loop *loop, vigil_net_req *r, ssize_t res)
{
    int i = (int)(intptr_t)r->data;
    calls[i]++;
    if (calls[i] > 1)
        fprintf(stderr, "send %d ended again: %zd (first %zd)\n", i, res, results[i]);
    CHECK_EQ(calls[i], 1);
    CHECK_EQ(close_calls, 0);
    results[i] = res;
    order[norder++] = i;
    if (res < 0 && (!closed || close_from_each)) {
        int e = vigil_sock_close(loop, &s, on_closed);
        CHECK(e == 0 || (closed && e == -EBADF));
        closed = 1;
    }
}

static void round_(int nq, int each)
{
    vigil_loop *loop = vt_loop();
    static unsigned char data[LEN];
    nt_fill(data, LEN, 0);
    int p[2];
    nt_pair(p, 1);
    memset(&s, 0, sizeof s);
    memset(req, 0, sizeof req);
    memset(calls, 0, sizeof calls);
    norder = closed = close_calls = 0;
    close_from_each = each;
    CHECK_EQ(vigil_sock_open(loop, &s, p[1]), 0);
    for (int i = 0; i < MAXQ; i++)
        req[i].data = (void *)(intptr_t)i;
    for (int i = 0; i < nq; i++)
        CHECK_EQ(vigil_sock_send(loop, &s, &req[i], data, LEN, on_sent), 0);
    nt_run_for(loop, 20); /* the head fills the socket; the peer reads nothing */
    CHECK_EQ(norder, 0);
    CHECK_EQ(write(p[0], "unread", 6), 6); /* bytes unread at p[1]: its close would reset too */
    nt_reset(p[0]);
    for (int i = nq; i < MAXQ; i++) /* more behind them, started after the reset */
        CHECK_EQ(vigil_sock_send(loop, &s, &req[i], data, LEN, on_sent), 0);
    NT_RUN_UNTIL(loop, close_calls == 1, 5000);
    nt_run_for(loop, 30); /* nothing more comes */
    for (int i = 0; i < MAXQ; i++) {
        CHECK_EQ(calls[i], 1);
        CHECK_EQ(order[i], i);
        CHECK(results[i] < 0);
        CHECK_EQ(req[i].result, results[i]);
    }
    CHECK_EQ(close_calls, 1);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0); /* nothing left active */
    CHECK_EQ(vigil_loop_free(loop), 0);
}

int main(void)
{
    alarm(60);
    for (int nq = 2; nq <= MAXQ; nq++)
        for (int each = 0; each < 2; each++)
            round_(nq, each);
    printf("every send ended once, the close after them, on %s\n", nt_backend());
    return 0;
}
