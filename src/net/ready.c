/* Sockets on the epoll and poll backends: completions emulated with readiness and
 * non-blocking calls. What a request costs here:
 *   send     one send()/sendmsg() made at once, inside the call that starts it (the
 *            callback still runs at the turn's completion point); only a send the
 *            socket cannot take whole waits for writability, and is continued then;
 *   receive  one recv() per turn in which the socket is readable, into a pool buffer
 *            (level-triggered: data left in the kernel is read next turn);
 *   accept   accept4() until the backlog is empty or this turn's limit was taken:
 *            VIGIL_NET_ACCEPT_BATCH, doubled (up to ACCEPT_CAP_MAX) after each turn
 *            that left connections in the backlog, halved after one that emptied it
 *            with room to spare (see accept_some);
 *   connect  connect(), then getsockopt(SO_ERROR) once writable.
 * So an echo round trip is the wait, a recv and a send, as in a hand-written epoll
 * server. The socket's one watcher (s->io) asks for READ while something wants to read
 * and WRITE while a send or connect waits; the loop applies the change lazily.
 */
#include "net/net_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PENDING ((ssize_t)1 << 62) /* try_send: the socket is full, wait */
#define S_WBLOCK VIGIL__S_WBLOCK

static struct vigil__sock *of_io(vigil_io *w)
{
    return (struct vigil__sock *)((char *)w - offsetof(struct vigil__sock, io));
}

static void on_io(vigil_loop *loop, vigil_io *w, int revents);

static void interest(vigil_loop *loop, struct vigil__sock *s)
{
    uint32_t want = 0;
    if (s->state & VIGIL__S_OPEN) {
        if (((s->state & VIGIL__S_ACCEPT) && !(s->state & VIGIL__S_PAUSED)) ||
            ((s->state & VIGIL__S_RECV) && !(s->state & VIGIL__S_STARVED)) ||
            (s->rreq && s->rreq->state == VIGIL__NR_INFLIGHT))
            want |= VIGIL_READ;
        if ((s->creq && s->creq->state == VIGIL__NR_INFLIGHT) || (s->state & S_WBLOCK))
            want |= VIGIL_WRITE;
    }
    if (!want) {
        vigil_io_stop(loop, &s->io);
        return;
    }
    if (vigil_io_active(&s->io)) {
        vigil_io_modify(loop, &s->io, want);
        return;
    }
    if (vigil__io_start_internal(loop, &s->io, s->fd, want, on_io) < 0)
        vigil_io_stop(loop, &s->io);
}

/* Sends what r has left: its final result (bytes, or a negative errno) or PENDING. */
static ssize_t try_send(struct vigil__sock *s, struct vigil__nreq *r)
{
    const int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
    for (;;) {
        ssize_t k;
        if (r->kind == VIGIL__NK_SENDTO) {
            k = sendto(s->fd, r->buf, r->len, flags, r->addrlen ? (struct sockaddr *)&r->addr : NULL, r->addrlen);
            if (k >= 0)
                return k;
        } else {
            const struct iovec *iov;
            int cnt = vigil__net_send_iov(r, &iov);
            if (cnt == 1)
                k = send(s->fd, iov->iov_base, iov->iov_len, flags);
            else {
                struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt};
                k = sendmsg(s->fd, &m, flags);
            }
            if (k >= 0 && (s->state & VIGIL__S_DGRAM_SOCK)) {
                (void)vigil__net_advance(r, (size_t)k); /* one datagram: never a "rest" */
                return k;
            }
            if (k > 0) {
                if (vigil__net_advance(r, (size_t)k))
                    return (ssize_t)r->done;
                continue;
            }
            if (k == 0)
                continue; /* a zero-length piece cannot stay: advance skipped it */
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
            return PENDING;
        return -errno;
    }
}

static void r_send(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    ssize_t out = try_send(s, r);
    if (out == PENDING) {
        s->state |= S_WBLOCK;
        interest(loop, s);
        return;
    }
    /* Done in the call that started it: the callback waits for the completion point. */
    vigil__net_defer(loop, n, r, out);
}

