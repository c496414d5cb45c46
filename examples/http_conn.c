/* The HTTP/1.1 server core of examples/http_hello.c and examples/https_hello.c (see
 * http_conn.h and http_hello.c's opening comment for what it does), written once over
 * the transport's table (struct http_io): every call that moves bytes, opens, shuts
 * down or closes is one call through srv.io; the rest is plain HTTP.
 */
#include "http_conn.h"
#include "http_parse.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BODY "Hello, world!\n"
#define BUF_SIZE 4096                       /* the pool's receive buffers */
#define IN_SIZE (HTTP_HEAD_MAX + BUF_SIZE)  /* a head, and room for one more receive */
#define OUT_SIZE 4096                       /* the answers of one send */
#define ANSWER_MAX 512                      /* room one answer needs */
#define SPARES_MAX 64                       /* struct http_work kept at least for reuse (work_put) */
#define MS 1000000LL

static int64_t header_timeout_ns = 10000 * MS, keepalive_timeout_ns = 75000 * MS,
               send_timeout_ns = 30000 * MS, linger_timeout_ns = 5000 * MS,
               shutdown_timeout_ns = 2000 * MS;

/* What a connection holds only while a request is being read or answered. */
struct http_work {
    vigil_net_req send;
    struct http_work *next_spare;
    struct http_parser hp;
    uint32_t inlen, outlen;
    char in[IN_SIZE];   /* received, not yet parsed: at most one incomplete head */
    char out[OUT_SIZE]; /* answers, sent as one */
};

enum phase { P_REQUEST, P_IDLE, P_SEND, P_LINGER }; /* which timeout runs */

/* The open connections, by phase. A phase has one timeout, so a connection that
 * enters one goes to the tail of its list and every list stays in deadline order; one
 * timer per phase fires at its list's first deadline (or earlier, when that connection
 * moved on: then it is started again for the new first). No timer operation per
 * request, no timer struct per connection. */
struct timeouts {
    struct http_conn *head, *tail;
    vigil_timer timer;
    int64_t *timeout_ns;
};
static struct timeouts phases[] = {
    [P_REQUEST] = {.timeout_ns = &header_timeout_ns},
    [P_IDLE] = {.timeout_ns = &keepalive_timeout_ns},
    [P_SEND] = {.timeout_ns = &send_timeout_ns},
    [P_LINGER] = {.timeout_ns = &linger_timeout_ns},
};

static struct {
    const struct http_io *io;
    vigil_loop *loop;
    vigil_sock listener;
    vigil_timer deadline;     /* the shutdown's */
    struct http_work *spares;
    unsigned nconns, nspares, nworks, nsending;
    unsigned works_peak, works_keep; /* work_put's high-water marks */
    bool stopping;
    unsigned long long requests, rejected, timeouts[4];
} srv;

/* ------------------------------------------------------------ the answer */

/* The date, formatted once a second, as nginx caches it; with it the whole 200 answer
 * in both its forms (keep-alive, close): a request's answer is then one copy, not a
 * printf of six fields (which was some 40% of the server's own instructions per
 * request under wrk). */
static struct {
    time_t at;
    char date[40];
    char ok[2][ANSWER_MAX]; /* [keep] */
    int oklen[2];
} cache = {.at = -1};

static void works_tick(void);

