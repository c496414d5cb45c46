/* An echo server on TCP loopback written with readiness: vigil says a connection is
 * readable or writable, the program calls read() and write() itself. echo_server.c is
 * the same server on the sockets API (completions), which is what to start from.
 *
 *   ./echo_server_ready [port]       then: printf 'hello\n' | nc -q1 127.0.0.1 7007
 *
 * Each connection embeds its watcher, so accepting one allocates only the connection
 * itself. SIGINT stops the loop through a signal watcher. */
#include <vigil.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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
    int port = argc > 1 ? atoi(argv[1]) : 7007;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 128) < 0) {
        perror("listen");
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
    printf("echo on 127.0.0.1:%d, backend %s\n", port, vigil_loop_backend(loop));
    fflush(stdout);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_loop_free(loop);
    close(lfd);
    return 0;
}
