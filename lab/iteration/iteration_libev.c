/* iteration, system "libev": one ev_io per fd, ev_run(EVRUN_ONCE) per turn. */
#include "iter_frame.h"

#include <ev.h>

static struct ev_loop *loop;

static void cb(struct ev_loop *l, ev_io *w, int revents)
{
    iter_ready(w->fd);
}

static int setup(int n, const int *fds, const char *backend)
{
    ev_io *w = calloc((size_t)n, sizeof *w);
    loop = ev_loop_new(EVFLAG_AUTO);
    if (!w || !loop)
        return 1;
    for (int i = 0; i < n; i++) {
        ev_io_init(&w[i], cb, fds[i], EV_READ);
        ev_io_start(loop, &w[i]);
    }
    return 0;
}

static void turn(void)
{
    ev_run(loop, EVRUN_ONCE);
}

int main(int argc, char **argv)
{
    struct iter_sys sys = {"libev", "ev_run once", "", setup, turn};
    struct ev_loop *probe = ev_loop_new(EVFLAG_AUTO);
    snprintf(sys.extra, sizeof sys.extra, "\"peer_backend\":\"%s\",\"peer_version\":\"%d.%d\"",
             probe && ev_backend(probe) == EVBACKEND_EPOLL ? "epoll" : "other", ev_version_major(),
             ev_version_minor());
    if (probe)
        ev_loop_destroy(probe);
    return iter_main(argc, argv, &sys);
}
