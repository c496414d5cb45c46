/* An echo server on TCP loopback, on vigil's sockets API (<vigil/net.h>): the program
 * asks for the work and vigil reports it done. Data arrives in the loop's buffers; each
 * buffer is sent back as it is and returned to the pool when its send completes, so no
 * byte is copied in user space. On io_uring a round trip costs no system call of its
 * own (the receive and the send ride the turn's one io_uring_enter); on epoll and poll,
 * one recv and one send.
 *
 *   ./echo_server [port|address]  prints "ready" once listening; SIGINT/SIGTERM stop it
 *   printf 'hello\n' | nc -q1 127.0.0.1 7007
 *   VIGIL_BACKEND=epoll ./echo_server 7007
 *   ./echo_server '[::1]:7007'    ./echo_server /tmp/echo.sock    ./echo_server @echo
 * A port alone listens on 127.0.0.1; any other argument is an address as
 * vigil_net_listen(3) reads it (IPv4, [IPv6], a Unix path, @abstract).
 *
 * A connection allocates once, at accept (64-byte aligned, see struct conn). A peer
 * that sends faster than it reads gets back-pressure: with SENDS_MAX echoes queued, the
 * connection stops receiving until one completes (the data waits in the kernel).
 *
 * A connection ends once it will receive nothing more (the peer's end, an error, a
 * failed send, the shutdown) and its last echo has ended: after a half-close every
 * byte received is echoed before the close, and a failed send does not close the
 * socket under the echoes still queued (they fail on their own; the last one closes).
 *
 * SIGTERM or SIGINT: stop accepting, stop receiving, let the echoes in flight finish
 * for at most SHUTDOWN_MS (2 s), then close every connection, free the loop, exit 0.
 * SIGUSR1 prints one line of counters on stdout ("stats conns=... bufs_lent=..."). */
#include <vigil.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SENDS_MAX 4
#define SHUTDOWN_MS 2000

/* Allocated 64-byte aligned: vigil keeps what a round trip touches of a socket in its
 * first 64 bytes, and this keeps busy and the first send in the line after the socket. */
struct conn {
    vigil_sock sock;
    unsigned busy;                 /* sends in flight */
    bool receiving;
    bool done;                     /* nothing more to receive: close after the last echo */
    bool closed;                   /* vigil_sock_close was called */
    vigil_net_req send[SENDS_MAX]; /* req.data: the buffer it echoes */
    struct conn *prev, *next;      /* every open connection, for the shutdown */
};

static struct conn *conns;
static unsigned nconns;
static bool stopping;

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf);

static void on_closed(vigil_loop *loop, vigil_sock *s)
{
    free(s->data);
    if (--nconns == 0 && stopping)
        vigil_loop_stop(loop);
}

static void close_conn(vigil_loop *loop, struct conn *c)
{
    if (c->closed)
        return;
    c->closed = true;
    if (c->prev)
        c->prev->next = c->next;
    else
        conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    vigil_sock_close(loop, &c->sock, on_closed);
}

/* Nothing more will be received: stop, and close once the last echo has ended. */
static void finish(vigil_loop *loop, struct conn *c)
{
    c->done = true;
    if (c->receiving) {
        vigil_sock_recv_stop(loop, &c->sock);
        c->receiving = false;
    }
    if (!c->busy)
        close_conn(loop, c);
}

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct conn *c = req->sock->data;
    vigil_buf_put(loop, req->data);
    req->data = NULL;
    c->busy--;
    if (res < 0 || c->done) { /* the peer went away, or the end came before this echo */
        finish(loop, c);
        return;
    }
    if (!c->receiving && vigil_sock_recv_start(loop, &c->sock, on_data) == 0)
        c->receiving = true;
}

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    struct conn *c = s->data;
    if (n <= 0) { /* end of stream or an error: the stream has stopped */
        c->receiving = false;
        finish(loop, c);
        return;
    }
    vigil_net_req *req = NULL;
    for (int i = 0; i < SENDS_MAX && !req; i++)
        if (!c->send[i].data)
            req = &c->send[i];
    req->data = buf; /* a free one exists: receiving stops when the last is taken */
    if (vigil_sock_send(loop, s, req, buf->data, buf->len, on_sent) < 0) {
        req->data = NULL;
        vigil_buf_put(loop, buf);
        finish(loop, c);
        return;
    }
    if (++c->busy == SENDS_MAX) {
        vigil_sock_recv_stop(loop, s);
        c->receiving = false;
    }
}

