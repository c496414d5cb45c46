/* smallset, system "libev": ev_run(EVRUN_NOWAIT) with one ev_io on an idle pty. */
#include "smallset_peer.h"

#include <ev.h>

static struct ev_loop *loop;
static ev_io w;

static void cb(struct ev_loop *l, ev_io *io, int revents)
{
    smallset_fired = 1;
}

static int setup(int fd, const char *backend)
{
    loop = ev_loop_new(EVFLAG_AUTO);
    if (!loop) {
        fprintf(stderr, "ev_loop_new failed\n");
        return 1;
    }
    ev_io_init(&w, cb, fd, EV_READ);
    ev_io_start(loop, &w);
    return 0;
}

static void turn(void)
{
    ev_run(loop, EVRUN_NOWAIT);
}

static const char *backend_name(unsigned b)
{
    switch (b) {
    case EVBACKEND_EPOLL: return "epoll";
    case EVBACKEND_POLL: return "poll";
    case EVBACKEND_SELECT: return "select";
    default: return "other";
    }
}

int main(int argc, char **argv)
{
    struct ev_loop *probe = ev_loop_new(EVFLAG_AUTO);
    char extra[96];
    snprintf(extra, sizeof extra, "\"fds\":1,\"peer_backend\":\"%s\",\"peer_version\":\"%d.%d\"",
             probe ? backend_name(ev_backend(probe)) : "?", ev_version_major(), ev_version_minor());
    if (probe)
        ev_loop_destroy(probe);
    smallset_run(argc, argv, "libev", "ev_run nowait", extra, setup, turn);
    return 0;
}
