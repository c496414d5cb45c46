/* Sockets, the front: the API, validation, each socket's send queue, the ends of
 * requests, receive streams and their stash, and close. Engines are reached through
 * their table (net_int.h). Loop thread only.
 */
#include "net/net_int.h"
#include "sys/clock.h"
#include "sys/list.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct vigil__net *net(vigil_loop *loop)
{
    return vigil__net_of(loop);
}

/* The loop's open sockets (n->open), linked through next and prev. */
VIGIL__HLIST_DEFINE(open_list, struct vigil__sock, next, prev)

/* ------------------------------------------------------------------ open */

int vigil_sock_open(vigil_loop *loop, vigil_sock *ps, int fd)
{
    if (!loop || !ps)
        return -EINVAL;
    struct vigil__sock *s = vigil__sock(ps);
    if (s->state & (VIGIL__S_OPEN | VIGIL__S_CLOSING))
        return -EBUSY;
    if (fd < 0)
        return -EBADF;
    int type;
    socklen_t tl = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
        return -errno; /* EBADF, ENOTSOCK */
    int err;
    struct vigil__net *n = vigil__net_state(loop, NULL, &err);
    if (!n)
        return err;
    if (n->freeing)
        return -ECANCELED; /* from a callback run by vigil_loop_free: nothing may start */
    void *data = s->data;
    memset(s, 0, sizeof *s);
    s->data = data;
    s->fd = fd;
    int e = n->eng->open(loop, s);
    if (e < 0) {
        s->fd = -1;
        return e;
    }
    s->state = VIGIL__S_OPEN | (type == SOCK_STREAM ? 0 : VIGIL__S_DGRAM_SOCK);
    open_list_add(&n->open, s);
    return 0;
}

static int usable(vigil_loop *loop, vigil_sock *ps, struct vigil__net **np, struct vigil__sock **sp)
{
    if (!loop || !ps)
        return -EINVAL;
    struct vigil__net *n = net(loop);
    if (!n || !(vigil__sock(ps)->state & VIGIL__S_OPEN))
        return -EBADF;
    if (n->freeing)
        return -ECANCELED;
    *np = n;
    *sp = vigil__sock(ps);
    return 0;
}

/* ------------------------------------------------------------ accepting */

/* Connections accepted while their listener was not accepting (io_uring's multishot
 * accept can complete between vigil_sock_accept_stop and its cancellation) are held for
 * the next start, as a stopped stream keeps its bytes: closing them would reset
 * connections the client already sees established. The array grows only in that race,
 * never per connection in steady state. */
static bool hold_accepted(struct vigil__net *n, struct vigil__sock *s, int fd)
{
    if (n->nheld == n->held_cap) {
        uint32_t cap = n->held_cap ? 2 * n->held_cap : 16;
        struct vigil__held *h = realloc(n->held, cap * sizeof *h);
        if (!h)
            return false;
        n->held = h;
        n->held_cap = cap;
    }
    n->held[n->nheld++] = (struct vigil__held){s, fd};
    s->held++;
    return true;
}

/* s's oldest held connection, taken off the array; -1 if none. */
static int take_held(struct vigil__net *n, struct vigil__sock *s)
{
    for (uint32_t i = 0; i < n->nheld; i++) {
        if (n->held[i].s != s)
            continue;
        int fd = n->held[i].fd;
        memmove(n->held + i, n->held + i + 1, (n->nheld - i - 1) * sizeof *n->held);
        n->nheld--;
        s->held--;
        return fd;
    }
    return -1;
}

/* At the completion point after a start: the held connections first, oldest first, while
 * the program still accepts. */
static void deliver_held(vigil_loop *loop, struct vigil__deferred *d)
{
    struct vigil__sock *s = (struct vigil__sock *)((char *)d - offsetof(struct vigil__sock, later));
    struct vigil__net *n = net(loop);
    while (s->held && (s->state & VIGIL__S_ACCEPT)) {
        int fd = take_held(n, s);
        s->state &= ~VIGIL__S_NOFD_TOLD;
        VIGIL__NET_CALL(loop, s->accept_cb(loop, vigil__sock_pub(s), fd));
    }
}

int vigil_sock_accept_start(vigil_loop *loop, vigil_sock *ps, vigil_accept_cb cb)
{
    struct vigil__net *n;
    struct vigil__sock *s;
    int e = usable(loop, ps, &n, &s);
    if (e < 0)
        return e;
    if (!cb)
        return -EINVAL;
    if (s->state & (VIGIL__S_ACCEPT | VIGIL__S_RECV))
        return -EBUSY;
    int on = 0;
    socklen_t l = sizeof on;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) < 0)
        return -errno;
    if (!on)
        return -EINVAL;
    s->accept_cb = cb;
    s->state |= VIGIL__S_ACCEPT;
    vigil__net_active_start(loop);
    if (s->held) {
        s->later.run = deliver_held;
        vigil__defer(loop, &s->later);
    }
    n->eng->rx_update(loop, n, s);
    return 0;
}

