/* net-echo's libevent server (case "bufferevent"): an evconnlistener hands each
 * connection to a socket bufferevent whose read callback moves its input buffer to its
 * output buffer. CLI: srv.h (evsignal for SIGTERM and SIGINT). */
#include "srv.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

static void on_read(struct bufferevent *bev, void *arg)
{
    (void)arg;
    bufferevent_write_buffer(bev, bufferevent_get_input(bev));
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    (void)arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        bufferevent_free(bev);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len, void *arg)
{
    (void)sa;
    (void)len;
    (void)arg;
    struct event_base *base = evconnlistener_get_base(l);
    struct bufferevent *bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        close(fd);
        return;
    }
    bufferevent_setcb(bev, on_read, NULL, on_event, NULL);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    event_base_loopbreak(arg);
}

int main(int argc, char **argv)
{
    int port = srv_port(argc, argv);
    int lfd = srv_listen(port, SOCK_NONBLOCK);
    struct event_base *base = event_base_new();
    struct evconnlistener *l = evconnlistener_new(base, on_accept, NULL, LEV_OPT_CLOSE_ON_FREE, -1, lfd);
    struct event *sterm = evsignal_new(base, SIGTERM, on_signal, base);
    struct event *sint = evsignal_new(base, SIGINT, on_signal, base);
    if (!base || !l || !sterm || !sint || event_add(sterm, NULL) < 0 || event_add(sint, NULL) < 0) {
        fprintf(stderr, "libevent set-up failed\n");
        return 1;
    }
    srv_ready();
    event_base_dispatch(base);
    return 0;
}
