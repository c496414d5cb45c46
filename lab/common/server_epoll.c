/* The lab's hand-written epoll server (system "kernel", case "epoll"): level-triggered
 * epoll, one read and one write per ready connection (a write that does not take every
 * byte keeps the rest and waits for EPOLLOUT), non-blocking accept4 until EAGAIN.
 * Echoes (net-echo, net-fair echo), or with `http` answers each request read with
 * SRV_HTTP_ANSWER (net-fair http; the answers to one read in one write). CLI: srv.h. */
#include "srv.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>

struct conn {
    int fd;
    int http_state;  /* HTTP mode: srv_http_ends()'s state */
    struct srv_rest rest; /* what a short write left */
};

static char buf[65536];
static int http;

static void drop(int ep, struct conn *c)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->rest.buf);
    free(c);
}

int main(int argc, char **argv)
{
    int port = srv_args(argc, argv, &http);
    int sfd = srv_signalfd(SFD_NONBLOCK);
    int lfd = srv_listen(port, SOCK_NONBLOCK);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    static struct conn lconn, sconn;
    lconn.fd = lfd;
    sconn.fd = sfd;
    ev.data.ptr = &lconn;
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    ev.data.ptr = &sconn;
    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
    srv_ready();
    struct epoll_event evs[512];
    for (;;) {
        int n = epoll_wait(ep, evs, 512, -1);
        if (n < 0 && errno != EINTR) {
            perror("epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;
            if (c == &sconn)
                return 0;
            if (c == &lconn) {
                for (;;) {
                    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (fd < 0)
                        break;
                    struct conn *nc = calloc(1, sizeof *nc);
                    nc->fd = fd;
                    struct epoll_event e = {.events = EPOLLIN, .data.ptr = nc};
                    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0) {
                        close(fd);
                        free(nc);
                    }
                }
                continue;
            }
            if (c->rest.buf) { /* EPOLLOUT: the rest of a short write */
                int r = srv_rest_flush(&c->rest, c->fd);
                if (r < 0) {
                    drop(ep, c);
                } else if (r == 0) {
                    struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e);
                }
                continue;
            }
            ssize_t r = read(c->fd, buf, sizeof buf);
            if (r <= 0) {
                if (r == 0 || errno != EAGAIN)
                    drop(ep, c);
                continue;
            }
            const char *out = buf;
            char *big = NULL; /* HTTP: more answers than srv_http_many() holds */
            if (http) {
                unsigned k = srv_http_ends(&c->http_state, buf, (size_t)r);
                if (k == 0)
                    continue;
                r = (ssize_t)(k * SRV_HTTP_ANSWER_LEN);
                out = srv_http_many();
                if (k > SRV_HTTP_MANY) {
                    out = big = malloc((size_t)r);
                    for (unsigned a = 0; a < k; a++)
                        memcpy(big + (size_t)a * SRV_HTTP_ANSWER_LEN, SRV_HTTP_ANSWER, SRV_HTTP_ANSWER_LEN);
                }
            }
            ssize_t w = write(c->fd, out, (size_t)r);
            if (w < 0 && errno != EAGAIN) {
                free(big);
                drop(ep, c);
                continue;
            }
            if (w < r) {
                srv_rest_keep(&c->rest, out, w, r);
                struct epoll_event e = {.events = EPOLLOUT, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e);
            }
            free(big);
        }
    }
}