static void cache_update(void)
{
    time_t now = time(NULL);
    if (now == cache.at)
        return;
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(cache.date, sizeof cache.date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    for (int keep = 0; keep < 2; keep++)
        cache.oklen[keep] = snprintf(cache.ok[keep], ANSWER_MAX,
                                     "HTTP/1.1 200 OK\r\nServer: vigil\r\nDate: %s\r\nContent-Type: text/plain\r\n"
                                     "Content-Length: %zu\r\nConnection: %s\r\n\r\n" BODY,
                                     cache.date, sizeof BODY - 1, keep ? "keep-alive" : "close");
    cache.at = now;
    works_tick();
}

static void add_answer(struct http_work *w, int status, bool keep)
{
    char *p = w->out + w->outlen;
    int n;
    cache_update();
    if (status == 200) {
        n = cache.oklen[keep];
        memcpy(p, cache.ok[keep], (size_t)n);
    } else {
        const char *reason = status == 400 ? "Bad Request"
                             : status == 431 ? "Request Header Fields Too Large"
                                             : "Not Implemented";
        char body[256];
        int blen = snprintf(body, sizeof body,
                            "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n"
                            "<center><h1>%d %s</h1></center>\r\n</body>\r\n</html>\r\n",
                            status, reason, status, reason);
        n = snprintf(p, ANSWER_MAX,
                     "HTTP/1.1 %d %s\r\nServer: vigil\r\nDate: %s\r\nContent-Type: text/html\r\n"
                     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
                     status, reason, cache.date, blen, body);
    }
    w->outlen += (uint32_t)n;
}

/* Answers the complete requests in in[] while out[] has room; keeps what is left of
 * an incomplete one. After a last request (or a rejected one) nothing more is read. */
static void answer(struct http_conn *c)
{
    struct http_work *w = c->w;
    size_t pos = 0;
    /* http_parse takes nothing from no bytes: not called then (two calls of three a
     * request under wrk, one from the receive and one from the send's end) */
    while (!c->closing && pos < w->inlen && w->outlen + ANSWER_MAX <= OUT_SIZE) {
        size_t used = 0;
        int r = http_parse(&w->hp, w->in + pos, w->inlen - pos, &used);
        pos += used;
        if (r == HTTP_MORE)
            break;
        bool keep = r == HTTP_DONE && w->hp.keep_alive;
        add_answer(w, r == HTTP_DONE ? 200 : r, keep);
        c->closing = !keep;
        if (r == HTTP_DONE)
            srv.requests++;
        else
            srv.rejected++;
    }
    if (c->closing)
        pos = w->inlen;
    memmove(w->in, w->in + pos, w->inlen - pos);
    w->inlen -= (uint32_t)pos;
}

/* --------------------------------------------------- spares of struct http_work */

static struct http_work *work_get(void)
{
    struct http_work *w = srv.spares;
    if (w) { /* its send request ended: it may be started again as it is */
        srv.spares = w->next_spare;
        srv.nspares--;
    } else if ((w = malloc(sizeof *w)) != NULL) {
        memset(&w->send, 0, sizeof w->send);
    } else {
        return NULL;
    }
    w->hp = (struct http_parser){0};
    w->inlen = w->outlen = 0; /* in[] and out[] are written before they are read */
    if (++srv.nworks > srv.works_peak)
        srv.works_peak = srv.nworks;
    return w;
}

/* Frees the spares beyond the mark (at least SPARES_MAX are kept). */
static void spares_trim(void)
{
    unsigned keep = srv.works_keep > srv.works_peak ? srv.works_keep : srv.works_peak;
    while (srv.spares && srv.nspares > SPARES_MAX && srv.nspares + srv.nworks > keep) {
        struct http_work *w = srv.spares;
        srv.spares = w->next_spare;
        srv.nspares--;
        free(w);
    }
}

/* Once a second while answering (cache_update): the peak of the second that ended
 * becomes the mark work_put keeps spares to, and what is beyond it is freed. */
static void works_tick(void)
{
    srv.works_keep = srv.works_peak;
    srv.works_peak = srv.nworks;
    spares_trim();
}

static void work_put(struct http_work *w)
{
    srv.nworks--;
    /* Spares are kept while those in use and the spares together stay within the most
     * that were in use at once in this second or the one before (at least SPARES_MAX):
     * under a steady load every request then finds one. Freed memory would otherwise go
     * back to the system and be faulted in afresh: with 1000 busy connections on
     * io_uring a turn takes up to a thousand at once and gives them all back the next,
     * and keeping only as many as were still in use at each put (the rule before) freed
     * half of every such wave: 0.32 page faults and some 220 instructions of malloc and
     * free a request (perf stat, callgrind). As the load falls, what is beyond the mark
     * of the last two seconds is freed (works_tick); once nothing has been answered for
     * two seconds, the next expiry of a phase timer frees the rest beyond SPARES_MAX
     * (on_timeout). */
    unsigned keep = srv.works_keep > srv.works_peak ? srv.works_keep : srv.works_peak;
    if (srv.nspares + srv.nworks >= keep && srv.nspares >= SPARES_MAX) {
        free(w);
        return;
    }
    w->next_spare = srv.spares;
    srv.spares = w;
    srv.nspares++;
}

/* ------------------------------------------------------- the connection */

static void close_conn(vigil_loop *loop, struct http_conn *c);

static void unlink_conn(struct http_conn *c)
{
    struct timeouts *ph = &phases[c->phase];
    if (!c->prev && ph->head != c)
        return; /* in no list */
    *(c->prev ? &c->prev->next : &ph->head) = c->next;
    *(c->next ? &c->next->prev : &ph->tail) = c->prev;
    c->prev = c->next = NULL;
}

static void on_timeout(vigil_loop *loop, vigil_timer *t)
{
    struct timeouts *ph = (struct timeouts *)((char *)t - offsetof(struct timeouts, timer));
    int64_t now = vigil_loop_now(loop);
    if (time(NULL) - cache.at >= 2) { /* nothing answered for two seconds: no mark holds */
        srv.works_keep = srv.works_peak = srv.nworks;
        spares_trim();
    }
    while (ph->head && ph->head->deadline_ns <= now) {
        srv.timeouts[ph - phases]++;
        close_conn(loop, ph->head);
    }
    if (ph->head) /* the timer was just taken off the heap: starting it cannot fail */
        vigil_timer_start(loop, t, CLOCK_MONOTONIC, ph->head->deadline_ns - now, 0, 0, on_timeout);
}

/* Moves c to the tail of a phase's list: its timeout starts now. */
static void set_timeout(vigil_loop *loop, struct http_conn *c, enum phase p)
{
    unlink_conn(c);
    struct timeouts *ph = &phases[p];
    c->phase = (uint8_t)p;
    c->deadline_ns = vigil_loop_now(loop) + *ph->timeout_ns;
    c->prev = ph->tail;
    *(ph->tail ? &ph->tail->next : &ph->head) = c;
    ph->tail = c;
    if (!vigil_timer_active(&ph->timer) &&
        vigil_timer_start(loop, &ph->timer, CLOCK_MONOTONIC, *ph->timeout_ns, 0, 0, on_timeout) < 0)
        close_conn(loop, c);
}

void http_conn_closed(vigil_loop *loop, struct http_conn *c)
{
    if (c->w) /* every request has ended: the send's too */
        work_put(c->w);
    free(c);
    if (--srv.nconns == 0 && srv.stopping)
        vigil_loop_stop(loop);
}

static void close_conn(vigil_loop *loop, struct http_conn *c)
{
    if (c->closed)
        return;
    c->closed = true;
    unlink_conn(c);
    srv.io->close(loop, c);
}

static void send_out(vigil_loop *loop, struct http_conn *c)
{
    struct http_work *w = c->w;
    if (srv.io->send(loop, c, &w->send, w->out, w->outlen) < 0) {
        close_conn(loop, c);
        return;
    }
    c->sending = true;
    srv.nsending++;
    set_timeout(loop, c, P_SEND);
}

/* After anything happened: answer what can be answered, give back what is no longer
 * needed, shut down or close when done, receive when there is room, time the rest. */
static void update(vigil_loop *loop, struct http_conn *c)
{
    if (!c->ready) { /* the handshake runs; the shutdown closes such connections */
        if (c->closing)
            close_conn(loop, c);
        return;
    }
    if (c->w && !c->sending) {
        answer(c);
        if (c->w->outlen)
            send_out(loop, c);
        if (c->closed)
            return;
    }
    if (!c->sending) {
        struct http_work *w = c->w;
        if (w && (c->closing || (!w->inlen && http_between(&w->hp)))) {
            work_put(w);
            c->w = NULL;
        }
        if (c->eof) { /* everything read is answered: nothing more will come */
            close_conn(loop, c);
            return;
        }
        if (c->closing && !c->shut) {
            c->shut = true;
            srv.io->shutdown(loop, c);
            set_timeout(loop, c, P_LINGER);
        }
    }
    bool want = !c->eof && (c->shut || (!c->closing && (!c->w || IN_SIZE - c->w->inlen >= BUF_SIZE)));
    if (want && !c->receiving) {
        if (srv.io->recv_start(loop, c) < 0) {
            close_conn(loop, c);
            return;
        }
        c->receiving = true;
    } else if (!want && c->receiving) {
        srv.io->recv_stop(loop, c);
        c->receiving = false;
    }
    if (c->shut || c->sending || c->closed)
        return; /* those phases' timeouts started with them */
    if (c->w && c->phase != P_REQUEST)
        set_timeout(loop, c, P_REQUEST);
    else if (!c->w && c->phase != P_IDLE)
        set_timeout(loop, c, P_IDLE);
}

void http_conn_sent(vigil_loop *loop, struct http_conn *c, ssize_t res)
{
    c->sending = false;
    srv.nsending--;
    c->w->outlen = 0;
    if (c->closed)
        return; /* http_conn_closed gives the work back */
    if (res < 0) { /* the peer went away: no receive buffer is held, nothing to give back */
        close_conn(loop, c);
        return;
    }
    update(loop, c);
}

void http_conn_data(vigil_loop *loop, struct http_conn *c, ssize_t n, vigil_buf *buf)
{
    if (n <= 0) { /* the stream has stopped: the peer's end (0, TLS: its close_notify) or
                   * an error (TLS: VIGIL_TLS_E_TRUNCATED, a FIN without close_notify) */
        c->receiving = false;
        c->eof = true;
        if (n < 0 || c->shut) /* reset: nobody to answer; lingering: the peer is done */
            close_conn(loop, c);
        else
            update(loop, c);
        return;
    }
    if (c->shut || c->closing) { /* after the last answer: drop what still comes */
        vigil_buf_put(loop, buf);
        return;
    }
    if (!c->w && !(c->w = work_get())) {
        vigil_buf_put(loop, buf);
        close_conn(loop, c);
        return;
    }
    struct http_work *w = c->w;
    if ((size_t)n > IN_SIZE - w->inlen) { /* receiving runs only with BUF_SIZE room */
        vigil_buf_put(loop, buf);
        close_conn(loop, c);
        return;
    }
    memcpy(w->in + w->inlen, buf->data, (size_t)n);
    w->inlen += (uint32_t)n;
    vigil_buf_put(loop, buf);
    update(loop, c);
}

static void on_accept(vigil_loop *loop, vigil_sock *listener, int fd)
{
    (void)listener;
    if (fd < 0) {
        fprintf(stderr, "accept: %s\n", strerror(-fd));
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct http_conn *c = calloc(1, srv.io->conn_size);
    if (!c || srv.io->open(loop, c, fd) < 0) {
        free(c);
        close(fd);
        return;
    }
    srv.nconns++;
    set_timeout(loop, c, P_REQUEST); /* the first request's (and the handshake's) */
    if (!c->ready) {
        if (srv.io->handshake(loop, c) < 0)
            close_conn(loop, c);
    } else if (srv.io->recv_start(loop, c) == 0) {
        c->receiving = true;
    } else {
        close_conn(loop, c);
    }
}

void http_conn_ready(vigil_loop *loop, struct http_conn *c, int res)
{
    if (c->closed)
        return; /* closed while shaking hands (a timeout, the shutdown) */
    if (res < 0) { /* a bad client, a plain-HTTP one (VIGIL_TLS_E_PLAIN_HTTP), a timeout */
        close_conn(loop, c);
        return;
    }
    c->ready = true;
    update(loop, c);
}

/* ------------------------------------------------------------ the process */

static void close_all(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    for (int p = 0; p < 4; p++) {
        while (phases[p].head)
            close_conn(loop, phases[p].head);
        vigil_timer_stop(loop, &phases[p].timer);
    }
}

/* SIGTERM, SIGINT: the graceful shutdown (a second signal closes everything now). */
static void on_stop(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w, (void)si;
    if (srv.stopping) {
        close_all(loop, NULL);
        return;
    }
    srv.stopping = true;
    vigil_sock_close(loop, &srv.listener, NULL);
    while (phases[P_IDLE].head) /* nothing in flight */
        close_conn(loop, phases[P_IDLE].head);
    /* The others finish what is being sent and read nothing more: they stay in
     * P_SEND, or move on to P_LINGER (a list not walked here), or close. */
    static const enum phase busy[] = {P_REQUEST, P_SEND};
    for (int i = 0; i < 2; i++) {
        for (struct http_conn *c = phases[busy[i]].head, *next; c; c = next) {
            next = c->next;
            c->closing = true;
            update(loop, c);
        }
    }
    if (srv.nconns == 0 || vigil_timer_start(loop, &srv.deadline, CLOCK_MONOTONIC, shutdown_timeout_ns, 0, 0,
                                             close_all) < 0)
        close_all(loop, NULL);
    if (srv.nconns == 0)
        vigil_loop_stop(loop);
}

static void on_stats(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w, (void)si;
    printf("stats conns=%u sending=%u works=%u spares=%u bufs_lent=%u requests=%llu rejected=%llu "
           "timeouts_request=%llu timeouts_idle=%llu timeouts_send=%llu timeouts_linger=%llu\n",
           srv.nconns, srv.nsending, srv.nworks, srv.nspares, vigil_net_bufs_lent(loop), srv.requests,
           srv.rejected, srv.timeouts[P_REQUEST], srv.timeouts[P_IDLE], srv.timeouts[P_SEND],
           srv.timeouts[P_LINGER]);
    fflush(stdout);
}

bool http_timeout_option(int o, const char *arg)
{
    int64_t *t;
    switch (o) {
    case 'h': t = &header_timeout_ns; break;
    case 'k': t = &keepalive_timeout_ns; break;
    case 's': t = &send_timeout_ns; break;
    case 'l': t = &linger_timeout_ns; break;
    case 'S': t = &shutdown_timeout_ns; break;
    default: return false;
    }
    *t = atoll(arg) * MS;
    return true;
}

int http_serve(const struct http_io *io, const char *where)
{
    /* A port alone listens on 127.0.0.1; any other argument is an address as
     * vigil_net_listen(3) reads it ("[::1]:8080", "/run/hello.sock", "@hello"). */
    char addr[64];
    if (strspn(where, "0123456789") == strlen(where)) {
        snprintf(addr, sizeof addr, "127.0.0.1:%s", where);
        where = addr;
    }
    int lfd = vigil_net_listen(where, 4096, 0);
    if (lfd < 0) {
        fprintf(stderr, "listen %s: %s\n", where, strerror(-lfd));
        return 1;
    }
    int r = vigil_loop_new(&srv.loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    srv.io = io;
    vigil_loop *loop = srv.loop;
    struct vigil_net_options no;
    vigil_net_options_init(&no);
    no.buf_size = BUF_SIZE;
    vigil_signal sigint = {0}, sigterm = {0}, sigusr1 = {0};
    if ((r = vigil_net_setup(loop, &no)) < 0 || (r = vigil_sock_open(loop, &srv.listener, lfd)) < 0 ||
        (r = vigil_sock_accept_start(loop, &srv.listener, on_accept)) < 0 ||
        (r = vigil_signal_start(loop, &sigint, SIGINT, on_stop)) < 0 ||
        (r = vigil_signal_start(loop, &sigterm, SIGTERM, on_stop)) < 0 ||
        (r = vigil_signal_start(loop, &sigusr1, SIGUSR1, on_stats)) < 0) {
        fprintf(stderr, "setup: %s\n", strerror(-r));
        return 1;
    }
    fprintf(stderr, "%s on %s, backend %s\n", io->scheme, where, vigil_loop_backend(loop));
    printf("ready\n");
    fflush(stdout);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT); /* until the shutdown closed every connection */
    vigil_loop_free(loop);
    while (srv.spares) {
        struct http_work *w = srv.spares;
        srv.spares = w->next_spare;
        free(w);
    }
    return 0;
}