static void writable(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    struct vigil__nreq *c = s->creq;
    if (c && c->state == VIGIL__NR_INFLIGHT) {
        int err = 0;
        socklen_t l = sizeof err;
        if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
            err = errno;
        vigil__net_single_done(loop, n, c, -err);
    }
    struct vigil__nreq *r = s->sq_head;
    if ((s->state & S_WBLOCK) && r && r->state == VIGIL__NR_INFLIGHT) {
        ssize_t out = try_send(s, r);
        if (out != PENDING) {
            s->state &= ~S_WBLOCK;
            vigil__net_send_done(loop, n, s, out);
        }
    }
}

/* How many connections a turn accepts. A fixed 64 per turn let the listen queue
 * overflow whenever turns grew long (thousands of busy connections): the kernel then
 * drops the handshake's last ACK and the client, which thinks itself connected, waits
 * for SYN-ACK retransmissions 1 s, 3 s, 7 s later. wrk at 10,000 connections against
 * http_hello on epoll: 128 requests timed out at 5 s and the kernel counted 406 listen
 * overflows in 6 s; io_uring, whose multishot accept takes connections as they come,
 * none (issue 26). So the limit doubles after every turn that stopped at it with the
 * backlog not empty, up to ACCEPT_CAP_MAX, and halves back towards
 * VIGIL_NET_ACCEPT_BATCH after a turn that emptied the backlog using less than a
 * quarter of it: a burst is taken in a few turns, a steady trickle costs established
 * connections no more than before. */
#define ACCEPT_CAP_MAX 4096

static void accept_some(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    if (s->accept_cap < VIGIL_NET_ACCEPT_BATCH)
        s->accept_cap = VIGIL_NET_ACCEPT_BATCH;
    if (s->accept_turn != loop->turns) {
        s->accept_turn = loop->turns;
        s->accepted = 0;
    }
    while ((s->state & (VIGIL__S_ACCEPT | VIGIL__S_PAUSED | VIGIL__S_OPEN)) == (VIGIL__S_ACCEPT | VIGIL__S_OPEN)) {
        if (s->accepted >= s->accept_cap) {
            if (s->accept_cap < ACCEPT_CAP_MAX)
                s->accept_cap *= 2; /* the backlog outlasted the turn's limit */
            return;
        }
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (s->accepted < s->accept_cap / 4 && s->accept_cap > VIGIL_NET_ACCEPT_BATCH)
                s->accept_cap /= 2;
            return;
        }
        s->accepted++;
        vigil__net_accepted(loop, n, s, fd < 0 ? -errno : fd);
    }
}

static void readable(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    struct vigil__nreq *r = s->rreq;
    if (r && r->state == VIGIL__NR_INFLIGHT) {
        ssize_t k = recv(s->fd, (void *)r->buf, r->len, MSG_DONTWAIT);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        vigil__net_single_done(loop, n, r, k < 0 ? -errno : k);
        return;
    }
    if (s->state & VIGIL__S_ACCEPT) {
        accept_some(loop, n, s);
        return;
    }
    if (!(s->state & VIGIL__S_RECV) || (s->state & VIGIL__S_STARVED))
        return;
    struct vigil__npool *p = &n->pool;
    if (!p->nfree) {
        vigil__net_starve(n, s);
        return;
    }
    uint32_t id = p->stack[--p->nfree];
    char *base = p->mem + (size_t)id * p->size;
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    bool dgram = s->state & VIGIL__S_DGRAM;
    ssize_t k = dgram ? recvfrom(s->fd, base, p->size, MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from, &fl)
                      : recv(s->fd, base, p->size, MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        p->stack[p->nfree++] = id;
        return;
    }
    if (dgram && k > (ssize_t)p->size) { /* cut to the buffer: reported, not delivered */
        p->stack[p->nfree++] = id;
        vigil__net_deliver(loop, n, s, -EMSGSIZE, UINT32_MAX, 0, (struct sockaddr *)&from, fl);
        return;
    }
    if (k < 0 || (k == 0 && !dgram)) {
        int e = k < 0 ? -errno : 0;
        p->stack[p->nfree++] = id;
        vigil__net_deliver(loop, n, s, e, UINT32_MAX, 0, NULL, 0);
        return;
    }
    vigil__net_deliver(loop, n, s, k, id, 0, dgram ? (struct sockaddr *)&from : NULL, dgram ? fl : 0);
}