static void rx_stopped(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    vigil__net_active_stop(loop);
    if (s->state & VIGIL__S_PAUSED) {
        vigil_timer_stop(loop, &s->timer);
        s->state &= ~VIGIL__S_PAUSED;
    }
    n->eng->rx_update(loop, n, s);
}

int vigil_sock_accept_stop(vigil_loop *loop, vigil_sock *ps)
{
    struct vigil__net *n;
    struct vigil__sock *s;
    int e = usable(loop, ps, &n, &s);
    if (e < 0)
        return e == -ECANCELED ? 0 : e;
    if (!(s->state & VIGIL__S_ACCEPT))
        return 0;
    s->state &= ~VIGIL__S_ACCEPT;
    rx_stopped(loop, n, s);
    return 0;
}

int vigil_sock_accepting(const vigil_sock *ps)
{
    return ps && (((const struct vigil__sock *)(const void *)ps)->state & VIGIL__S_ACCEPT) ? 1 : 0;
}

static void backoff_done(vigil_loop *loop, vigil_timer *t)
{
    struct vigil__sock *s = (struct vigil__sock *)((char *)t - offsetof(struct vigil__sock, timer));
    s->state &= ~VIGIL__S_PAUSED;
    if (s->state & VIGIL__S_OPEN)
        net(loop)->eng->rx_update(loop, net(loop), s);
}

void vigil__net_accepted(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, int fd)
{
    if (!(s->state & VIGIL__S_ACCEPT) || (s->held && fd >= 0)) {
        /* Accepted after accepting stopped: held for the next start (or behind the held
         * ones, which go first); a closing listener's is closed. */
        if (fd >= 0 && (!(s->state & VIGIL__S_OPEN) || !hold_accepted(n, s, fd)))
            close(fd);
        return;
    }
    if (fd == -EAGAIN || fd == -EINTR || fd == -ECONNABORTED)
        return; /* nothing to accept after all; the engine waits again */
    if (fd == -EMFILE || fd == -ENFILE || fd == -ENOBUFS || fd == -ENOMEM) {
        /* Out of descriptors: pause instead of waking on the same pending connection
         * every turn, tell the program once per pause. */
        if (s->state & VIGIL__S_PAUSED)
            return;
        s->state |= VIGIL__S_PAUSED;
        s->state &= ~VIGIL__S_CONN_TIMER;
        n->eng->rx_update(loop, n, s);
        vigil_timer_start(loop, &s->timer, CLOCK_MONOTONIC, (int64_t)VIGIL_NET_ACCEPT_BACKOFF_MS * 1000000, 0, 0,
                          backoff_done);
        if (s->state & VIGIL__S_NOFD_TOLD)
            return; /* the retries of one shortage are not news */
        s->state |= VIGIL__S_NOFD_TOLD;
        VIGIL__NET_CALL(loop, s->accept_cb(loop, vigil__sock_pub(s), fd));
        return;
    }
    if (fd >= 0)
        s->state &= ~VIGIL__S_NOFD_TOLD;
    if (fd < 0) {
        s->state &= ~VIGIL__S_ACCEPT;
        rx_stopped(loop, n, s);
    }
    VIGIL__NET_CALL(loop, s->accept_cb(loop, vigil__sock_pub(s), fd));
}

/* ------------------------------------------------------------ receiving */

static void deliver_stash(vigil_loop *loop, struct vigil__deferred *d);

static int rx_start(vigil_loop *loop, vigil_sock *ps, uint32_t kind)
{
    struct vigil__net *n;
    struct vigil__sock *s;
    int e = usable(loop, ps, &n, &s);
    if (e < 0)
        return e;
    if (s->state & (VIGIL__S_ACCEPT | VIGIL__S_RECV) || s->rreq)
        return -EBUSY;
    if (s->state & VIGIL__S_SHUT_RD)
        return -EPIPE;
    s->state |= VIGIL__S_RECV | kind;
    vigil__net_active_start(loop);
    if (s->stash_head) {
        /* Data received before the last stop comes first: at the completion point. */
        s->later.run = deliver_stash;
        vigil__defer(loop, &s->later);
    }
    n->eng->rx_update(loop, n, s);
    return 0;
}

int vigil_sock_recv_start(vigil_loop *loop, vigil_sock *ps, vigil_recv_cb cb)
{
    if (!cb)
        return -EINVAL;
    int e = rx_start(loop, ps, 0);
    if (e == 0)
        vigil__sock(ps)->recv_cb = cb;
    return e;
}

