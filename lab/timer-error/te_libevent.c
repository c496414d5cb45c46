/* timer-error, system "libevent": evtimer_add with a us timeval, asked for the exact
 * delay (libevent's epoll backend rounds its wait up to whole ms unless it was built
 * with epoll_pwait2); re-armed from its callback. Default base, no flags. */
#include "te.h"

#include <event2/event.h>

static struct te t;
static int64_t deadline;
static struct event *ev;

static void cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    int64_t now = bench_now_ns();
    if (te_record(&t, now - deadline))
        return;
    deadline = bench_now_ns() + t.delay_ns;
    struct timeval tv = {(time_t)(t.delay_us / 1000000), (suseconds_t)(t.delay_us % 1000000)};
    evtimer_add(ev, &tv);
}

int main(int argc, char **argv)
{
    te_init(&t, argc, argv, "libevent", "timer");
    struct event_base *base = event_base_new();
    ev = evtimer_new(base, cb, NULL);
    struct timeval tv = {(time_t)(t.delay_us / 1000000), (suseconds_t)(t.delay_us % 1000000)};
    deadline = bench_now_ns() + t.delay_ns;
    evtimer_add(ev, &tv);
    event_base_dispatch(base);
    te_finish(&t);
    event_free(ev);
    event_base_free(base);
    return 0;
}
