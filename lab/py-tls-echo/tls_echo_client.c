/* py-tls-echo's client, the same for every server: `conns` TLS 1.3 connections (OpenSSL)
 * to 127.0.0.1:PORT, each a closed loop like net-echo's client (send msg_bytes, wait for
 * all msg_bytes of the echo, which may come in several records, send again). The
 * handshakes are made first, one connection at a time (blocking), and are not timed; then
 * one epoll loop drives every connection (non-blocking sockets, SSL_read until it wants
 * to read, EPOLLOUT only while a write waits for room). The certificate is not verified:
 * the lab's server uses a self-signed one made for the run.
 *
 *   tls_echo_client --port P --conns N --msg-bytes M --seconds S [--warmup W] [--cpu C]
 *                   --pid PID --keys '"bench":..,"system":..'
 *
 * Warms up for W seconds, then measures S seconds and prints, with the keys:
 * requests_per_s, server_cpu_ns_per_request (the CPU time of every thread of process PID
 * over the window, /proc/PID/task/<tid>/schedstat, ns / requests), rtt_us (histogram) and
 * client_busy (this process's CPU time / wall time), as rounds.h's totals and histograms. */
#include "echowin.h"
#include "rounds.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
    int fd;
    SSL *ssl;
    unsigned got;     /* bytes of the current echo received */
    int wpending;     /* the request's SSL_write wants to be retried (socket full) */
    int out_armed;    /* EPOLLOUT is in the interest set */
    int64_t t_send;   /* when the request was written */
};

static struct conn *conns;
static struct echowin_opts opt; /* the command line */
static int ep;
static char *sendbuf, *recvbuf;
static struct rounds_hist hist;
static long done_reqs;

static void die(const char *what, int err)
{
    fprintf(stderr, "tls_echo_client: %s: %s\n", what, err ? strerror(err) : "error");
    ERR_print_errors_fp(stderr);
    exit(1);
}

static void arm_out(struct conn *c, int on)
{
    if (c->out_armed == on)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.u32 = (uint32_t)(c - conns)};
    if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) < 0)
        die("epoll_ctl", errno);
    c->out_armed = on;
}

/* Writes the request (all of it: partial writes are off, so SSL_write sends the whole
 * record or wants to be called again with the same buffer). */
static void send_req(struct conn *c)
{
    int n = SSL_write(c->ssl, sendbuf, (int)opt.msg);
    if (n > 0) {
        c->wpending = 0;
        arm_out(c, 0);
        return;
    }
    int e = SSL_get_error(c->ssl, n);
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
        c->wpending = 1;
        arm_out(c, e == SSL_ERROR_WANT_WRITE);
        return;
    }
    die("SSL_write", e == SSL_ERROR_SYSCALL ? errno : 0);
}

static void start(struct conn *c, int64_t now)
{
    c->got = 0;
    c->t_send = now;
    send_req(c);
}

/* Reads whatever the connection has; finishes the request (and starts the next) when the
 * whole echo is in. */
static void on_ready(struct conn *c, int64_t now)
{
    if (c->wpending)
        send_req(c);
    for (;;) {
        int n = SSL_read(c->ssl, recvbuf, (int)(opt.msg - c->got));
        if (n > 0) {
            c->got += (unsigned)n;
            if (c->got == opt.msg && !c->wpending) {
                done_reqs++;
                rounds_hist_add(&hist, now - c->t_send);
                start(c, now);
            }
            continue;
        }
        int e = SSL_get_error(c->ssl, n);
        if (e == SSL_ERROR_WANT_READ)
            return;
        if (e == SSL_ERROR_WANT_WRITE) {
            arm_out(c, 1);
            return;
        }
        if (e == SSL_ERROR_ZERO_RETURN)
            die("the server closed the connection", EPIPE);
        die("SSL_read", e == SSL_ERROR_SYSCALL ? errno : 0);
    }
}

static void run_until(int64_t end)
{
    struct epoll_event evs[256];
    while (bench_now_ns() < end) {
        int n = epoll_wait(ep, evs, 256, 100);
        if (n < 0 && errno != EINTR)
            die("epoll_wait", errno);
        int64_t now = bench_now_ns();
        for (int i = 0; i < n; i++)
            on_ready(&conns[evs[i].data.u32], now);
    }
}

int main(int argc, char **argv)
{
    if (echowin_setup(argc, argv, &opt, "tls_echo_client", 0, 1u << 20) < 0)
        return 2;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION))
        die("SSL_CTX_new (TLS 1.3)", 0);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    conns = calloc((size_t)opt.conns, sizeof *conns);
    sendbuf = malloc(opt.msg);
    recvbuf = malloc(opt.msg);
    if (!conns || !sendbuf || !recvbuf)
        die("malloc", ENOMEM);
    memset(sendbuf, 'x', opt.msg);
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        die("epoll_create1", errno);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opt.port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int64_t h0 = bench_now_ns();
    for (int i = 0; i < opt.conns; i++) {
        struct conn *c = &conns[i];
        int one = 1;
        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0)
            die("connect", errno);
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->ssl = SSL_new(ctx);
        if (!c->ssl || !SSL_set_fd(c->ssl, c->fd) || !SSL_set_tlsext_host_name(c->ssl, "localhost"))
            die("SSL_new", 0);
        if (SSL_connect(c->ssl) != 1)
            die("SSL_connect (the TLS 1.3 handshake)", errno);
        fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
            die("epoll_ctl", errno);
    }
    fprintf(stderr, "tls_echo_client: %d handshakes (%s) in %.3f s\n", opt.conns, SSL_get_version(conns[0].ssl),
            (double)(bench_now_ns() - h0) / 1e9);
    int64_t now = bench_now_ns();
    for (int i = 0; i < opt.conns; i++)
        start(&conns[i], now);
    run_until(now + (int64_t)(opt.warmup * 1e9));

    return echowin_measure("tls_echo_client", opt.keys, opt.pid, opt.seconds, run_until, &done_reqs, &hist);
}
