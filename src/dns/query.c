/* src/dns/query.c: the query engine. One question (name, type) at a time per struct
 * dns_q: sent over UDP to one server, its timer started; the answer matched on (socket,
 * id), then on the sender's address and port, then on the question it repeats; a
 * truncated answer asked again over TCP to the same server; a timeout or a SERVFAIL,
 * REFUSED, NOTIMP or FORMERR answer moves to the next server, for `attempts` rounds.
 *
 * Sockets. UDP sockets are opened unbound and unconnected (the kernel binds each to a
 * random ephemeral port at its first send), one per family taking new questions; each
 * carries at most r->udp_max questions in its lifetime (each question a slot of its own,
 * its id from getrandom() and unique among the socket's questions in flight), then it is
 * retired: closed once its last question left. Unconnected, so that a reply from another
 * address reaches vigil, is counted and dropped, instead of vanishing in the kernel. A
 * resolver's idle sockets do not keep vigil_loop_run alive: their receive stream's count
 * in loop->active is given back when it starts, taken again before the close.
 *
 * May call: <vigil/net.h>, timers, the loop's active count; resolver.c's
 * vigil__dns_q_done when a question ends.
 */
#include "dns/dns_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint16_t vigil__dns_random16(struct vigil_resolver *r)
{
    if (r->rnd_left < 2) {
        ssize_t n = getrandom(r->rnd, sizeof r->rnd, GRND_NONBLOCK);
        if (n < (ssize_t)sizeof r->rnd) {
            /* No entropy yet (early boot): ids from the clock, not silently constant. */
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
            for (size_t i = 0; i < sizeof r->rnd; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                r->rnd[i] = (uint8_t)x;
            }
        }
        r->rnd_left = (int)sizeof r->rnd;
    }
    r->rnd_left -= 2;
    return (uint16_t)(r->rnd[r->rnd_left] << 8 | r->rnd[r->rnd_left + 1]);
}

static socklen_t addr_len(const union vigil_dns_addr *a)
{
    return a->sa.sa_family == AF_INET ? sizeof a->in : sizeof a->in6;
}

static bool same_addr(const union vigil_dns_addr *a, const struct sockaddr *b, socklen_t bl)
{
    if (a->sa.sa_family != b->sa_family)
        return false;
    if (a->sa.sa_family == AF_INET) {
        const struct sockaddr_in *x = (const struct sockaddr_in *)(const void *)b;
        return bl >= sizeof *x && x->sin_port == a->in.sin_port && x->sin_addr.s_addr == a->in.sin_addr.s_addr;
    }
    const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)(const void *)b;
    return bl >= sizeof *x && x->sin6_port == a->in6.sin6_port &&
           memcmp(&x->sin6_addr, &a->in6.sin6_addr, 16) == 0;
}

/* ------------------------------------------------------------ UDP sockets */

static void udp_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    free(s->data); /* the struct dns_udp; its resolver may be gone */
}

static void udp_close(vigil_loop *loop, struct dns_udp *u)
{
    if (u->closing)
        return;
    u->closing = true;
    struct vigil_resolver *r = u->r;
    if (r) {
        udp_list_del(&r->udps, u);
        for (int k = 0; k < 2; k++)
            if (r->cur[k] == u)
                r->cur[k] = NULL;
    }
    u->r = NULL;
    if (u->rx_on)
        loop->active++; /* the receive stream's count, given back at its start */
    u->rx_on = false;
    vigil_sock_close(loop, &u->s, udp_closed);
}

void vigil__dns_udp_close_all(struct vigil_resolver *r)
{
    while (r->udps)
        udp_close(r->loop, r->udps);
}

static void udp_recv(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf, const struct sockaddr *from,
                     socklen_t fromlen);

