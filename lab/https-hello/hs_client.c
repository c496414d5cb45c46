/* hs_client: the https-hello handshake run's client. N connections at once to
 * 127.0.0.1:PORT, each making one TLS 1.3 handshake (OpenSSL), one HTTP/1.1 GET, reading
 * the whole response, then sending close_notify and closing (SO_LINGER 0: no TIME_WAIT,
 * so thousands of connections a second never run out of ports), and at once a new
 * connection in its place, for S seconds. With --resume every connection but the first
 * offers the newest session ticket received (TLS 1.3 resumption, PSK with ECDHE; one
 * connection made before the measured run gets the first ticket).
 *
 *   hs_client --port P --conns N --seconds S [--resume] [--ciphersuite NAME]
 *
 * Prints one line:
 *   hs_client handshakes=H resumed=R errors=E seconds=T cipher=C version=V
 * H: connections that completed the handshake and the request; R: of those, resumed;
 * E: connections that failed (connect, handshake, or an early close); T: the wall time.
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

enum st { ST_CONNECT, ST_HANDSHAKE, ST_WRITE, ST_READ };

struct conn {
    int fd;
    enum st st;
    SSL *ssl;
    size_t got, sent;
    int resumed; /* its handshake resumed a session */
    char buf[4096];
};

static SSL_CTX *ctx;
static int ep;
static struct sockaddr_in addr;
static SSL_SESSION *sess; /* the newest resumable session (--resume) */
static int resume;
static uint64_t n_done, n_resumed, n_err;
static char cipher[64] = "none", version[32] = "none";
static const char req[] = "GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: hs_client\r\n\r\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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

static void conn_start(struct conn *c)
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
    c->ssl = NULL;
    c->got = c->sent = 0;
    c->resumed = 0;
    c->st = ST_CONNECT;
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS) {
        perror("connect");
        exit(1);
    }
    watch(c, EPOLLOUT, EPOLL_CTL_ADD);
}

static void conn_end(struct conn *c, int ok)
{
    if (c->ssl) {
        if (ok)
            SSL_shutdown(c->ssl); /* close_notify; the answer is not waited for */
        SSL_free(c->ssl);
    }
    close(c->fd); /* linger 0: a reset after the close_notify, no TIME_WAIT */
    if (ok) {
        n_done++;
        n_resumed += (uint64_t)c->resumed;
    } else
        n_err++;
    conn_start(c);
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
            if (resume && sess)
                SSL_set_session(c->ssl, sess);
            SSL_set_connect_state(c->ssl);
            c->st = ST_HANDSHAKE;
            continue;
        }
        case ST_HANDSHAKE:
            r = SSL_do_handshake(c->ssl);
            if (r == 1) {
                c->resumed = SSL_session_reused(c->ssl);
                if (n_done == 0) {
                    snprintf(cipher, sizeof cipher, "%s", SSL_get_cipher_name(c->ssl));
                    snprintf(version, sizeof version, "%s", SSL_get_version(c->ssl));
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
                    if (resume) {
                        SSL_SESSION *s = SSL_get1_session(c->ssl);
                        if (s && SSL_SESSION_is_resumable(s) && s != sess) {
                            SSL_SESSION_free(sess);
                            sess = s;
                        } else {
                            SSL_SESSION_free(s);
                        }
                    }
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
        if (n_err < 5)
            ERR_print_errors_fp(stderr);
        ERR_clear_error();
        conn_end(c, 0);
        return;
    }
}

int main(int argc, char **argv)
{
    int port = 0, nconns = 100;
    double secs = 2;
    const char *suite = "TLS_AES_128_GCM_SHA256";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--port") && i + 1 < argc)
            port = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--conns") && i + 1 < argc)
            nconns = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--ciphersuite") && i + 1 < argc)
            suite = argv[++i];
        else if (!strcmp(argv[i], "--resume"))
            resume = 1;
        else {
            fprintf(stderr, "usage: hs_client --port P --conns N --seconds S [--resume] [--ciphersuite NAME]\n");
            return 2;
        }
    }
    if (port <= 0 || nconns <= 0 || secs <= 0) {
        fprintf(stderr, "hs_client: --port, --conns and --seconds must be positive\n");
        return 2;
    }
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) || !SSL_CTX_set_ciphersuites(ctx, suite)) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL); /* the lab's self-signed certificate */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF); /* the session kept by hand */
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct conn *cs = calloc((size_t)nconns, sizeof *cs);
    if (ep < 0 || !cs)
        return 1;
    struct epoll_event evs[256];
    if (resume) {
        /* One connection first, for a ticket: every measured connection offers one. */
        conn_start(&cs[0]);
        double give_up = now_s() + 10;
        while (!sess && now_s() < give_up) {
            int n = epoll_wait(ep, evs, 256, 100);
            for (int i = 0; i < n; i++)
                step(evs[i].data.ptr);
        }
        if (!sess) {
            fprintf(stderr, "hs_client: no session ticket within 10 s (%llu connections, %llu failed)\n",
                    (unsigned long long)n_done, (unsigned long long)n_err);
            return 1;
        }
        epoll_ctl(ep, EPOLL_CTL_DEL, cs[0].fd, NULL);
        if (cs[0].ssl)
            SSL_free(cs[0].ssl);
        close(cs[0].fd);
        n_done = n_resumed = n_err = 0;
    }
    double t0 = now_s(), end = t0 + secs;
    for (int i = 0; i < nconns; i++)
        conn_start(&cs[i]);
    while (now_s() < end) {
        int n = epoll_wait(ep, evs, 256, 100);
        for (int i = 0; i < n; i++)
            step(evs[i].data.ptr);
    }
    double t1 = now_s();
    printf("hs_client handshakes=%llu resumed=%llu errors=%llu seconds=%.6f cipher=%s version=%s\n",
           (unsigned long long)n_done, (unsigned long long)n_resumed, (unsigned long long)n_err, t1 - t0, cipher,
           version);
    return 0;
}
