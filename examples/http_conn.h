/* The HTTP/1.1 server core of examples/http_hello.c and examples/https_hello.c: the
 * connection (parse, answer, keep-alive, back-pressure, nginx's timeouts), the listener,
 * the signals and the counters, over a small table of transport calls (struct http_io):
 * vigil_sock's in http_hello.c, vigil_tls's in https_hello.c. Written once in
 * http_conn.c; each example is its transport and its main().
 *
 * A transport's connection struct starts with struct http_conn (the core allocates
 * io->conn_size bytes and hands the transport a struct http_conn *); its callbacks hand
 * what the transport reports back to the core: http_conn_data (a receive),
 * http_conn_sent (a send's end), http_conn_closed (the close's end) and, for a transport
 * that has a handshake, http_conn_ready. One call through the table per I/O call.
 */
#ifndef HTTP_CONN_H
#define HTTP_CONN_H

#include <vigil.h>

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct http_work;

/* One connection's HTTP state. */
struct http_conn {
    struct http_conn *prev, *next; /* in its phase's list */
    int64_t deadline_ns;           /* when the phase's timeout ends */
    struct http_work *w;           /* NULL while idle */
    uint8_t phase;
    bool receiving, sending;
    bool eof;     /* the peer sent its end: answer what was read, then close */
    bool closing; /* no more requests: send what is queued, then shut down */
    bool shut;    /* our side is shut down: wait for the peer's end */
    bool closed;  /* io->close was called */
    bool ready;   /* requests may be read (TLS: the handshake is over) */
};

/* The transport. Each call is the vigil_sock_* or vigil_tls_* call of its name on the
 * connection's own socket or TLS stream, with the transport's callbacks. */
struct http_io {
    const char *scheme; /* "http", "https": the startup line's */
    size_t conn_size;   /* the transport's connection struct (struct http_conn first) */
    /* Takes over the accepted fd (on failure the core closes it); sets c->ready when
     * requests may be read at once. */
    int (*open)(vigil_loop *loop, struct http_conn *c, int fd);
    int (*handshake)(vigil_loop *loop, struct http_conn *c); /* when !c->ready after open */
    int (*recv_start)(vigil_loop *loop, struct http_conn *c);
    void (*recv_stop)(vigil_loop *loop, struct http_conn *c);
    int (*send)(vigil_loop *loop, struct http_conn *c, vigil_net_req *req, const void *buf, size_t len);
    void (*shutdown)(vigil_loop *loop, struct http_conn *c); /* after the last answer */
    void (*close)(vigil_loop *loop, struct http_conn *c);
};

/* What the transport's callbacks report. */
void http_conn_data(vigil_loop *loop, struct http_conn *c, ssize_t n, vigil_buf *buf);
void http_conn_sent(vigil_loop *loop, struct http_conn *c, ssize_t res);
void http_conn_closed(vigil_loop *loop, struct http_conn *c);
void http_conn_ready(vigil_loop *loop, struct http_conn *c, int res); /* the handshake's end */

/* The timeout options (getopt_long's, milliseconds): put HTTP_TIMEOUT_OPTIONS in the
 * program's option table and give each option it returns to http_timeout_option
 * (false: not one of them). */
#define HTTP_TIMEOUT_OPTIONS                                                                                           \
    {"client-header-timeout", required_argument, NULL, 'h'}, {"keepalive-timeout", required_argument, NULL, 'k'},      \
        {"send-timeout", required_argument, NULL, 's'}, {"lingering-timeout", required_argument, NULL, 'l'},            \
        {"shutdown-timeout", required_argument, NULL, 'S'}
#define HTTP_TIMEOUT_USAGE                                                                                             \
    "[--client-header-timeout|--keepalive-timeout|--send-timeout|--lingering-timeout|--shutdown-timeout MS]..."
bool http_timeout_option(int o, const char *arg);

/* Listens on where (a port alone: 127.0.0.1:port; else an address as vigil_net_listen(3)
 * reads it), prints "ready", serves until SIGTERM/SIGINT's graceful shutdown ends, frees
 * the loop. Returns the process's exit status. */
int http_serve(const struct http_io *io, const char *where);

#endif