/* The watcher could not be registered (the fd is gone): every request fails with it. */
static void failed(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, int err)
{
    if (s->creq && s->creq->state == VIGIL__NR_INFLIGHT)
        vigil__net_single_done(loop, n, s->creq, err);
    if (s->rreq && s->rreq->state == VIGIL__NR_INFLIGHT)
        vigil__net_single_done(loop, n, s->rreq, err);
    if ((s->state & S_WBLOCK) && s->sq_head) {
        s->state &= ~S_WBLOCK;
        vigil__net_send_done(loop, n, s, err);
    }
    if (s->state & VIGIL__S_ACCEPT)
        vigil__net_accepted(loop, n, s, err);
    else if (s->state & VIGIL__S_RECV)
        vigil__net_deliver(loop, n, s, err, UINT32_MAX, 0, NULL, 0);
}

static void on_io(vigil_loop *loop, vigil_io *w, int revents)
{
    struct vigil__sock *s = of_io(w);
    struct vigil__net *n = vigil__net_of(loop);
    if (revents < 0) {
        failed(loop, n, s, revents);
        return;
    }
    if (revents & (VIGIL_WRITE | VIGIL_ERR | VIGIL_HUP))
        writable(loop, n, s);
    if ((revents & (VIGIL_READ | VIGIL_ERR | VIGIL_HUP)) && (s->state & VIGIL__S_OPEN))
        readable(loop, n, s);
    if (s->state & VIGIL__S_OPEN)
        interest(loop, s);
}

static int r_setup(vigil_loop *loop, struct vigil__net *n)
{
    (void)loop, (void)n;
    return 0;
}

static void r_fini(vigil_loop *loop, struct vigil__net *n)
{
    (void)loop, (void)n;
}

static int r_open(vigil_loop *loop, struct vigil__sock *s)
{
    (void)loop;
    int fl = fcntl(s->fd, F_GETFL);
    if (fl < 0 || (!(fl & O_NONBLOCK) && fcntl(s->fd, F_SETFL, fl | O_NONBLOCK) < 0))
        return -errno;
    return 0;
}

static void r_rx_update(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    (void)n;
    interest(loop, s);
}

static void r_recv(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    (void)n, (void)r;
    interest(loop, s);
}

static void r_connect(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    int e;
    do
        e = connect(s->fd, (struct sockaddr *)&r->addr, r->addrlen);
    while (e < 0 && errno == EINTR);
    /* -EAGAIN is no connect in progress (an AF_UNIX backlog is full, or no local port is
     * free): it ends the attempt (sock.c retries the AF_UNIX case). */
    if (e == 0 || (errno != EINPROGRESS && errno != EALREADY)) {
        vigil__net_defer(loop, n, r, e == 0 ? 0 : -errno);
        return;
    }
    interest(loop, s);
}

static void r_cancel(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    if (r == s->sq_head)
        s->state &= ~S_WBLOCK;
    vigil__net_defer(loop, n, r, -ECANCELED);
    if (s->state & VIGIL__S_OPEN)
        interest(loop, s);
}

static void r_buf_put(vigil_loop *loop, struct vigil__net *n, uint32_t id)
{
    (void)loop;
    n->pool.stack[n->pool.nfree++] = id;
}

static unsigned r_close(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    vigil_io_stop(loop, &s->io);
    s->state &= ~S_WBLOCK;
    if (s->sq_head && s->sq_head->state == VIGIL__NR_INFLIGHT) {
        s->sq_head->cancel = 1;
        vigil__net_defer(loop, n, s->sq_head, -ECANCELED);
    }
    if (s->rreq && s->rreq->state == VIGIL__NR_INFLIGHT)
        vigil__net_defer(loop, n, s->rreq, -ECANCELED);
    if (s->creq && s->creq->state == VIGIL__NR_INFLIGHT)
        vigil__net_defer(loop, n, s->creq, -ECANCELED);
    return 0;
}

const struct vigil__net_engine vigil__net_engine_ready = {
    .name = "ready",
    .setup = r_setup,
    .fini = r_fini,
    .open = r_open,
    .rx_update = r_rx_update,
    .send = r_send,
    .recv = r_recv,
    .connect = r_connect,
    .cancel = r_cancel,
    .buf_put = r_buf_put,
    .close = r_close,
};
