/* net-echo's libev server (case "ev_io"): an ev_io read watcher per connection, one
 * read and one write per ready connection; what a write did not take waits for an ev_io
 * write watcher. CLI: srv.h (ev_signal for SIGTERM and SIGINT). */
#include "srv.h"

#include <errno.h>
#include <ev.h>
#include <stddef.h>
#include <sys/socket.h>

struct conn {
    ev_io rd, wr;
    struct srv_rest rest; /* what a short write left */
};

static char buf[65536];

static void drop(struct ev_loop *loop, struct conn *c)
{
    ev_io_stop(loop, &c->rd);
    ev_io_stop(loop, &c->wr);
    close(c->rd.fd);
    free(c->rest.buf);
    free(c);
}

static void on_write(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    struct conn *c = (struct conn *)((char *)w - offsetof(struct conn, wr));
    int r = srv_rest_flush(&c->rest, w->fd);
    if (r < 0) {
        drop(loop, c);
        return;
    }
    if (r == 0) {
        ev_io_stop(loop, &c->wr);
        ev_io_start(loop, &c->rd);
    }
}

static void on_read(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    struct conn *c = (struct conn *)w;
    ssize_t r = read(w->fd, buf, sizeof buf);
    if (r <= 0) {
        if (r == 0 || errno != EAGAIN)
            drop(loop, c);
        return;
    }
    ssize_t n = write(w->fd, buf, (size_t)r);
    if (n < 0 && errno != EAGAIN) {
        drop(loop, c);
        return;
    }
    if (n < r) { /* keep the rest, stop reading until it is written */
        srv_rest_keep(&c->rest, buf, n, r);
        ev_io_stop(loop, &c->rd);
        ev_io_start(loop, &c->wr);
    }
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)revents;
    for (;;) {
        int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        struct conn *c = calloc(1, sizeof *c);
        ev_io_init(&c->rd, on_read, fd, EV_READ);
        ev_io_init(&c->wr, on_write, fd, EV_WRITE);
        ev_io_start(loop, &c->rd);
    }
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

int main(int argc, char **argv)
{
    int port = srv_port(argc, argv);
    int lfd = srv_listen(port, SOCK_NONBLOCK);
    struct ev_loop *loop = ev_default_loop(0);
    if (!loop) {
        fprintf(stderr, "ev_default_loop failed\n");
        return 1;
    }
    ev_io acc;
    ev_signal sterm, sint;
    ev_io_init(&acc, on_accept, lfd, EV_READ);
    ev_io_start(loop, &acc);
    ev_signal_init(&sterm, on_signal, SIGTERM);
    ev_signal_init(&sint, on_signal, SIGINT);
    ev_signal_start(loop, &sterm);
    ev_signal_start(loop, &sint);
    srv_ready();
    ev_run(loop, 0);
    return 0;
}