static struct dns_udp *udp_get(struct vigil_resolver *r, int family)
{
    int k = family == AF_INET ? 0 : 1;
    struct dns_udp *u = r->cur[k];
    if (u && u->used < u->nslot)
        return u;
    if (u) {
        u->retired = true;
        r->cur[k] = NULL;
        if (u->inflight == 0)
            udp_close(r->loop, u);
    }
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    u = calloc(1, sizeof *u + r->udp_max * sizeof u->q[0]);
    if (!u) {
        close(fd);
        return NULL;
    }
    u->nslot = r->udp_max;
    u->family = family;
    u->s.data = u;
    if (vigil_sock_open(r->loop, &u->s, fd) < 0) {
        close(fd);
        free(u);
        return NULL;
    }
    vigil_sock_set_close_cb(&u->s, udp_closed);
    u->r = r;
    udp_list_add(&r->udps, u);
    if (vigil_sock_recvfrom_start(r->loop, &u->s, udp_recv) < 0) {
        u->closing = true; /* not receiving: no active count to take back */
        udp_list_del(&r->udps, u);
        vigil_sock_close(r->loop, &u->s, udp_closed);
        return NULL;
    }
    r->loop->active--; /* an idle resolver does not keep the loop running */
    u->rx_on = true;
    r->cur[k] = u;
    r->stats.udp_sockets++;
    return u;
}

/* The question leaves its socket's slot (answered, timed out, or ended). */
static void slot_leave(struct vigil_resolver *r, struct dns_q *q)
{
    struct dns_udp *u = q->udp;
    if (!u)
        return;
    q->udp = NULL;
    if (u->q[q->slot] == q) {
        u->q[q->slot] = NULL;
        u->inflight--;
        r->udp_out--;
    }
    if (u->retired && u->inflight == 0 && r->loop)
        udp_close(r->loop, u);
}

/* ------------------------------------------------------------ TCP */

static void tcp_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    free(s->data);
}

static void tcp_leave(struct vigil_resolver *r, struct dns_q *q)
{
    struct dns_tcp *t = q->tcp;
    if (!t)
        return;
    q->tcp = NULL;
    t->q = NULL;
    if (r->loop)
        vigil_sock_close(r->loop, &t->s, tcp_closed);
}

/* ------------------------------------------------------------ a try */

static void try_next(struct vigil_resolver *r, struct dns_q *q, int err);
static void q_timeout(vigil_loop *loop, vigil_timer *t);

static void q_finish(struct vigil_resolver *r, struct dns_q *q, int status)
{
    if (q->timing) {
        vigil_timer_stop(r->loop, &q->timer);
        q->timing = false;
    }
    slot_leave(r, q);
    tcp_leave(r, q);
    q->done = true;
    q->status = status;
    vigil__dns_q_done(r, q);
}

static int64_t try_timeout_ns(const struct dns_conf *c, int pos)
{
    /* glibc's send_dg: the first server waits `timeout`, the one at position pos of the
     * round (timeout << pos) / nservers, at least a second. */
    int64_t s = c->timeout_s;
    if (pos > 0) {
        s = ((int64_t)c->timeout_s << pos) / c->nns;
        if (s <= 0)
            s = 1;
    }
    return s * 1000000000LL;
}

static void q_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res);

static int send_udp(struct vigil_resolver *r, struct dns_q *q)
{
    const union vigil_dns_addr *ns = &q->ns;
    struct dns_udp *u = udp_get(r, ns->sa.sa_family);
    if (!u)
        return -ENOMEM;
    /* An id unique among the socket's questions in flight. */
    uint16_t id;
    for (;;) {
        id = vigil__dns_random16(r);
        uint32_t i;
        for (i = 0; i < u->used; i++)
            if (u->q[i] && u->q[i]->id == id)
                break;
        if (i == u->used)
            break;
    }
    q->id = id;
    q->pkt[0] = (uint8_t)(id >> 8);
    q->pkt[1] = (uint8_t)id;
    q->udp = u;
    q->slot = (int)u->used++;
    u->q[q->slot] = q;
    u->inflight++;
    r->udp_out++;
    r->stats.queries_sent++;
    if (q->sending) {
        q->resend = true; /* the previous try's send has not completed yet */
    } else {
        int e = vigil_sock_sendto(r->loop, &u->s, &q->sreq, q->pkt, (size_t)q->pktlen, &ns->sa, addr_len(ns),
                                  q_sent);
        if (e < 0) {
            slot_leave(r, q);
            return e;
        }
        q->sending = true;
        q->send_udp = u;
    }
    return 0;
}

