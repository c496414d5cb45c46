/* hs_client: the https-hello handshake run's client. N connections at once to
 * 127.0.0.1:PORT, each making one TLS 1.3 handshake (OpenSSL), one HTTP/1.1 GET, reading
 * the whole response, then sending close_notify and closing (SO_LINGER 0: no TIME_WAIT,
 * so thousands of connections a second never run out of ports), and at once a new
 * connection in its place. With --resume every connection offers the newest session
 * ticket received from its server (TLS 1.3 resumption, PSK with ECDHE; one connection
 * made before the measured run gets the first ticket).
 *
 *   hs_client --port P [--port P2 ...] --conns N --seconds S [--slice D] [--warmup W]
 *             [--resume] [--ciphersuite NAME]
 *
 * Several servers (one --port each, at most 4) are measured in the same run, taking
 * turns: slices of about D seconds (0.5), port after port in the order given, until each
 * has had S seconds. A slice opens N connections to its port and replaces each one that
 * ends while the slice lasts; at its end no new connection is opened and the slice
 * waits until those open have ended (at most 5 s, then they are closed as failed). So a
 * port's handshakes, wall time and this client's CPU time are all its own, none spills
 * into another's slice, and a disturbance of the shared machine that lasts a second or
 * more falls on every server alike. Before the measured slices, one unmeasured slice of
 * W seconds (0.2) per port warms each server and the client (0: none). One port: a
 * single slice of S seconds.
 *
 * Prints one line per port, in the order given:
 *   hs_client port=P handshakes=H resumed=R errors=E seconds=T cpu=C cipher=X version=V
 * H: connections that completed the handshake and the request; R: of those, resumed;
 * E: connections that failed (connect, handshake, an early close, or still open 5 s
 * after their slice); T: the wall time of the port's slices; C: this process's CPU
 * seconds (user and system) over them; X, V: what the port's first handshake negotiated.
 * One thread, epoll, non-blocking sockets: a plain client whose cost is OpenSSL's.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 4
#define DRAIN_MAX_S 5.0

enum st { ST_CONNECT, ST_HANDSHAKE, ST_WRITE, ST_READ };

/* A server: its address, its newest session (--resume) and its figures. */
struct target {
    int port;
    struct sockaddr_in addr;
    SSL_SESSION *sess;
    uint64_t done, resumed, err;
    double seconds, cpu;
    char cipher[64], version[32];
};

struct conn {
    int fd; /* -1: the slot is idle */
    enum st st;
    struct target *t;
    SSL *ssl;
    size_t got, sent;
    int resumed; /* its handshake resumed a session */
    char buf[4096];
};

static SSL_CTX *ctx;
static int ep;
static int resume;
static struct target targets[MAX_PORTS];
static int ntargets;
static struct target *open_to; /* new connections go here; NULL: the slice is ending */
static int active;             /* connections open */
static const char req[] = "GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: hs_client\r\n\r\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void watch(struct conn *c, uint32_t ev, int op)
{
    struct epoll_event e = {.events = ev, .data.ptr = c};
    if (epoll_ctl(ep, op, c->fd, &e) != 0) {
        perror("epoll_ctl");
        exit(1);
    }
}

static void conn_start(struct conn *c, struct target *t)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        perror("socket");
        exit(1);
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    c->t = t;
    c->ssl = NULL;
    c->got = c->sent = 0;
    c->resumed = 0;
    c->st = ST_CONNECT;
    active++;
    if (connect(c->fd, (struct sockaddr *)&t->addr, sizeof t->addr) != 0 && errno != EINPROGRESS) {
        perror("connect");
        exit(1);
    }
    watch(c, EPOLLOUT, EPOLL_CTL_ADD);
}

/* Closes c, counts it for its server, and opens the next one in its place while the
 * slice lasts (else the slot stays idle). */