int vigil_sock_recvfrom_start(vigil_loop *loop, vigil_sock *ps, vigil_recvfrom_cb cb)
{
    if (!cb)
        return -EINVAL;
    if (ps && (vigil__sock(ps)->state & VIGIL__S_OPEN)) {
        int type;
        socklen_t tl = sizeof type;
        if (getsockopt(ps->fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
            return -errno;
        if (type == SOCK_STREAM)
            return -EOPNOTSUPP;
    }
    int e = rx_start(loop, ps, VIGIL__S_DGRAM);
    if (e == 0)
        vigil__sock(ps)->recvfrom_cb = cb;
    return e;
}

static void stream_off(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    s->state &= ~(VIGIL__S_RECV | VIGIL__S_DGRAM);
    vigil__undefer(loop, &s->later);
    rx_stopped(loop, n, s);
}

int vigil_sock_recv_stop(vigil_loop *loop, vigil_sock *ps)
{
    struct vigil__net *n;
    struct vigil__sock *s;
    int e = usable(loop, ps, &n, &s);
    if (e < 0)
        return e == -ECANCELED ? 0 : e;
    if (s->state & VIGIL__S_RECV)
        stream_off(loop, n, s);
    return 0;
}

static void stash(struct vigil__net *n, struct vigil__sock *s, uint32_t id, uint32_t len, uint32_t off)
{
    /* The buffer keeps its bytes: data and len say where they are. */
    n->pool.bufs[id].data = n->pool.mem + (size_t)id * n->pool.size + off;
    n->pool.bufs[id].len = len;
    n->pool.link[id] = 0;
    if (s->stash_tail)
        n->pool.link[s->stash_tail - 1] = id + 1;
    else
        s->stash_head = id + 1;
    s->stash_tail = id + 1;
    s->stash_n++;
    n->pool.stashed++;
}

/* Takes the oldest kept buffer off s's stash; returns its id. */
static uint32_t stash_pop(struct vigil__net *n, struct vigil__sock *s)
{
    uint32_t id = s->stash_head - 1;
    s->stash_head = n->pool.link[id];
    if (!s->stash_head)
        s->stash_tail = 0;
    s->stash_n--;
    n->pool.stashed--;
    return id;
}

void vigil__net_deliver(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, ssize_t res, uint32_t id,
                        uint32_t offset, const struct sockaddr *from, socklen_t fromlen)
{
    bool has_buf = id != UINT32_MAX;
    if (!(s->state & VIGIL__S_RECV) || s->stash_head) {
        /* Stopped (or older data still waits): keep the bytes, never drop them. An end
         * of stream or an error seen while stopped is seen again by the next start. */
        if (has_buf && (res > 0 || (res == 0 && (s->state & VIGIL__S_DGRAM_SOCK))))
            stash(n, s, id, (uint32_t)res, offset); /* an empty datagram is one too */
        else if (has_buf)
            vigil__net_buf_back(loop, n, id);
        return;
    }
    bool dgram = s->state & VIGIL__S_DGRAM;
    vigil_buf *b = NULL;
    if (has_buf) {
        if (res > 0 || dgram)
            b = vigil__net_lend(n, id, res > 0 ? (uint32_t)res : 0, offset);
        else
            vigil__net_buf_back(loop, n, id);
    }
    if ((res < 0 && !(dgram && res == -EMSGSIZE)) || (res == 0 && !dgram))
        stream_off(loop, n, s); /* a datagram too long for a buffer does not stop it */
    if (dgram)
        VIGIL__NET_CALL(loop, s->recvfrom_cb(loop, vigil__sock_pub(s), res, b, from, fromlen));
    else
        VIGIL__NET_CALL(loop, s->recv_cb(loop, vigil__sock_pub(s), res, b));
}

/* Own-buffer receives and the stash: bytes a stopped stream kept are older than
 * anything still in the kernel, so a receive into the caller's buffer takes them first
 * (as many as fit; a buffer read in part keeps the rest for the next). Without this the
 * newer bytes came first, or, once the peer had nothing more to send, the receive
 * waited for ever beside bytes already received (tests/net/stash_order.c). */
bool vigil__net_recv_stash(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    if (!s->stash_head)
        return false;
    bool dgram = s->state & VIGIL__S_DGRAM_SOCK;
    size_t got = 0;
    while (s->stash_head && got < r->len) {
        vigil_buf *b = &n->pool.bufs[s->stash_head - 1];
        size_t k = r->len - got < b->len ? r->len - got : b->len;
        memcpy((char *)r->buf + got, b->data, k);
        got += k;
        if (k < b->len && !dgram) {
            b->data += k;
            b->len -= (uint32_t)k;
            break;
        }
        uint32_t id = stash_pop(n, s);
        b->data = NULL;
        b->len = 0;
        vigil__net_buf_back(loop, n, id);
        if (dgram)
            break; /* one datagram, cut to the buffer as recv(2) cuts it (the rest dropped) */
    }
    vigil__net_defer(loop, n, r, (ssize_t)got);
    return true;
}

static void deliver_stash(vigil_loop *loop, struct vigil__deferred *d)
{
    struct vigil__sock *s = (struct vigil__sock *)((char *)d - offsetof(struct vigil__sock, later));
    struct vigil__net *n = net(loop);
    while (s->stash_head && (s->state & VIGIL__S_RECV)) {
        uint32_t id = stash_pop(n, s);
        vigil_buf *b = &n->pool.bufs[id];
        n->pool.lent++;
        if (s->state & VIGIL__S_DGRAM) {
            socklen_t fl = 0;
            const struct sockaddr *from = n->eng->dgram_from ? n->eng->dgram_from(n, id, &fl) : NULL;
            VIGIL__NET_CALL(loop, s->recvfrom_cb(loop, vigil__sock_pub(s), b->len, b, from, from ? fl : 0));
        }
        else
            VIGIL__NET_CALL(loop, s->recv_cb(loop, vigil__sock_pub(s), b->len, b));
    }
}

/* -------------------------------------------------------------- requests */

static int req_ready(struct vigil__nreq *r, vigil_net_cb cb)
{
    if (!r || !cb)
        return -EINVAL;
    if (r->state != VIGIL__NR_IDLE || r->zc_notif)
        return -EBUSY; /* in flight, or the kernel still reads its zero-copy buffer */
    return 0;
}

/* A receive's or connect's first checks: the request free, the socket usable. */
static inline int req_begin(vigil_loop *loop, vigil_sock *ps, struct vigil__nreq *r, vigil_net_cb cb,
                            struct vigil__net **np)
{
    struct vigil__sock *s;
    int e = req_ready(r, cb);
    return e < 0 ? e : usable(loop, ps, np, &s);
}

/* A request taken by socket s: its kind and callback, not cancelled, no result yet. */
static inline void req_take(struct vigil__nreq *r, struct vigil__sock *s, int kind, vigil_net_cb cb)
{
    r->kind = (uint8_t)kind;
    r->cb = cb;
    r->sock = s;
    r->cancel = 0;
    r->result = 0;
}

int vigil__net_send_iov(struct vigil__nreq *r, const struct iovec **iov)
{
    if (r->kind != VIGIL__NK_SENDV) {
        r->one.iov_base = (void *)(r->buf + r->done);
        r->one.iov_len = r->len - r->done;
        *iov = &r->one;
        return 1;
    }
    if (r->iov_off) { /* part of one iovec is left: send that alone first */
        r->one.iov_base = (char *)r->iov[r->iov_i].iov_base + r->iov_off;
        r->one.iov_len = r->iov[r->iov_i].iov_len - r->iov_off;
        *iov = &r->one;
        return 1;
    }
    size_t left = r->len - r->iov_i;
    *iov = r->iov + r->iov_i;
    return (int)(left > IOV_MAX ? IOV_MAX : left);
}

static void shut_now(struct vigil__sock *s)
{
    s->state &= ~VIGIL__S_SHUT_DO;
    shutdown(s->fd, s->shut_how);
}

/* Counts n more bytes sent by r; true once every byte is sent. */
bool vigil__net_advance(struct vigil__nreq *r, size_t n)
{
    r->done += n;
    if (r->kind != VIGIL__NK_SENDV)
        return r->done >= r->len;
    while (n && r->iov_i < r->len) {
        size_t room = r->iov[r->iov_i].iov_len - r->iov_off;
        if (n < room) {
            r->iov_off += n;
            return false;
        }
        n -= room;
        r->iov_i++;
        r->iov_off = 0;
    }
    while (r->iov_i < r->len && r->iov[r->iov_i].iov_len == 0)
        r->iov_i++;
    return r->iov_i >= r->len;
}

/* The send queue moves on only once its head's end is settled (its callback has run):
 * the next send goes to the engine, or, the socket closing, every send still queued
 * ends -ECANCELED, in order. Handing the next one to the engine before the callback ran
 * let a close from that callback end a send the engine was performing: it ended twice
 * (issue 26; tests/net/reset_close.c). A send started by the callback queues behind
 * those already queued, as before. */
static void sq_advance(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    struct vigil__nreq *next;
    while ((next = s->sq_head) && next->state == VIGIL__NR_QUEUED) {
        if (s->state & VIGIL__S_OPEN) {
            next->state = VIGIL__NR_INFLIGHT;
            n->eng->send(loop, n, s, next);
            return;
        }
        s->sq_head = next->next;
        if (!s->sq_head)
            s->sq_tail = NULL;
        next->next = NULL;
        vigil__net_finish(loop, n, next, -ECANCELED);
    }
    if (!s->sq_head && (s->state & VIGIL__S_SHUT_DO) && (s->state & VIGIL__S_OPEN))
        shut_now(s);
}

/* What follows a send's end, on either path of vigil__net_send_done: the next queued
 * send started (or a pending shutdown made), then the close the callback asked for. */
static void send_tail(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    sq_advance(loop, n, s);
    if (s->state & VIGIL__S_CLOSING)
        vigil__net_close_maybe(loop, n, s);
}

void vigil__net_send_tail(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    send_tail(loop, n, s);
}

/* Every end of a send queue's head but the common one, which vigil__net_send_done
 * (net_int.h) makes inline. */
void vigil__net_send_done_general(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, ssize_t out)
{
    /* Off the queue before its callback runs: nothing else can end it now. */
    struct vigil__nreq *r = s->sq_head;
    s->sq_head = r->next;
    if (!s->sq_head)
        s->sq_tail = NULL;
    r->next = NULL;
    /* Cut short by its cancellation (len counts iovecs for a vector). */
    bool whole = r->kind == VIGIL__NK_SENDV ? r->iov_i >= r->len : r->done >= r->len;
    if (r->cancel && out >= 0 && r->kind != VIGIL__NK_SENDTO && !whole)
        out = -ECANCELED;
    vigil__net_finish(loop, n, r, out);
    send_tail(loop, n, s);
}

static int send_common(vigil_loop *loop, vigil_sock *ps, struct vigil__nreq *r, int kind, vigil_net_cb cb)
{
    struct vigil__net *n;
    struct vigil__sock *s;
    int e = usable(loop, ps, &n, &s);
    if (e < 0)
        return e;
    if (s->state & VIGIL__S_SHUT_WR)
        return -EPIPE;
    req_take(r, s, kind, cb);
    r->zc_notif = 0;
    r->done = 0;
    r->next = NULL;
    vigil__net_active_start(loop);
    if (s->sq_tail) { /* behind the sends already started */
        r->state = VIGIL__NR_QUEUED;
        s->sq_tail->next = r;
        s->sq_tail = r;
        return 0;
    }
    s->sq_head = s->sq_tail = r;
    r->state = VIGIL__NR_INFLIGHT;
    n->eng->send(loop, n, s, r);
    return 0;
}

int vigil_sock_send(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const void *buf, size_t len, vigil_net_cb cb)
{
    struct vigil__nreq *r = vigil__nreq(req);
    int e = req_ready(r, cb);
    if (e < 0)
        return e;
    if (!buf || len == 0)
        return -EINVAL;
    r->buf = buf;
    r->len = len;
    return send_common(loop, s, r, VIGIL__NK_SEND, cb);
}

int vigil_sock_send_zc(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const void *buf, size_t len,
                       vigil_net_cb cb, vigil_net_cb release)
{
    struct vigil__nreq *r = vigil__nreq(req);
    int e = req_ready(r, cb);
    if (e < 0)
        return e;
    if (!buf || len == 0 || !release)
        return -EINVAL;
    r->buf = buf;
    r->len = len;
    r->release = release;
    return send_common(loop, s, r, VIGIL__NK_SENDZC, cb);
}

int vigil_sock_sendv(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const struct iovec *iov, int iovcnt,
                     vigil_net_cb cb)
{
    struct vigil__nreq *r = vigil__nreq(req);
    int e = req_ready(r, cb);
    if (e < 0)
        return e;
    if (!iov || iovcnt <= 0 || iovcnt > IOV_MAX)
        return -EINVAL;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len && !iov[i].iov_base)
            return -EINVAL;
        total += iov[i].iov_len;
    }
    if (total == 0)
        return -EINVAL;
    r->iov = iov;
    r->len = (size_t)iovcnt;
    r->iov_i = r->iov_off = 0;
    while (r->iov[r->iov_i].iov_len == 0)
        r->iov_i++;
    return send_common(loop, s, r, VIGIL__NK_SENDV, cb);
}

