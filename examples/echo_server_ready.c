/* An echo server on TCP loopback written with readiness: vigil says a connection is
 * readable or writable, the program calls read() and write() itself. echo_server.c is
 * the same server on the sockets API (completions), which is what to start from.
 *
 *   ./echo_server_ready [port|address]   then: printf 'hello\n' | nc -q1 127.0.0.1 7007
 *   (a port alone listens on 127.0.0.1; else an address as vigil_net_listen(3) reads it)
 *
 * Each connection embeds its watcher, so accepting one allocates only the connection
 * itself. SIGINT stops the loop through a signal watcher. */
#include <vigil.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
    vigil_io io;
    char buf[4096];
    size_t len; /* bytes read, not yet written back */
};

static void close_conn(vigil_loop *loop, struct conn *c)
{
    vigil_io_stop(loop, &c->io);
    close(c->io.fd);
    free(c);
}

static void on_conn(vigil_loop *loop, vigil_io *w, int revents)
{
    struct conn *c = (struct conn *)w; /* io is the first member */
    if (revents < 0) {                 /* registration failed */
        close_conn(loop, c);
        return;
    }
    if (c->len == 0) {
        ssize_t n = read(w->fd, c->buf, sizeof c->buf);
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            close_conn(loop, c);
            return;
        }
        if (n > 0) {
            c->len = (size_t)n;
            vigil_io_modify(loop, w, VIGIL_WRITE); /* wait for room, then echo */
        }
        return;
    }
    ssize_t n = write(w->fd, c->buf, c->len);
    if (n < 0 && errno != EAGAIN) {
        close_conn(loop, c);
        return;
    }
    if (n > 0) {
        memmove(c->buf, c->buf + n, c->len - (size_t)n);
        c->len -= (size_t)n;
    }
    if (c->len == 0)
        vigil_io_modify(loop, w, VIGIL_READ);
}

static void on_accept(vigil_loop *loop, vigil_io *w, int revents)
{
    if (revents < 0)
        return;
    int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct conn *c = calloc(1, sizeof *c);
    if (!c || vigil_io_start(loop, &c->io, fd, VIGIL_READ, on_conn) < 0) {
        free(c);
        close(fd);
    }
}

static void on_sigint(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w;
    (void)si;
    vigil_loop_stop(loop);
}

int main(int argc, char **argv)
{
    char addr[64];
    const char *where = argc > 1 ? argv[1] : "7007";
    if (strspn(where, "0123456789") == strlen(where)) { /* a port alone: loopback */
        snprintf(addr, sizeof addr, "127.0.0.1:%s", where);
        where = addr;
    }
    int lfd = vigil_net_listen(where, 128, 0); /* non-blocking: accept4 below never blocks */
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
    vigil_io acceptor = {0};
    vigil_signal sigint = {0};
    vigil_io_start(loop, &acceptor, lfd, VIGIL_READ, on_accept);
    vigil_signal_start(loop, &sigint, SIGINT, on_sigint);
    printf("echo on %s, backend %s\n", where, vigil_loop_backend(loop));
    fflush(stdout);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_loop_free(loop);
    close(lfd);
    return 0;
}
