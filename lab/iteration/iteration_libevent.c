/* iteration, system "libevent": one persistent read event per fd,
 * event_base_loop(EVLOOP_ONCE) per turn. */
#include "iter_frame.h"

#include <event2/event.h>

static struct event_base *base;

static void cb(evutil_socket_t fd, short what, void *arg)
{
    iter_ready(fd);
}

static int setup(int n, const int *fds, const char *backend)
{
    base = event_base_new();
    if (!base)
        return 1;
    for (int i = 0; i < n; i++) {
        struct event *ev = event_new(base, fds[i], EV_READ | EV_PERSIST, cb, NULL);
        if (!ev || event_add(ev, NULL) != 0) {
            fprintf(stderr, "event_add failed\n");
            return 1;
        }
    }
    return 0;
}

static void turn(void)
{
    event_base_loop(base, EVLOOP_ONCE);
}

int main(int argc, char **argv)
{
    struct iter_sys sys = {"libevent", "event_base_loop once", "", setup, turn};
    struct event_base *probe = event_base_new();
    snprintf(sys.extra, sizeof sys.extra, "\"peer_backend\":\"%s\",\"peer_version\":\"%s\"",
             probe ? event_base_get_method(probe) : "?", event_get_version());
    if (probe)
        event_base_free(probe);
    return iter_main(argc, argv, &sys);
}
