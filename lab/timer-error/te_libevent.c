/* timer-error, system "libevent": evtimer_add with a us timeval, asked for the exact
 * delay (libevent's epoll backend rounds its wait up to whole ms unless it was built
 * with epoll_pwait2, and by default reads CLOCK_MONOTONIC_COARSE); re-armed from its
 * callback. Default base; --precise 1 sets EVENT_BASE_FLAG_PRECISE_TIMER. */
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
    /* --precise: EVENT_BASE_FLAG_PRECISE_TIMER (a fine monotonic clock instead of the
     * coarse one, and a timerfd for the epoll wait), the flag a user would have to know */
    bool precise = te_opt(argc, argv, "--precise") != NULL;
    te_init(&t, argc, argv, "libevent", precise ? "timer, PRECISE_TIMER flag" : "timer");
    struct event_base *base;
    if (precise) {
        struct event_config *cfg = event_config_new();
        event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
        base = event_base_new_with_config(cfg);
        event_config_free(cfg);
    } else {
        base = event_base_new();
    }
    if (!base) {
        fprintf(stderr, "event_base_new failed\n");
        return 1;
    }
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
