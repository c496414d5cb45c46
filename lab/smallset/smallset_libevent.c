/* smallset, system "libevent": event_base_loop(EVLOOP_NONBLOCK|EVLOOP_ONCE) with one persistent
 * read event on an idle pty. */
#include "smallset_peer.h"

#include <event2/event.h>

static struct event_base *base;

static void cb(evutil_socket_t fd, short what, void *arg)
{
    smallset_fired = 1;
}

static int setup(int fd, const char *backend)
{
    base = event_base_new();
    struct event *ev = base ? event_new(base, fd, EV_READ | EV_PERSIST, cb, NULL) : NULL;
    if (!ev || event_add(ev, NULL) != 0) {
        fprintf(stderr, "libevent setup failed\n");
        return 1;
    }
    return 0;
}

static void turn(void)
{
    /* NONBLOCK alone repeats while callbacks are active: with ONCE it is one turn */
    event_base_loop(base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
}

int main(int argc, char **argv)
{
    struct event_base *probe = event_base_new();
    char extra[128];
    snprintf(extra, sizeof extra, "\"fds\":1,\"peer_backend\":\"%s\",\"peer_version\":\"%s\"",
             probe ? event_base_get_method(probe) : "?", event_get_version());
    if (probe)
        event_base_free(probe);
    smallset_run(argc, argv, "libevent", "event_base_loop nonblock", extra, setup, turn);
    return 0;
}
