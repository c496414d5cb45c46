/* examples/http_hello.c behind TLS (<vigil/tls.h>): the work nginx does for
 * `listen 8443 ssl; location / { return 200 "Hello, world!\n"; }`. A starting point, not
 * a framework; everything below but the TLS calls is http_hello's.
 *
 *   ./https_hello --cert C --key K [options] [port|address]
 *                           prints "ready" once listening (port 8443)
 *   curl -i --cacert ca.pem https://localhost:8443/
 *
 * TLS: one context for the process (certificate chain C, key K; TLS 1.2 and 1.3,
 * session tickets, ALPN http/1.1), a connection per accepted socket: the handshake
 * runs under the client-header timeout (and the context's own 10 s), then requests are
 * read from the decrypted stream exactly as http_hello reads them from the socket, and
 * answers are encrypted and sent as one TLS send. The last answer is followed by
 * close_notify (vigil_tls_shutdown) before the lingering wait; a client that closes
 * without close_notify is closed at once (nothing of its is answered after that). No
 * allocation per request: TLS state is per connection (OpenSSL's SSL and vigil's).
 *
 * Options (milliseconds), nginx's timeouts by their nginx names:
 *   --client-header-timeout MS  10000  a request (its head and any body) must arrive
 *                                      within this from its first byte, and a new
 *                                      connection's first request from the accept:
 *                                      slowloris clients are closed. nginx: 60 s; a
 *                                      real client sends a head in one packet.
 *   --keepalive-timeout MS      75000  an idle keep-alive connection is closed after
 *                                      this (nginx's default, longer than the 60 s
 *                                      browsers and most HTTP clients keep one).
 *   --send-timeout MS           30000  an answer whose send does not complete within
 *                                      this (a peer that stopped reading) closes the
 *                                      connection. nginx: 60 s between two writes;
 *                                      here a send is at most OUT_SIZE bytes.
 *   --lingering-timeout MS       5000  after the last answer of a connection the
 *                                      server shuts its side down and waits this long
 *                                      for the peer's end before closing (nginx's):
 *                                      closing at once could reset the answer away.
 *   --shutdown-timeout MS        2000  SIGTERM or SIGINT: stop accepting, close idle
 *                                      connections, let the answers being sent finish
 *                                      for at most this long, then close every
 *                                      connection, free the loop and exit 0.
 *   SIGUSR1 prints one line of counters on stdout ("stats conns=... bufs_lent=...").
 *
 * Each connection:
 *   - answers every complete request it has read, in order (pipelined ones too, and
 *     those read before the peer's half-close, which are answered before the close);
 *   - keeps the connection open (HTTP/1.1, or HTTP/1.0 with "Connection: keep-alive")
 *     unless a request says "Connection: close";
 *   - answers a request the parser rejects (http_parse.h: bad syntax, conflicting
 *     Content-Length, Content-Length with Transfer-Encoding, bad chunked body: 400; a
 *     head over 8 KiB: 431; a coding other than chunked: 501) and closes;
 *   - sends Server, Date, Content-Type, Content-Length and Connection, as nginx.
 *
 * Memory: an idle connection is a struct conn (vigil_tls and a few fields) and its TLS
 * state (OpenSSL's, and vigil's with its 16 KiB plaintext buffer): the receive buffers are the loop's pool's and go back
 * at once (their bytes are copied to in[]), and the arrays a request needs (struct
 * work: in[], out[], the send request) are taken from a list of spares when its first
 * byte arrives and given back once it is answered. While an answer is being sent the
 * next requests are read into in[]; when in[] is full the connection stops receiving
 * (back-pressure) and the data waits in the kernel.
 *
 * The connection's HTTP logic, the listener and the signals are http_conn.c's (shared
 * with http_hello.c); this file is its transport, vigil_tls's calls, and main().
 */
#include "http_conn.h"

#include <vigil.h>
#include <vigil/tls.h>

#include <getopt.h>
#include <stdio.h>

static vigil_tls_ctx *tls_ctx;

/* A connection: its HTTP state, then its TLS stream. */
struct conn {
    struct http_conn http;
    vigil_tls tls;
};

static vigil_tls *tls_of(struct http_conn *c)
{
    return &((struct conn *)c)->tls;
}

static void on_data(vigil_loop *loop, vigil_tls *t, ssize_t n, vigil_buf *buf)
{
    http_conn_data(loop, t->data, n, buf);
}

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    http_conn_sent(loop, req->data, res);
}

static void on_closed(vigil_loop *loop, vigil_tls *t)
{
    http_conn_closed(loop, t->data);
}

static void on_handshake(vigil_loop *loop, vigil_tls *t, int res)
{
    http_conn_ready(loop, t->data, res);
}

static int tls_open(vigil_loop *loop, struct http_conn *c, int fd)
{
    int r = vigil_tls_open(loop, tls_of(c), tls_ctx, fd, NULL);
    tls_of(c)->data = c; /* c->ready once the handshake is over */
    return r;
}

static int tls_handshake(vigil_loop *loop, struct http_conn *c)
{
    return vigil_tls_handshake(loop, tls_of(c), on_handshake);
}

static int tls_recv_start(vigil_loop *loop, struct http_conn *c)
{
    return vigil_tls_recv_start(loop, tls_of(c), on_data);
}

static void tls_recv_stop(vigil_loop *loop, struct http_conn *c)
{
    vigil_tls_recv_stop(loop, tls_of(c));
}

static int tls_send(vigil_loop *loop, struct http_conn *c, vigil_net_req *req, const void *buf, size_t len)
{
    req->data = c;
    return vigil_tls_send(loop, tls_of(c), req, buf, len, on_sent);
}

static void tls_shutdown(vigil_loop *loop, struct http_conn *c)
{
    vigil_tls_shutdown(loop, tls_of(c)); /* close_notify, then the FIN */
}

static void tls_close(vigil_loop *loop, struct http_conn *c)
{
    vigil_tls_close(loop, tls_of(c), on_closed);
}

static const struct http_io tls_io = {
    .scheme = "https",
    .conn_size = sizeof(struct conn),
    .open = tls_open,
    .handshake = tls_handshake,
    .recv_start = tls_recv_start,
    .recv_stop = tls_recv_stop,
    .send = tls_send,
    .shutdown = tls_shutdown,
    .close = tls_close,
};

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        HTTP_TIMEOUT_OPTIONS,
        {"cert", required_argument, NULL, 'c'},
        {"key", required_argument, NULL, 'K'},
        {0},
    };
    const char *cert = NULL, *key = NULL;
    for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        if (o == 'c') {
            cert = optarg;
        } else if (o == 'K') {
            key = optarg;
        } else if (!http_timeout_option(o, optarg)) {
            fprintf(stderr, "usage: %s --cert FILE --key FILE " HTTP_TIMEOUT_USAGE " [port|address]\n", argv[0]);
            return 2;
        }
    }
    if (!cert || !key) {
        fprintf(stderr, "%s: --cert FILE and --key FILE are needed\n", argv[0]);
        return 2;
    }
    struct vigil_tls_options to;
    vigil_tls_options_init(&to);
    to.flags = VIGIL_TLS_SERVER;
    to.cert_file = cert;
    to.key_file = key;
    to.alpn = "http/1.1";
    int r = vigil_tls_ctx_new(&to, &tls_ctx);
    if (r < 0) {
        fprintf(stderr, "%s, %s: %s\n", cert, key, vigil_tls_strerror(r));
        return 1;
    }
    r = http_serve(&tls_io, optind < argc ? argv[optind] : "8443");
    vigil_tls_ctx_free(tls_ctx);
    return r;
}