int vigil_sock_sendto(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const void *buf, size_t len,
                      const struct sockaddr *addr, socklen_t addrlen, vigil_net_cb cb)
{
    struct vigil__nreq *r = vigil__nreq(req);
    int e = req_ready(r, cb);
    if (e < 0)
        return e;
    if ((!buf && len) || (addr && (addrlen == 0 || addrlen > sizeof r->addr)) || (!addr && addrlen))
        return -EINVAL;
    r->buf = buf;
    r->len = len;
    r->addrlen = addr ? addrlen : 0;
    if (addr)
        memcpy(&r->addr, addr, addrlen);
    return send_common(loop, s, r, VIGIL__NK_SENDTO, cb);
}

int vigil_sock_recv(vigil_loop *loop, vigil_sock *ps, vigil_net_req *req, void *buf, size_t len, vigil_net_cb cb)
{
    struct vigil__nreq *r = vigil__nreq(req);
    struct vigil__net *n;
    int e = req_begin(loop, ps, r, cb, &n);
    if (e < 0)
        return e;
    struct vigil__sock *s = vigil__sock(ps);
    if (!buf || len == 0)
        return -EINVAL;
    if (s->state & (VIGIL__S_RECV | VIGIL__S_ACCEPT) || s->rreq)
        return -EBUSY;
    if (s->state & VIGIL__S_SHUT_RD)
        return -EPIPE;
    req_take(r, s, VIGIL__NK_RECV, cb);
    r->buf = buf;
    r->len = len > INT_MAX ? INT_MAX : len;
    r->state = VIGIL__NR_INFLIGHT;
    s->rreq = r;
    vigil__net_active_start(loop);
    if (!vigil__net_recv_stash(loop, n, s, r))
        n->eng->recv(loop, n, s, r);
    return 0;
}

