/* vigil_sock_close with requests in flight: a connection whose peer never reads has 8
 * sends of 1 MiB queued (send and sendv alternating: far more than the socket buffers
 * take) and a receive stream; a second connection has an own-buffer receive in flight.
 * Closing both: every send's callback runs exactly once, in start order, with
 * -ECANCELED or its full length; the receive once with -ECANCELED; the stream gets no
 * callback (closing stops it as vigil_sock_recv_stop does); each close callback runs
 * once, after all of its socket's requests; every buffer is back; the fds are closed. */
#include "nt.h"

#define NSEND 8
#define LEN (1u << 20)

static vigil_sock a, b;
static vigil_net_req sreq[NSEND], rreq;
static struct iovec iov[NSEND][4];
static int scalls[NSEND], order[NSEND], norder, rcalls, stream_calls, aclosed, bclosed;
static int afd, bfd;

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    (void)loop;
    int i = (int)(intptr_t)req->data;
    CHECK(res == -ECANCELED || res == (ssize_t)LEN);
    CHECK_EQ(req->result, res);
    CHECK_EQ(aclosed, 0);
    scalls[i]++;
    order[norder++] = i;
}

static void on_recv(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    (void)loop, (void)req;
    CHECK_EQ(res, -ECANCELED);
    CHECK_EQ(bclosed, 0);
    rcalls++;
}

static void on_stream(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    (void)loop, (void)s, (void)buf;
    fprintf(stderr, "stream callback after close: %zd\n", n);
    stream_calls++;
}

static void fd_closed(int fd)
{
    errno = 0;
    CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF);
}

static void on_a_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    CHECK(s == &a);
    CHECK_EQ(norder, NSEND);
    CHECK_EQ(s->fd, -1);
    fd_closed(afd);
    aclosed++;
}

static void on_b_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    CHECK(s == &b);
    CHECK_EQ(rcalls, 1);
    fd_closed(bfd);
    bclosed++;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    static unsigned char data[LEN];
    nt_fill(data, LEN, 0);
    int pa[2], pb[2];
    nt_pair(pa, 1);
    nt_pair(pb, 1);
    afd = pa[1], bfd = pb[1];
    CHECK_EQ(vigil_sock_open(loop, &a, afd), 0);
    CHECK_EQ(vigil_sock_open(loop, &b, bfd), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &a, on_stream), 0);
    for (int i = 0; i < NSEND; i++) {
        sreq[i].data = (void *)(intptr_t)i;
        if (i % 2 == 0) { /* the head is a sendv */
            for (int k = 0; k < 4; k++)
                iov[i][k] = (struct iovec){data + k * (LEN / 4), LEN / 4};
            CHECK_EQ(vigil_sock_sendv(loop, &a, &sreq[i], iov[i], 4, on_sent), 0);
        } else {
            CHECK_EQ(vigil_sock_send(loop, &a, &sreq[i], data, LEN, on_sent), 0);
        }
    }
    static char rbuf[4096];
    CHECK_EQ(vigil_sock_recv(loop, &b, &rreq, rbuf, sizeof rbuf, on_recv), 0);
    nt_run_for(loop, 30); /* everything reaches the kernel; the peer reads nothing */
    CHECK_EQ(norder, 0);
    CHECK_EQ(rcalls, 0);

    CHECK_EQ(vigil_sock_close(loop, &a, on_a_closed), 0);
    CHECK_EQ(vigil_sock_close(loop, &b, on_b_closed), 0);
    CHECK_EQ(norder + rcalls + aclosed + bclosed, 0); /* never inside the call */
    NT_RUN_UNTIL(loop, aclosed && bclosed, 3000);
    nt_run_for(loop, 20); /* nothing more comes */

    int cancelled = 0;
    for (int i = 0; i < NSEND; i++) {
        CHECK_EQ(scalls[i], 1);
        CHECK_EQ(order[i], i);
        cancelled += sreq[i].result == -ECANCELED;
    }
    CHECK(cancelled > 0); /* the peer read nothing: not all 8 MiB can have gone */
    CHECK_EQ(rcalls, 1);
    CHECK_EQ(aclosed, 1);
    CHECK_EQ(bclosed, 1);
    CHECK_EQ(stream_calls, 0);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0); /* nothing left active */
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(pa[0]), close(pb[0]);
    printf("%d of %d sends cancelled on %s\n", cancelled, NSEND, nt_backend());
    return 0;
}
