/* timer-error, system "libev": ev_timer takes fractional seconds and is asked for the
 * exact delay (libev itself rounds its epoll_wait timeout up to whole ms); re-armed from
 * its callback (libev counts it from its cached ev_now). */
#include "te.h"

#include <ev.h>

static struct te t;
static int64_t deadline;

static void cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    int64_t now = bench_now_ns();
    if (te_record(&t, now - deadline))
        return;
    deadline = bench_now_ns() + t.delay_ns;
    ev_timer_set(w, (double)t.delay_ns / 1e9, 0.);
    ev_timer_start(loop, w);
}

int main(int argc, char **argv)
{
    te_init(&t, argc, argv, "libev", "timer");
    struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
    ev_timer w;
    ev_timer_init(&w, cb, (double)t.delay_ns / 1e9, 0.);
    deadline = bench_now_ns() + t.delay_ns;
    ev_timer_start(loop, &w);
    ev_run(loop, 0);
    te_finish(&t);
    return 0;
}