static void wait_unlink(struct vigil_resolver *r, struct dns_q *q)
{
    if (!q->waiting)
        return;
    q->waiting = false;
    *q->wait_prev = q->wait_next;
    if (q->wait_next)
        q->wait_next->wait_prev = q->wait_prev;
    else
        r->wait_tail = q->wait_prev;
}

static void start_try(struct vigil_resolver *r, struct dns_q *q);

/* Starts waiting questions while the window has room. Called where a question left
 * its slot, outside any walk of a socket's slots. */
void vigil__dns_pump(struct vigil_resolver *r)
{
    while (r->wait_head && r->udp_out < DNS_WINDOW && r->loop) {
        struct dns_q *q = r->wait_head;
        wait_unlink(r, q);
        start_try(r, q);
    }
}

static void start_try(struct vigil_resolver *r, struct dns_q *q)
{
    const struct dns_conf *c = &r->conf;
    if (r->udp_out >= DNS_WINDOW) {
        q->waiting = true;
        q->wait_next = NULL;
        q->wait_prev = r->wait_tail;
        *r->wait_tail = q;
        r->wait_tail = &q->wait_next;
        return;
    }
    int pos = q->tries % c->nns;
    q->server = (q->lk->start_ns + pos) % c->nns;
    q->ns = c->ns[q->server]; /* kept: a reread configuration does not move a try */
    int e = send_udp(r, q);
    if (e < 0) {
        try_next(r, q, e);
        return;
    }
    vigil_timer_start(r->loop, &q->timer, CLOCK_MONOTONIC, try_timeout_ns(c, pos), 0, 0, q_timeout);
    q->timing = true;
}

/* The current try failed with err (a server's rcode as VIGIL_DNS_E*, -ETIMEDOUT, an
 * errno): the next server, or the end. */
static void try_next(struct vigil_resolver *r, struct dns_q *q, int err)
{
    if (q->timing) {
        vigil_timer_stop(r->loop, &q->timer);
        q->timing = false;
    }
    slot_leave(r, q);
    tcp_leave(r, q);
    /* Keep the most telling failure: an answer beats a timeout, a timeout an errno. */
    if (q->last_err == 0 || (q->last_err == -ETIMEDOUT && err <= -10000) || (q->last_err > -10000 && err <= -10000))
        q->last_err = err;
    if (++q->tries >= r->conf.nns * r->conf.attempts) {
        q_finish(r, q, q->last_err);
        return;
    }
    start_try(r, q);
}

static void q_timeout(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    struct dns_q *q = t->data;
    q->timing = false;
    struct vigil_resolver *r = q->r;
    r->stats.timeouts++;
    try_next(r, q, -ETIMEDOUT);
    vigil__dns_pump(r);
}

static void q_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct dns_q *q = req->data;
    q->sending = false;
    if (!q->lk) {
        free(q); /* orphaned: its lookup ended while this send was in flight */
        return;
    }
    struct vigil_resolver *r = q->r;
    if (q->resend) {
        q->resend = false;
        struct dns_udp *u = q->udp;
        if (!u || q->done)
            return;
        const union vigil_dns_addr *ns = &q->ns;
        int e = vigil_sock_sendto(loop, &u->s, &q->sreq, q->pkt, (size_t)q->pktlen, &ns->sa, addr_len(ns), q_sent);
        if (e < 0) {
            try_next(r, q, e);
            return;
        }
        q->sending = true;
        q->send_udp = u;
        return;
    }
    if (res < 0 && res != -ECANCELED && !q->done && q->udp && q->send_udp == q->udp)
        try_next(r, q, (int)res); /* e.g. -ENETUNREACH: this server cannot be reached */
}

