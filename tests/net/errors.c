/* Every bad input gives its documented error, changes nothing, and runs no callback:
 * a pipe is not a socket, a closed fd, accepting on a socket that does not listen,
 * zero lengths, NULL callbacks, sending after shutdown, a second close, datagram
 * receive on a stream, a second receive stream, restarting a request in flight,
 * cancelling an idle one, and every call on a zeroed socket never opened. */
#include "nt.h"

#include <limits.h>

static int calls; /* callbacks that must never run */
static int sent, closed;

static void never_net(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r, (void)res; calls++; }
static void never_acc(vigil_loop *l, vigil_sock *s, int fd) { (void)l, (void)s, (void)fd; calls++; }
static void never_rx(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b) { (void)l, (void)s, (void)n, (void)b; calls++; }
static void never_rxf(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b, const struct sockaddr *f, socklen_t fl)
{
    (void)l, (void)s, (void)n, (void)b, (void)f, (void)fl;
    calls++;
}
static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r;
    CHECK_EQ(res, 5);
    sent++;
}
static void on_closed(vigil_loop *l, vigil_sock *s) { (void)l, (void)s; closed++; }

/* Every call on a socket that is not open. */
static void all_ebadf(vigil_loop *loop, vigil_sock *z)
{
    vigil_net_req r = {0};
    char b[4] = "abc";
    struct iovec iov = {b, 3};
    struct sockaddr_in sa = nt_loopback(9);
    CHECK_EQ(vigil_sock_accept_start(loop, z, never_acc), -EBADF);
    CHECK_EQ(vigil_sock_accept_stop(loop, z), -EBADF);
    CHECK_EQ(vigil_sock_recv_start(loop, z, never_rx), -EBADF);
    CHECK_EQ(vigil_sock_recvfrom_start(loop, z, never_rxf), -EBADF);
    CHECK_EQ(vigil_sock_recv_stop(loop, z), -EBADF);
    CHECK_EQ(vigil_sock_recv(loop, z, &r, b, sizeof b, never_net), -EBADF);
    CHECK_EQ(vigil_sock_send(loop, z, &r, b, 3, never_net), -EBADF);
    CHECK_EQ(vigil_sock_sendv(loop, z, &r, &iov, 1, never_net), -EBADF);
    CHECK_EQ(vigil_sock_send_zc(loop, z, &r, b, 3, never_net, never_net), -EBADF);
    CHECK_EQ(vigil_sock_sendto(loop, z, &r, b, 3, (struct sockaddr *)&sa, sizeof sa, never_net), -EBADF);
    CHECK_EQ(vigil_sock_connect(loop, z, &r, (struct sockaddr *)&sa, sizeof sa, 0, never_net), -EBADF);
    CHECK_EQ(vigil_sock_shutdown(loop, z, SHUT_WR), -EBADF);
    CHECK_EQ(vigil_sock_close(loop, z, on_closed), -EBADF);
    CHECK_EQ(vigil_net_cancel(loop, &r), -ENOENT);
    CHECK_EQ(vigil_sock_accepting(z), 0);
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    vigil_sock zero = {0};
    all_ebadf(loop, &zero); /* before the loop has sockets at all */

    /* Options: a pool count that is not a power of two, unknown flags. */
    struct vigil_net_options o;
    vigil_net_options_init(&o);
    o.buf_count = 3;
    CHECK_EQ(vigil_net_setup(loop, &o), -EINVAL);
    vigil_net_options_init(&o);
    o.flags = 1;
    CHECK_EQ(vigil_net_setup(loop, &o), -EINVAL);
    vigil_net_options_init(&o);
    CHECK_EQ(vigil_net_setup(loop, &o), 0);
    CHECK_EQ(vigil_net_setup(loop, &o), -EBUSY);

    /* Not a socket; not open. */
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, p[0]), -ENOTSOCK);
    CHECK(fcntl(p[0], F_GETFD) >= 0); /* the caller still owns it */
    int gone = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_SYS(gone);
    CHECK_SYS(close(gone));
    CHECK_EQ(vigil_sock_open(loop, &s, gone), -EBADF);
    CHECK_EQ(vigil_sock_open(loop, &s, -1), -EBADF);
    all_ebadf(loop, &s); /* the failed opens left it unopened */

    /* Accepting on a socket that does not listen (connected, and never connected). */
    int fds[2];
    nt_pair(fds, 0);
    int raw = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(raw);
    vigil_sock idle = {0};
    CHECK_EQ(vigil_sock_open(loop, &idle, raw), 0);
    CHECK_EQ(vigil_sock_open(loop, &idle, raw), -EBUSY);
    CHECK_EQ(vigil_sock_accept_start(loop, &idle, never_acc), -EINVAL);
    CHECK_EQ(vigil_sock_open(loop, &s, fds[1]), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &s, never_acc), -EINVAL);
    CHECK_EQ(vigil_sock_accepting(&s), 0);

    /* Zero lengths, NULL buffers and callbacks, bad vectors and addresses. */
    vigil_net_req r = {0}, r2 = {0};
    char buf[64] = "hello";
    struct iovec iov0 = {buf, 0}, iov = {buf, 5};
    struct sockaddr_in sa = nt_loopback(9);
    CHECK_EQ(vigil_sock_send(loop, &s, &r, buf, 0, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_send(loop, &s, &r, NULL, 5, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_send_zc(loop, &s, &r, buf, 0, never_net, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_recv(loop, &s, &r, buf, 0, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_sendv(loop, &s, &r, &iov0, 1, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_sendv(loop, &s, &r, &iov, 0, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_sendv(loop, &s, &r, &iov, IOV_MAX + 1, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_send(loop, &s, &r, buf, 5, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_sendv(loop, &s, &r, &iov, 1, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_send_zc(loop, &s, &r, buf, 5, NULL, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_send_zc(loop, &s, &r, buf, 5, never_net, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_sendto(loop, &s, &r, buf, 5, NULL, 0, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_recv(loop, &s, &r, buf, sizeof buf, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_recvfrom_start(loop, &s, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_accept_start(loop, &s, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_connect(loop, &idle, &r, (struct sockaddr *)&sa, sizeof sa, 0, NULL), -EINVAL);
    CHECK_EQ(vigil_sock_connect(loop, &idle, &r, (struct sockaddr *)&sa, 1, 0, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_connect(loop, &idle, &r, NULL, sizeof sa, 0, never_net), -EINVAL);
    CHECK_EQ(vigil_sock_shutdown(loop, &s, 42), -EINVAL);
    CHECK_EQ(vigil_net_cancel(loop, &r), -ENOENT); /* idle */

    /* A datagram stream on a stream socket; a second receive stream; an own-buffer
     * receive beside a stream. */
    CHECK_EQ(vigil_sock_recvfrom_start(loop, &s, never_rxf), -EOPNOTSUPP);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, never_rx), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, never_rx), -EBUSY);
    CHECK_EQ(vigil_sock_recv(loop, &s, &r, buf, sizeof buf, never_net), -EBUSY);
    CHECK_EQ(vigil_sock_accept_start(loop, &s, never_acc), -EBUSY);
    CHECK_EQ(vigil_sock_recv_stop(loop, &s), 0);

    /* Restarting a request in flight (the send is done at once on epoll/poll, but its
     * callback has not run: still in flight). */
    CHECK_EQ(vigil_sock_send(loop, &s, &r, buf, 5, on_sent), 0);
    CHECK_EQ(vigil_sock_send(loop, &s, &r, buf, 5, on_sent), -EBUSY);
    CHECK_EQ(vigil_sock_sendv(loop, &s, &r, &iov, 1, on_sent), -EBUSY);
    CHECK_EQ(vigil_sock_recv(loop, &idle, &r, buf, sizeof buf, never_net), -EBUSY);
    CHECK_EQ(r.sock, &s);
    NT_RUN_UNTIL(loop, sent == 1, 2000);
    CHECK_EQ(vigil_net_cancel(loop, &r), -ENOENT); /* its callback ran: idle again */

    /* Sending after shutdown(SHUT_WR); receiving after SHUT_RD. */
    CHECK_EQ(vigil_sock_shutdown(loop, &s, SHUT_WR), 0);
    CHECK_EQ(vigil_sock_send(loop, &s, &r2, buf, 5, never_net), -EPIPE);
    CHECK_EQ(vigil_sock_sendv(loop, &s, &r2, &iov, 1, never_net), -EPIPE);
    CHECK_EQ(vigil_sock_send_zc(loop, &s, &r2, buf, 5, never_net, never_net), -EPIPE);
    CHECK_EQ(vigil_sock_shutdown(loop, &s, SHUT_RD), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, never_rx), -EPIPE);
    CHECK_EQ(vigil_sock_recv(loop, &s, &r2, buf, sizeof buf, never_net), -EPIPE);
    char got[8];
    CHECK_EQ(read(fds[0], got, sizeof got), 5); /* the one send that was accepted */
    CHECK_EQ(read(fds[0], got, sizeof got), 0); /* then the shutdown */

    /* A second close: at once, and after the first finished. */
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), -EBADF);
    CHECK_EQ(vigil_sock_send(loop, &s, &r2, buf, 5, never_net), -EBADF);
    CHECK_EQ(vigil_sock_close(loop, &idle, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == 2, 2000);
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), -EBADF);
    CHECK_EQ(s.fd, -1);
    all_ebadf(loop, &s);
    all_ebadf(loop, &zero);

    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(calls, 0);
    CHECK_EQ(closed, 2);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(fds[0]), close(p[0]), close(p[1]);
    printf("errors as documented on %s\n", nt_backend());
    return 0;
}
