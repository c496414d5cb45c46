/* What the lab's servers share (net-echo, http-hello, net-fair): the server CLI contract,
 * the listening socket and, for the hand-written epoll and liburing servers, their HTTP
 * mode.
 *
 *   PROG PORT    listens on 127.0.0.1:PORT (SO_REUSEADDR), prints "ready" on stdout once
 *                listening, echoes every byte back on each connection, and exits 0 on
 *                SIGTERM or SIGINT.
 *   PROG PORT http   (server_epoll.c, server_liburing.c only) the same, but answers each
 *                request (every head ended by a blank line, CRLF CRLF; no body is read)
 *                with one fixed HTTP/1.1 response, SRV_HTTP_ANSWER, keeping the connection
 *                open: the least work an HTTP server can do, as a reference beside
 *                examples/http_hello and nginx.
 *
 * The signals are blocked and delivered through a signalfd that each server watches
 * with its own mechanism (an epoll entry, an io_uring read, a library's signal watcher),
 * so no server takes a system call per turn for them. */
#ifndef NET_ECHO_SRV_H
#define NET_ECHO_SRV_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* What a short write left of an answer, written when the connection is writable again:
 * buf[off .. len) (buf NULL: nothing left). */
struct srv_rest {
    char *buf;
    size_t len, off;
};

/* Keeps p[done .. n) after a write that took done of n bytes (done < 0: none). */
static inline void srv_rest_keep(struct srv_rest *k, const char *p, ssize_t done, ssize_t n)
{
    if (done < 0)
        done = 0;
    k->len = (size_t)(n - done);
    k->off = 0;
    k->buf = malloc(k->len);
    memcpy(k->buf, p + done, k->len);
}

/* Writes the rest to fd: -1 on an error, 0 when all is written (the rest freed), 1 when
 * bytes remain. */
static inline int srv_rest_flush(struct srv_rest *k, int fd)
{
    ssize_t n = write(fd, k->buf + k->off, k->len - k->off);
    if (n < 0)
        return errno == EAGAIN ? 1 : -1;
    k->off += (size_t)n;
    if (k->off < k->len)
        return 1;
    free(k->buf);
    k->buf = NULL;
    return 0;
}

/* The port of argv[1], or exits 2. */
static inline int srv_port(int argc, char **argv)
{
    long port = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (port <= 0 || port > 65535) {
        fprintf(stderr, "usage: %s PORT\n", argv[0]);
        exit(2);
    }
    return (int)port;
}

/* The port of argv[1] and whether argv[2] is "http" (the HTTP mode), or exits 2. */
static inline int srv_args(int argc, char **argv, int *http)
{
    long port = argc == 2 || argc == 3 ? strtol(argv[1], NULL, 10) : 0;
    *http = argc == 3 && strcmp(argv[2], "http") == 0;
    if (port <= 0 || port > 65535 || (argc == 3 && !*http)) {
        fprintf(stderr, "usage: %s PORT [http]\n", argv[0]);
        exit(2);
    }
    return (int)port;
}

/* The HTTP mode's answer: headers as examples/http_hello sends them (a fixed Date). */
#define SRV_HTTP_ANSWER                                                                            \
    "HTTP/1.1 200 OK\r\nServer: lab\r\nDate: Fri, 27 Nov 2026 00:00:00 GMT\r\n"                 \
    "Content-Type: text/plain\r\nContent-Length: 14\r\nConnection: keep-alive\r\n\r\n"         \
    "Hello, world!\n"
#define SRV_HTTP_ANSWER_LEN (sizeof SRV_HTTP_ANSWER - 1)

/* Counts the request heads that end in p[0 .. n): the CRLF CRLF sequences, carried over
 * reads by *state (the bytes of the sequence matched so far, 0 at a connection's start). */
static inline unsigned srv_http_ends(int *state, const char *p, size_t n)
{
    static const char seq[4] = {'\r', '\n', '\r', '\n'};
    unsigned ends = 0;
    int m = *state;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == seq[m]) {
            if (++m == 4) {
                ends++;
                m = 0;
            }
        } else {
            m = p[i] == '\r';
        }
    }
    *state = m;
    return ends;
}

/* SRV_HTTP_MANY answers back to back (an answer for each of several pipelined requests
 * in one write); built once by srv_http_many(). */
#define SRV_HTTP_MANY 256
static inline const char *srv_http_many(void)
{
    static char *many;
    if (!many) {
        many = malloc(SRV_HTTP_MANY * SRV_HTTP_ANSWER_LEN);
        if (!many) {
            perror("malloc");
            exit(1);
        }
        for (int i = 0; i < SRV_HTTP_MANY; i++)
            memcpy(many + (size_t)i * SRV_HTTP_ANSWER_LEN, SRV_HTTP_ANSWER, SRV_HTTP_ANSWER_LEN);
    }
    return many;
}

/* A listening TCP socket on 127.0.0.1:port (flags: SOCK_NONBLOCK or 0), or exits 1. */
static inline int srv_listen(int port, int flags)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
    int one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 4096) < 0) {
        perror("listen");
        exit(1);
    }
    return fd;
}

/* Blocks SIGTERM and SIGINT and returns a signalfd that reads them (flags: SFD_NONBLOCK
 * or 0), or exits 1. Call before any thread starts. */
static inline int srv_signalfd(int flags)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int fd = -1;
    signal(SIGTERM, SIG_DFL); /* a shell starts background jobs with SIGINT ignored: undo it */
    signal(SIGINT, SIG_DFL);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 || (fd = signalfd(-1, &set, SFD_CLOEXEC | flags)) < 0) {
        perror("signalfd");
        exit(1);
    }
    return fd;
}

static inline void srv_ready(void)
{
    printf("ready\n");
    fflush(stdout);
}

#endif