/* An answer for q: decoded into q->ans. */
static void answered(struct vigil_resolver *r, struct dns_q *q)
{
    switch (q->ans.rcode) {
    case DNS_R_NOERROR:
    case DNS_R_NXDOMAIN:
        q_finish(r, q, 0);
        return;
    case DNS_R_SERVFAIL:
        try_next(r, q, VIGIL_DNS_ESERVFAIL);
        return;
    default:
        try_next(r, q, VIGIL_DNS_EREFUSED);
        return;
    }
}

static void tcp_start(struct vigil_resolver *r, struct dns_q *q);

static void udp_recv(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf, const struct sockaddr *from,
                     socklen_t fromlen)
{
    struct dns_udp *u = s->data;
    struct vigil_resolver *r = u->r;
    if (res < 0 || !buf) {
        if (res < 0 && res != -EMSGSIZE && u->rx_on) {
            /* The stream stopped (an error other than a too-big datagram): its count in
             * loop->active went with it; retire the socket, its questions time out. */
            u->rx_on = false;
            loop->active++;
        }
        if (res < 0 && res != -EMSGSIZE && r && !u->closing) {
            u->retired = true;
            for (int k = 0; k < 2; k++)
                if (r->cur[k] == u)
                    r->cur[k] = NULL;
        }
        return;
    }
    if (!r) {
        vigil_buf_put(loop, buf);
        return;
    }
    const uint8_t *m = (const uint8_t *)buf->data;
    size_t len = (size_t)res;
    struct dns_q *q = NULL;
    if (len >= 12) {
        uint16_t id = (uint16_t)(m[0] << 8 | m[1]);
        for (uint32_t i = 0; i < u->used; i++)
            if (u->q[i] && u->q[i]->id == id) {
                q = u->q[i];
                break;
            }
    }
    if (!q) {
        r->stats.dropped++;
        if (len < 12)
            r->stats.dropped_malformed++;
        else
            r->stats.dropped_id++;
        vigil_buf_put(loop, buf);
        return;
    }
    if (!same_addr(&q->ns, from, fromlen)) {
        r->stats.dropped++;
        r->stats.dropped_addr++;
        vigil_buf_put(loop, buf);
        return;
    }
    int e = vigil__dns_parse(m, len, q->lk->cur, q->qtype, &q->ans);
    vigil_buf_put(loop, buf);
    if (e != DNS_PARSE_OK) {
        r->stats.dropped++;
        if (e == DNS_PARSE_QUESTION)
            r->stats.dropped_question++;
        else
            r->stats.dropped_malformed++;
        return; /* keep waiting: a forged or broken reply does not end the try */
    }
    if (q->ans.tc) {
        slot_leave(r, q);
        tcp_start(r, q);
    } else {
        answered(r, q);
    }
    vigil__dns_pump(r);
}

/* ------------------------------------------------------------ TCP retry */

static void tcp_got(vigil_loop *loop, vigil_net_req *req, ssize_t res);

static void tcp_fail(struct dns_tcp *t, int err)
{
    struct dns_q *q = t->q;
    if (!q)
        return;
    try_next(q->r, q, err);
}

static void tcp_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    (void)loop;
    struct dns_tcp *t = req->data;
    if (res < 0)
        tcp_fail(t, (int)res);
}

static void tcp_recv_more(vigil_loop *loop, struct dns_tcp *t)
{
    int e = vigil_sock_recv(loop, &t->s, &t->rreq, t->buf + t->got, sizeof t->buf - t->got, tcp_got);
    if (e < 0)
        tcp_fail(t, e);
}