static int64_t mono_ns(void)
{
    return vigil__clock_ns(CLOCK_MONOTONIC);
}

static void connect_start(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r);

/* The connect's timer: its timeout, or the time to retry after -EAGAIN. */
static void connect_timer(vigil_loop *loop, vigil_timer *t)
{
    struct vigil__sock *s = (struct vigil__sock *)((char *)t - offsetof(struct vigil__sock, timer));
    struct vigil__net *n = net(loop);
    struct vigil__nreq *r = s->creq;
    s->state &= ~VIGIL__S_CONN_TIMER;
    if (r && r->state == VIGIL__NR_DONE && !r->cancel)
        r->cancel = 2; /* its end waits for the completion point: an -EAGAIN there is no retry */
    if (!r || r->state != VIGIL__NR_INFLIGHT)
        return;
    if (s->state & VIGIL__S_CONN_RETRY) {
        s->state &= ~VIGIL__S_CONN_RETRY;
        int64_t left = r->deadline ? r->deadline - mono_ns() : 1;
        if (left <= 0) {
            r->cancel = 2;
            vigil__net_defer(loop, n, r, -ETIMEDOUT);
            return;
        }
        if (r->deadline) {
            s->state |= VIGIL__S_CONN_TIMER;
            vigil_timer_start(loop, &s->timer, CLOCK_MONOTONIC, left, 0, 0, connect_timer);
        }
        connect_start(loop, n, s, r);
        return;
    }
    if (!r->cancel) {
        r->cancel = 2; /* 2: the timeout (ends as -ETIMEDOUT) */
        n->eng->cancel(loop, n, s, r);
    }
}

