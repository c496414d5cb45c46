/* A small HTTP/1.1 server on vigil's sockets API: the work nginx does for
 * `location / { return 200 "Hello, world!\n"; }`. A starting point, not a framework.
 *
 *   ./http_hello [options] [port|address]  prints "ready" once listening (port 8080)
 *   curl -i http://127.0.0.1:8080/
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
 * Memory: an idle connection is a struct conn (vigil_sock and a few fields, 520
 * bytes) and holds nothing else: the receive buffers are the loop's pool's and go back
 * at once (their bytes are copied to in[]), and the arrays a request needs (struct
 * work: in[], out[], the send request) are taken from a list of spares when its first
 * byte arrives and given back once it is answered. While an answer is being sent the
 * next requests are read into in[]; when in[] is full the connection stops receiving
 * (back-pressure) and the data waits in the kernel.
 *
 * The connection's HTTP logic, the listener and the signals are http_conn.c's (shared
 * with https_hello.c); this file is its transport, vigil_sock's calls, and main().
 */
#include "http_conn.h"

#include <vigil.h>

#include <getopt.h>
#include <stdio.h>
#include <sys/socket.h>

/* A connection: its HTTP state, then its socket. */
struct conn {
    struct http_conn http;
    vigil_sock sock;
};

static vigil_sock *sock_of(struct http_conn *c)
{
    return &((struct conn *)c)->sock;
}

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    http_conn_data(loop, s->data, n, buf);
}

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    http_conn_sent(loop, req->sock->data, res);
}

static void on_closed(vigil_loop *loop, vigil_sock *s)
{
    http_conn_closed(loop, s->data);
}

static int sock_open(vigil_loop *loop, struct http_conn *c, int fd)
{
    int r = vigil_sock_open(loop, sock_of(c), fd);
    sock_of(c)->data = c;
    c->ready = true; /* no handshake: requests are read at once */
    return r;
}

static int sock_recv_start(vigil_loop *loop, struct http_conn *c)
{
    return vigil_sock_recv_start(loop, sock_of(c), on_data);
}

static void sock_recv_stop(vigil_loop *loop, struct http_conn *c)
{
    vigil_sock_recv_stop(loop, sock_of(c));
}

static int sock_send(vigil_loop *loop, struct http_conn *c, vigil_net_req *req, const void *buf, size_t len)
{
    return vigil_sock_send(loop, sock_of(c), req, buf, len, on_sent);
}

static void sock_shutdown(vigil_loop *loop, struct http_conn *c)
{
    vigil_sock_shutdown(loop, sock_of(c), SHUT_WR);
}

static void sock_close(vigil_loop *loop, struct http_conn *c)
{
    vigil_sock_close(loop, sock_of(c), on_closed);
}

static const struct http_io sock_io = {
    .scheme = "http",
    .conn_size = sizeof(struct conn),
    .open = sock_open,
    .recv_start = sock_recv_start,
    .recv_stop = sock_recv_stop,
    .send = sock_send,
    .shutdown = sock_shutdown,
    .close = sock_close,
};

int main(int argc, char **argv)
{
    static const struct option opts[] = {HTTP_TIMEOUT_OPTIONS, {0}};
    for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        if (!http_timeout_option(o, optarg)) {
            fprintf(stderr, "usage: %s " HTTP_TIMEOUT_USAGE " [port|address]\n", argv[0]);
            return 2;
        }
    }
    return http_serve(&sock_io, optind < argc ? argv[optind] : "8080");
}
