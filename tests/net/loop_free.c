/* vigil_loop_free with sockets open and requests in flight: a listener accepting, a
 * connection with 4 sends of 1 MiB queued to a peer that reads nothing and a receive
 * stream, one with an own-buffer receive, one connecting, and one whose close has
 * started. Every request's callback runs exactly once (-ECANCELED or its result), the
 * started close's callback runs once, every fd is closed, and nothing leaks (ASan). */
#include "nt.h"

#define NSEND 4
#define LEN (1u << 20)

static int calls[NSEND + 2], closes, stream_bad;
static ssize_t res_of[NSEND + 2];

static void on_req(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l;
    int i = (int)(intptr_t)r->data;
    calls[i]++;
    res_of[i] = res;
}
static void on_acc(vigil_loop *l, vigil_sock *s, int fd) { (void)l, (void)s; if (fd >= 0) close(fd); }
static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b) { (void)l, (void)s, (void)b, (void)n; stream_bad++; }
static void on_closed(vigil_loop *l, vigil_sock *s) { (void)l, (void)s; closes++; }

int main(void)
{
    alarm(20);
    static unsigned char data[LEN];
    nt_fill(data, LEN, 0);
    vigil_loop *loop = vt_loop();
    static vigil_sock ls, a, b, c, d;
    static vigil_net_req sreq[NSEND], rreq, creq;
    int port;
    int lfd = nt_listener(8, 0, &port);
    int pa[2], pb[2], pd[2];
    nt_pair(pa, 1);
    nt_pair(pb, 0);
    nt_pair(pd, 0);
    int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(cfd);
    int fds[5] = {lfd, pa[1], pb[1], cfd, pd[1]};
    CHECK_EQ(vigil_sock_open(loop, &ls, lfd), 0);
    CHECK_EQ(vigil_sock_open(loop, &a, pa[1]), 0);
    CHECK_EQ(vigil_sock_open(loop, &b, pb[1]), 0);
    CHECK_EQ(vigil_sock_open(loop, &c, cfd), 0);
    CHECK_EQ(vigil_sock_open(loop, &d, pd[1]), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &ls, on_acc), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &a, on_data), 0);
    for (int i = 0; i < NSEND; i++) {
        sreq[i].data = (void *)(intptr_t)i;
        CHECK_EQ(vigil_sock_send(loop, &a, &sreq[i], data, LEN, on_req), 0);
    }
    static char rbuf[4096];
    rreq.data = (void *)(intptr_t)NSEND;
    CHECK_EQ(vigil_sock_recv(loop, &b, &rreq, rbuf, sizeof rbuf, on_req), 0);
    nt_run_for(loop, 20); /* in the kernel */
    creq.data = (void *)(intptr_t)(NSEND + 1);
    struct sockaddr_in sa = nt_loopback(port);
    CHECK_EQ(vigil_sock_connect(loop, &c, &creq, (struct sockaddr *)&sa, sizeof sa, 0, on_req), 0);
    CHECK_EQ(vigil_sock_close(loop, &d, on_closed), 0);

    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < NSEND + 2; i++)
        CHECK_EQ(calls[i], 1);
    for (int i = 0; i < NSEND; i++)
        CHECK(res_of[i] == -ECANCELED || res_of[i] == (ssize_t)LEN);
    CHECK(res_of[NSEND + 1] == -ECANCELED || res_of[NSEND + 1] == 0);
    CHECK_EQ(res_of[NSEND], -ECANCELED);
    CHECK_EQ(closes, 1);
    CHECK_EQ(stream_bad, 0);
    for (int i = 0; i < 5; i++) {
        errno = 0;
        CHECK(fcntl(fds[i], F_GETFD) == -1 && errno == EBADF);
    }
    close(pa[0]), close(pb[0]), close(pd[0]);
    printf("every request ended once at vigil_loop_free on %s\n", nt_backend());
    return 0;
}