/* connect(2) said -EAGAIN on an AF_UNIX socket: the listener's backlog is full. Nothing
 * signals room (the socket polls writable at once), so the connect is tried again after
 * a pause, 1 ms doubling to 64 ms, until it succeeds, fails otherwise, times out or is
 * cancelled: what a blocking connect does, and what io_uring does with a blocking fd. */
static void connect_retry_later(vigil_loop *loop, struct vigil__sock *s, struct vigil__nreq *r)
{
    int64_t pause = (int64_t)1000000 << (r->retries < 6 ? r->retries : 6);
    r->retries++;
    r->state = VIGIL__NR_INFLIGHT; /* still: an end deferred by the engine marked it done */
    if (s->state & VIGIL__S_CONN_TIMER)
        vigil_timer_stop(loop, &s->timer);
    if (r->deadline) {
        int64_t left = r->deadline - mono_ns();
        if (left < pause)
            pause = left > 0 ? left : 0;
    }
    s->state |= VIGIL__S_CONN_RETRY | VIGIL__S_CONN_TIMER;
    vigil_timer_start(loop, &s->timer, CLOCK_MONOTONIC, pause, 0, 0, connect_timer);
}

/* An AF_UNIX connect completes at once or not at all (EAGAIN: the backlog is full);
 * there is no handshake to wait for. So on every backend it is made here, non-blocking
 * (a blocking fd is made non-blocking for the call), ending at the completion point, and
 * EAGAIN is retried by connect_retry_later. io_uring would hand a blocking fd's connect
 * to a worker thread asleep in the kernel until the backlog has room; conn_fuzz found
 * such a connect still waiting 3 s after the listener had accepted and had room. */
static void unix_connect_now(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    int fl = fcntl(s->fd, F_GETFL);
    int res = 0;
    if (fl < 0 || (!(fl & O_NONBLOCK) && fcntl(s->fd, F_SETFL, fl | O_NONBLOCK) < 0)) {
        res = -errno;
    } else {
        int e;
        do
            e = connect(s->fd, (struct sockaddr *)&r->addr, r->addrlen);
        while (e < 0 && errno == EINTR);
        res = e < 0 ? -errno : 0;
        if (!(fl & O_NONBLOCK))
            fcntl(s->fd, F_SETFL, fl);
    }
    vigil__net_defer(loop, n, r, res);
}