static void conn_end(struct conn *c, int ok)
{
    struct target *t = c->t;
    if (c->ssl) {
        if (ok)
            SSL_shutdown(c->ssl); /* close_notify; the answer is not waited for */
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    close(c->fd); /* linger 0: a reset after the close_notify, no TIME_WAIT */
    c->fd = -1;
    active--;
    if (ok) {
        t->done++;
        t->resumed += (uint64_t)c->resumed;
    } else {
        t->err++;
    }
    if (open_to)
        conn_start(c, open_to);
}

/* The response is whole: headers and Content-Length bytes of body. */
static int response_done(struct conn *c)
{
    c->buf[c->got] = '\0';
    char *end = strstr(c->buf, "\r\n\r\n");
    if (!end)
        return 0;
    size_t body = 0;
    char *cl = strcasestr(c->buf, "\r\ncontent-length:");
    if (cl && cl < end)
        body = strtoul(cl + 17, NULL, 10);
    return c->got >= (size_t)(end + 4 - c->buf) + body;
}

/* Keeps the connection's session as its server's newest, when it is resumable. */
static void keep_session(struct conn *c)
{
    SSL_SESSION *s = SSL_get1_session(c->ssl);
    if (s && SSL_SESSION_is_resumable(s) && s != c->t->sess) {
        SSL_SESSION_free(c->t->sess);
        c->t->sess = s;
    } else {
        SSL_SESSION_free(s);
    }
}

/* Runs c as far as it goes, then waits for what OpenSSL wants. */
static void step(struct conn *c)
{
    for (;;) {
        int r = 0, e;
        switch (c->st) {
        case ST_CONNECT: {
            int err = 0;
            socklen_t l = sizeof err;
            getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
            if (err) {
                conn_end(c, 0);
                return;
            }
            c->ssl = SSL_new(ctx);
            SSL_set_fd(c->ssl, c->fd);
            SSL_set_tlsext_host_name(c->ssl, "localhost");
            if (resume && c->t->sess)
                SSL_set_session(c->ssl, c->t->sess);
            SSL_set_connect_state(c->ssl);
            c->st = ST_HANDSHAKE;
            continue;
        }
        case ST_HANDSHAKE:
            r = SSL_do_handshake(c->ssl);
            if (r == 1) {
                c->resumed = SSL_session_reused(c->ssl);
                if (!c->t->cipher[0]) {
                    snprintf(c->t->cipher, sizeof c->t->cipher, "%s", SSL_get_cipher_name(c->ssl));
                    snprintf(c->t->version, sizeof c->t->version, "%s", SSL_get_version(c->ssl));
                }
                c->st = ST_WRITE;
                continue;
            }
            break;
        case ST_WRITE:
            r = SSL_write(c->ssl, req + c->sent, (int)(sizeof req - 1 - c->sent));
            if (r > 0) {
                c->sent += (size_t)r;
                if (c->sent == sizeof req - 1)
                    c->st = ST_READ;
                continue;
            }
            break;
        case ST_READ:
            r = SSL_read(c->ssl, c->buf + c->got, (int)(sizeof c->buf - 1 - c->got));
            if (r > 0) {
                c->got += (size_t)r;
                if (response_done(c)) {
                    if (resume)
                        keep_session(c);
                    conn_end(c, 1);
                    return;
                }
                if (c->got == sizeof c->buf - 1) {
                    conn_end(c, 0);
                    return;
                }
                continue;
            }
            break;
        }
        e = SSL_get_error(c->ssl, r);
        if (e == SSL_ERROR_WANT_READ) {
            watch(c, EPOLLIN, EPOLL_CTL_MOD);
            return;
        }
        if (e == SSL_ERROR_WANT_WRITE) {
            watch(c, EPOLLOUT, EPOLL_CTL_MOD);
            return;
        }
        if (c->t->err < 5)
            ERR_print_errors_fp(stderr);
        ERR_clear_error();
        conn_end(c, 0);
        return;
    }
}

static void poll_once(int timeout_ms)
{
    struct epoll_event evs[256];
    int n = epoll_wait(ep, evs, 256, timeout_ms);
    for (int i = 0; i < n; i++)
        step(evs[i].data.ptr);
}

/* One slice: nconns connections to t for `secs`, then until they have all ended. The
 * figures go to t when `counted`; a warm-up slice's are thrown away. */
static void slice(struct conn *cs, int nconns, struct target *t, double secs, int counted)
{
    struct target keep = *t;
    double t0 = now_s(), c0 = cpu_s(), end = t0 + secs;
    open_to = t;
    for (int i = 0; i < nconns; i++)
        conn_start(&cs[i], t);
    while (now_s() < end)
        poll_once(100);
    open_to = NULL;
    double give_up = now_s() + DRAIN_MAX_S;
    while (active > 0 && now_s() < give_up)
        poll_once(100);
    for (int i = 0; i < nconns; i++) /* still open after DRAIN_MAX_S: failed */
        if (cs[i].fd >= 0)
            conn_end(&cs[i], 0);
    if (counted) {
        t->seconds += now_s() - t0;
        t->cpu += cpu_s() - c0;
    } else { /* a warm-up: only the session and what was negotiated stay */
        SSL_SESSION *s = t->sess;
        keep.sess = s;
        memcpy(keep.cipher, t->cipher, sizeof keep.cipher);
        memcpy(keep.version, t->version, sizeof keep.version);
        *t = keep;
    }
}

/* --resume: one connection to t until it has a ticket (10 s at most). */
static int first_ticket(struct conn *c, struct target *t)
{
    open_to = NULL;
    conn_start(c, t);
    double give_up = now_s() + 10;
    while (!t->sess && now_s() < give_up)
        poll_once(100);
    if (c->fd >= 0) {
        if (c->ssl)
            SSL_free(c->ssl);
        c->ssl = NULL;
        close(c->fd);
        c->fd = -1;
        active--;
    }
    t->done = t->resumed = t->err = 0;
    return t->sess != NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: hs_client --port P [--port P2 ...] --conns N --seconds S [--slice D] [--warmup W] "
                    "[--resume] [--ciphersuite NAME]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int nconns = 100;
    double secs = 2, slice_s = 0.5, warmup = 0.2;
    const char *suite = "TLS_AES_128_GCM_SHA256";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--port") && i + 1 < argc) {
            if (ntargets == MAX_PORTS)
                usage();
            targets[ntargets++].port = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--conns") && i + 1 < argc) {
            nconns = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            secs = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--slice") && i + 1 < argc) {
            slice_s = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--ciphersuite") && i + 1 < argc) {
            suite = argv[++i];
        } else if (!strcmp(argv[i], "--resume")) {
            resume = 1;
        } else {
            usage();
        }
    }
    if (ntargets == 0 || nconns <= 0 || secs <= 0 || slice_s <= 0 || warmup < 0) {
        fprintf(stderr, "hs_client: --port, --conns, --seconds and --slice must be positive\n");
        return 2;
    }
    for (int i = 0; i < ntargets; i++) {
        if (targets[i].port <= 0 || targets[i].port > 65535) {
            fprintf(stderr, "hs_client: bad port %d\n", targets[i].port);
            return 2;
        }
        targets[i].addr.sin_family = AF_INET;
        targets[i].addr.sin_port = htons((uint16_t)targets[i].port);
        targets[i].addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) || !SSL_CTX_set_ciphersuites(ctx, suite)) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL); /* the lab's self-signed certificate */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF); /* the sessions kept by hand */
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct conn *cs = calloc((size_t)nconns, sizeof *cs);
    if (ep < 0 || !cs)
        return 1;
    for (int i = 0; i < nconns; i++)
        cs[i].fd = -1;
    if (resume) {
        for (int i = 0; i < ntargets; i++) {
            if (!first_ticket(&cs[0], &targets[i])) {
                fprintf(stderr, "hs_client: no session ticket from port %d within 10 s\n", targets[i].port);
                return 1;
            }
        }
    }
    if (warmup > 0)
        for (int i = 0; i < ntargets; i++)
            slice(cs, nconns, &targets[i], warmup, 0);
    /* Slices per port: about D seconds each, together S. */
    int per = ntargets == 1 ? 1 : (int)(secs / slice_s + 0.5);
    if (per < 1)
        per = 1;
    for (int k = 0; k < per; k++)
        for (int i = 0; i < ntargets; i++)
            slice(cs, nconns, &targets[i], secs / per, 1);
    for (int i = 0; i < ntargets; i++) {
        struct target *t = &targets[i];
        printf("hs_client port=%d handshakes=%llu resumed=%llu errors=%llu seconds=%.6f cpu=%.6f cipher=%s "
               "version=%s\n",
               t->port, (unsigned long long)t->done, (unsigned long long)t->resumed, (unsigned long long)t->err,
               t->seconds, t->cpu, t->cipher[0] ? t->cipher : "none", t->version[0] ? t->version : "none");
    }
    return 0;
}