static void tcp_got(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct dns_tcp *t = req->data;
    struct dns_q *q = t->q;
    if (!q)
        return;
    if (res <= 0) {
        tcp_fail(t, res == 0 ? -ECONNRESET : (int)res);
        return;
    }
    t->got += (uint32_t)res;
    /* The 2-byte length first, then the message it announces. */
    uint32_t need = t->got < 2 ? 2u : 2u + (uint32_t)(t->buf[0] << 8 | t->buf[1]);
    if (t->got < need) {
        tcp_recv_more(loop, t);
        return;
    }
    struct vigil_resolver *r = q->r;
    const uint8_t *m = t->buf + 2;
    size_t len = need - 2;
    int e = len >= 12 && (uint16_t)(m[0] << 8 | m[1]) == q->id ? vigil__dns_parse(m, len, q->lk->cur, q->qtype, &q->ans)
                                                               : DNS_PARSE_QUESTION;
    if (e != DNS_PARSE_OK || q->ans.tc) {
        r->stats.dropped++;
        if (e == DNS_PARSE_MALFORMED)
            r->stats.dropped_malformed++;
        else
            r->stats.dropped_question++;
        try_next(r, q, VIGIL_DNS_EBADRESP);
        return;
    }
    tcp_leave(r, q);
    answered(r, q);
}

static void tcp_connected(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct dns_tcp *t = req->data;
    struct dns_q *q = t->q;
    if (!q)
        return;
    if (res < 0) {
        tcp_fail(t, (int)res);
        return;
    }
    t->hdr[0] = (uint8_t)(q->pktlen >> 8);
    t->hdr[1] = (uint8_t)q->pktlen;
    t->iov[0].iov_base = t->hdr;
    t->iov[0].iov_len = 2;
    t->iov[1].iov_base = q->pkt;
    t->iov[1].iov_len = (size_t)q->pktlen;
    int e = vigil_sock_sendv(loop, &t->s, &t->sreq, t->iov, 2, tcp_sent);
    if (e < 0) {
        tcp_fail(t, e);
        return;
    }
    t->got = 0;
    tcp_recv_more(loop, t);
}

static void tcp_start(struct vigil_resolver *r, struct dns_q *q)
{
    const union vigil_dns_addr *ns = &q->ns;
    r->stats.tcp_queries++;
    struct dns_tcp *t = calloc(1, sizeof *t);
    int fd = t ? socket(ns->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) : -1;
    if (fd < 0 || vigil_sock_open(r->loop, &t->s, fd) < 0) {
        if (fd >= 0)
            close(fd);
        free(t);
        try_next(r, q, -ENOMEM);
        return;
    }
    t->s.data = t;
    t->creq.data = t->sreq.data = t->rreq.data = t;
    vigil_sock_set_close_cb(&t->s, tcp_closed);
    t->q = q;
    q->tcp = t;
    /* The pending send's packet (q->pkt) is what goes out again: same id, same question. */
    int e = vigil_sock_connect(r->loop, &t->s, &t->creq, &ns->sa, addr_len(ns), 0, tcp_connected);
    if (e < 0)
        try_next(r, q, e);
}

/* ------------------------------------------------------------ the calls */

int vigil__dns_q_start(struct vigil_resolver *r, struct dns_q *q)
{
    q->done = false;
    q->tries = 0;
    q->last_err = 0;
    q->status = 0;
    q->r = r;
    q->timer.data = q;
    q->sreq.data = q;
    int n = vigil__dns_encode_query(q->pkt, sizeof q->pkt, 0, q->lk->cur, q->qtype);
    if (n < 0)
        return n;
    q->pktlen = n;
    start_try(r, q);
    return 0;
}

void vigil__dns_q_stop(struct vigil_resolver *r, struct dns_q *q)
{
    wait_unlink(r, q);
    if (q->timing) {
        if (r->loop)
            vigil_timer_stop(r->loop, &q->timer);
        q->timing = false;
    }
    slot_leave(r, q);
    tcp_leave(r, q);
    q->done = true;
    /* Room in the window for a waiting question: started at the completion point
     * (resolver.c's run_later), not inside the lookup's end that called this. */
    if (r->wait_head && r->loop && !r->shutting)
        vigil__defer(r->loop, &r->later);
}