static void connect_start(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    if (r->addr.ss_family == AF_UNIX)
        unix_connect_now(loop, n, s, r);
    else
        n->eng->connect(loop, n, s, r);
}

/* A connect waiting for its retry is in no engine: cancel and close end it here. */
static void connect_retry_cancel(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    s->state &= ~(VIGIL__S_CONN_RETRY | VIGIL__S_CONN_TIMER);
    vigil_timer_stop(loop, &s->timer);
    s->creq->cancel = 1;
    vigil__net_defer(loop, n, s->creq, -ECANCELED);
}

int vigil_sock_connect(vigil_loop *loop, vigil_sock *ps, vigil_net_req *req, const struct sockaddr *addr,
                       socklen_t addrlen, int64_t timeout_ns, vigil_net_cb cb)
{
    struct vigil__nreq *r = vigil__nreq(req);
    struct vigil__net *n;
    int e = req_begin(loop, ps, r, cb, &n);
    if (e < 0)
        return e;
    struct vigil__sock *s = vigil__sock(ps);
    if (!addr || addrlen < sizeof(sa_family_t) || addrlen > sizeof r->addr || timeout_ns < 0)
        return -EINVAL;
    if (s->creq || (s->state & VIGIL__S_PAUSED))
        return -EBUSY;
    req_take(r, s, VIGIL__NK_CONNECT, cb);
    r->addrlen = addrlen;
    memcpy(&r->addr, addr, addrlen);
    r->state = VIGIL__NR_INFLIGHT;
    r->deadline = timeout_ns > 0 ? mono_ns() + timeout_ns : 0;
    r->retries = 0;
    s->creq = r;
    vigil__net_active_start(loop);
    if (timeout_ns > 0) {
        s->state |= VIGIL__S_CONN_TIMER;
        vigil_timer_start(loop, &s->timer, CLOCK_MONOTONIC, timeout_ns, 0, 0, connect_timer);
    }
    connect_start(loop, n, s, r);
    return 0;
}

void vigil__net_single_done(vigil_loop *loop, struct vigil__net *n, struct vigil__nreq *r, ssize_t res)
{
    struct vigil__sock *s = r->sock;
    if (r->kind == VIGIL__NK_CONNECT) {
        if (res == -EAGAIN && r->addr.ss_family == AF_UNIX) {
            if (!r->cancel && (s->state & VIGIL__S_OPEN)) {
                connect_retry_later(loop, s, r);
                return;
            }
            res = r->cancel == 2 ? -ETIMEDOUT : -ECANCELED; /* the retry was called off */
        }
        s->creq = NULL;
        s->state &= ~VIGIL__S_CONN_RETRY;
        if (s->state & VIGIL__S_CONN_TIMER) {
            vigil_timer_stop(loop, &s->timer);
            s->state &= ~VIGIL__S_CONN_TIMER;
        }
        /* io_uring ends a cancelled connect -ECANCELED, or -EINTR when its worker was
         * waiting in a blocking connect (an AF_UNIX backlog full, a blocking fd). */
        if (r->cancel && (res == -ECANCELED || res == -EINTR || res == -EALREADY))
            res = r->cancel == 2 ? -ETIMEDOUT : -ECANCELED;
    } else if (s->rreq == r)
        s->rreq = NULL;
    vigil__net_finish(loop, n, r, res);
}

int vigil_net_cancel(vigil_loop *loop, vigil_net_req *req)
{
    struct vigil__nreq *r = vigil__nreq(req);
    if (!loop || !r)
        return -EINVAL;
    struct vigil__net *n = net(loop);
    if (n && r->state == VIGIL__NR_DONE) {
        /* Ended already, its callback not run yet: it runs once, as it is -- but an
         * AF_UNIX connect's -EAGAIN would be retried (single_done): not after a cancel. */
        if (r->kind == VIGIL__NK_CONNECT && !r->cancel)
            r->cancel = 1;
        return 0;
    }
    if (!n || (r->state != VIGIL__NR_QUEUED && r->state != VIGIL__NR_INFLIGHT))
        return -ENOENT;
    if (r->cancel)
        return 0;
    r->cancel = 1;
    struct vigil__sock *s = r->sock;
    if (r == s->creq && (s->state & VIGIL__S_CONN_RETRY)) {
        connect_retry_cancel(loop, n, s);
        return 0;
    }
    if (r->state == VIGIL__NR_QUEUED) {
        /* Not started: off the queue, ended at the completion point. */
        struct vigil__nreq **pp = &s->sq_head, *prev = NULL;
        while (*pp != r)
            prev = *pp, pp = &(*pp)->next;
        *pp = r->next;
        if (s->sq_tail == r)
            s->sq_tail = prev;
        vigil__net_defer(loop, n, r, -ECANCELED);
        return 0;
    }
    n->eng->cancel(loop, n, s, r);
    return 0;
}