static void on_accept(vigil_loop *loop, vigil_sock *listener, int fd)
{
    (void)listener;
    if (fd < 0) { /* -EMFILE: vigil pauses accepting for a while by itself */
        fprintf(stderr, "accept: %s\n", strerror(-fd));
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    size_t size = (sizeof(struct conn) + 63) & ~(size_t)63; /* aligned_alloc wants a multiple */
    struct conn *c = aligned_alloc(64, size);
    if (c)
        memset(c, 0, sizeof *c);
    if (!c || vigil_sock_open(loop, &c->sock, fd) < 0) {
        free(c);
        close(fd);
        return;
    }
    c->sock.data = c;
    c->next = conns;
    if (conns)
        conns->prev = c;
    conns = c;
    nconns++;
    if (vigil_sock_recv_start(loop, &c->sock, on_data) == 0)
        c->receiving = true;
    else
        close_conn(loop, c);
}

static vigil_sock listener;
static vigil_timer deadline;

static void close_all(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    while (conns)
        close_conn(loop, conns);
}

/* SIGTERM, SIGINT: the graceful shutdown (a second signal closes everything now). */
static void on_signal(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w, (void)si;
    if (stopping) {
        close_all(loop, NULL);
        return;
    }
    stopping = true;
    vigil_sock_close(loop, &listener, NULL);
    for (struct conn *c = conns, *next; c; c = next) {
        next = c->next;
        finish(loop, c);
    }
    if (nconns == 0)
        vigil_loop_stop(loop);
    else if (vigil_timer_start(loop, &deadline, CLOCK_MONOTONIC, SHUTDOWN_MS * 1000000LL, 0, 0, close_all) < 0)
        close_all(loop, NULL);
}

static void on_stats(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w, (void)si;
    printf("stats conns=%u bufs_lent=%u\n", nconns, vigil_net_bufs_lent(loop));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    char addr[64];
    const char *where = argc > 1 ? argv[1] : "7007";
    if (strspn(where, "0123456789") == strlen(where)) { /* a port alone: loopback */
        snprintf(addr, sizeof addr, "127.0.0.1:%s", where);
        where = addr;
    }
    int lfd = vigil_net_listen(where, 4096, 0);
    if (lfd < 0) {
        fprintf(stderr, "listen %s: %s\n", where, strerror(-lfd));
        return 1;
    }
    vigil_loop *loop;
    int r = vigil_loop_new(&loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    vigil_signal sigint = {0}, sigterm = {0}, sigusr1 = {0};
    if ((r = vigil_sock_open(loop, &listener, lfd)) < 0 || (r = vigil_sock_accept_start(loop, &listener, on_accept)) < 0 ||
        (r = vigil_signal_start(loop, &sigint, SIGINT, on_signal)) < 0 ||
        (r = vigil_signal_start(loop, &sigterm, SIGTERM, on_signal)) < 0 ||
        (r = vigil_signal_start(loop, &sigusr1, SIGUSR1, on_stats)) < 0) {
        fprintf(stderr, "setup: %s\n", strerror(-r));
        return 1;
    }
    fprintf(stderr, "echo on %s, backend %s\n", where, vigil_loop_backend(loop));
    printf("ready\n");
    fflush(stdout);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT); /* until the shutdown closed every connection */
    vigil_loop_free(loop);
    return 0;
}
