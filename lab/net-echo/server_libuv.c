/* net-echo's libuv server (case "streams"): uv_tcp_t, uv_read_start into the
 * connection's buffer, the echo written with uv_try_write and, for what the socket did
 * not take, uv_write of a copy (freed in its callback). CLI: srv.h (uv_signal_t for
 * SIGTERM and SIGINT). */
#include "srv.h"

#include <uv.h>

#define BUFSZ 65536

struct conn {
    uv_tcp_t tcp;
    char buf[BUFSZ];
};

struct wreq {
    uv_write_t req;
    char data[];
};

static uv_loop_t *loop;

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    (void)hint;
    struct conn *c = (struct conn *)h;
    *b = uv_buf_init(c->buf, sizeof c->buf);
}

static void on_close(uv_handle_t *h)
{
    free(h);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status;
    free(req);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    if (n < 0) {
        uv_close((uv_handle_t *)s, on_close);
        return;
    }
    if (n == 0)
        return;
    uv_buf_t out = uv_buf_init(b->base, (unsigned)n);
    int w = uv_try_write(s, &out, 1);
    if (w == n)
        return;
    if (w < 0 && w != UV_EAGAIN) {
        uv_close((uv_handle_t *)s, on_close);
        return;
    }
    if (w < 0)
        w = 0;
    size_t rest = (size_t)(n - w);
    struct wreq *r = malloc(sizeof *r + rest);
    memcpy(r->data, b->base + w, rest);
    uv_buf_t rb = uv_buf_init(r->data, (unsigned)rest);
    if (uv_write(&r->req, s, &rb, 1, on_written) < 0) {
        free(r);
        uv_close((uv_handle_t *)s, on_close);
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    if (status < 0)
        return;
    struct conn *c = malloc(sizeof *c);
    uv_tcp_init(loop, &c->tcp);
    if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0 || uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) < 0)
        uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void on_signal(uv_signal_t *h, int signum)
{
    (void)h;
    (void)signum;
    uv_stop(loop);
}

int main(int argc, char **argv)
{
    int port = srv_port(argc, argv);
    loop = uv_default_loop();
    uv_tcp_t server;
    uv_tcp_init(loop, &server);
    struct sockaddr_in sa;
    uv_ip4_addr("127.0.0.1", port, &sa);
    /* libuv sets SO_REUSEADDR on bind */
    int r = uv_tcp_bind(&server, (const struct sockaddr *)&sa, 0);
    if (r == 0)
        r = uv_listen((uv_stream_t *)&server, 4096, on_connection);
    if (r < 0) {
        fprintf(stderr, "listen: %s\n", uv_strerror(r));
        return 1;
    }
    uv_signal_t sterm, sint;
    uv_signal_init(loop, &sterm);
    uv_signal_init(loop, &sint);
    uv_signal_start(&sterm, on_signal, SIGTERM);
    uv_signal_start(&sint, on_signal, SIGINT);
    srv_ready();
    uv_run(loop, UV_RUN_DEFAULT);
    return 0;
}