/* -------------------------------------------------------- shutdown, close */

int vigil_sock_shutdown(vigil_loop *loop, vigil_sock *ps, int how)
{
    struct vigil__net *n;
    struct vigil__sock *s;
    int e = usable(loop, ps, &n, &s);
    if (e < 0)
        return e;
    if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
        return -EINVAL;
    if (how != SHUT_WR) {
        if (s->state & VIGIL__S_RECV)
            stream_off(loop, n, s);
        s->state |= VIGIL__S_SHUT_RD;
    }
    if (how == SHUT_RD)
        return shutdown(s->fd, SHUT_RD) < 0 ? -errno : 0;
    if (s->state & VIGIL__S_SHUT_WR)
        return 0;
    s->state |= VIGIL__S_SHUT_WR;
    s->shut_how = how;
    if (s->sq_head) {
        s->state |= VIGIL__S_SHUT_DO; /* after the last queued send */
        return 0;
    }
    return shutdown(s->fd, how) < 0 ? -errno : 0;
}

static void close_finished(vigil_loop *loop, struct vigil__deferred *d)
{
    struct vigil__sock *s = (struct vigil__sock *)((char *)d - offsetof(struct vigil__sock, later));
    struct vigil__net *n = net(loop);
    open_list_del(&n->open, s);
    s->state = VIGIL__S_CLOSED;
    vigil__net_active_stop(loop);
    if (s->close_cb)
        VIGIL__NET_CALL(loop, s->close_cb(loop, vigil__sock_pub(s)));
}

void vigil__net_close_maybe(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    if (!(s->state & VIGIL__S_CLOSING) || s->ops > s->zc_notifs || s->sq_head || s->rreq || s->creq ||
        s->later.queued)
        return;
    /* No request is left, perhaps zero-copy notifications: the fd closes now. It must
     * not wait for them: the kernel may hold a zero-copy send's pages until the
     * socket's queues are freed, which closing it does (fuzz/net_fuzz.c found a close
     * that never finished: loopback TCP pairs with small buffers and unread bytes).
     * The program hears of the close once the notifications came, so that every
     * release callback runs before the close callback. */
    if (s->fd >= 0)
        vigil__fd_close(loop, s->fd); /* on epoll: its registration goes first */
    s->fd = -1;
    if (s->ops)
        return;
    s->state &= ~VIGIL__S_CLOSING;
    s->later.run = close_finished;
    vigil__defer(loop, &s->later);
}

int vigil_sock_set_close_cb(vigil_sock *ps, vigil_sock_close_cb cb)
{
    if (!ps)
        return -EINVAL;
    struct vigil__sock *s = vigil__sock(ps);
    if (!(s->state & VIGIL__S_OPEN))
        return -EBADF;
    s->on_close = cb;
    return 0;
}

int vigil_sock_close(vigil_loop *loop, vigil_sock *ps, vigil_sock_close_cb cb)
{
    if (!loop || !ps)
        return -EINVAL;
    struct vigil__net *n = net(loop);
    struct vigil__sock *s = vigil__sock(ps);
    if (!n || !(s->state & VIGIL__S_OPEN))
        return -EBADF;
    s->close_cb = cb ? cb : s->on_close; /* this call's own callback first */
    if (s->state & (VIGIL__S_RECV | VIGIL__S_ACCEPT))
        vigil__net_active_stop(loop);
    vigil__undefer(loop, &s->later);
    if (s->state & VIGIL__S_CONN_RETRY)
        connect_retry_cancel(loop, n, s);
    if (s->state & VIGIL__S_PAUSED || s->state & VIGIL__S_CONN_TIMER)
        vigil_timer_stop(loop, &s->timer);
    /* Connections held for a next start that will not come. */
    for (int fd; s->held && (fd = take_held(n, s)) >= 0;)
        close(fd);
    /* Off the list of sockets waiting for buffers: the struct may be freed once closed. */
    vigil__net_unstarve(n, s);
    s->state = (s->state & (VIGIL__S_ARMED_RX | VIGIL__S_RX_CANCEL | VIGIL__S_RECV_HELD)) | VIGIL__S_CLOSING |
               VIGIL__S_SHUT_WR | VIGIL__S_SHUT_RD; /* the engine's own flags stay: it ends what they hold */
    vigil__net_active_start(loop); /* until close_cb */
    /* Stashed bytes nobody will read go back to the pool. */
    while (s->stash_head)
        vigil__net_buf_back(loop, n, stash_pop(n, s));
    /* Sends queued behind the one performed end after it, in order (send_done). */
    /* The rest is in the engine: it cancels what it holds. */
    n->eng->close(loop, n, s);
    vigil__net_close_maybe(loop, n, s);
    return 0;
}
