/* qemu-loop, system "libev": one ev_io per fd on its default (epoll) backend; an interest
 * change is ev_io_stop + ev_io_set + ev_io_start (libev applies it at the next ev_run,
 * one epoll_ctl); a turn is ev_run(EVRUN_ONCE). */
#include <ev.h>

#include "qloop.h"

static struct ev_loop *loop;
static ev_io w[QL_MAXN];
static int nw;
static struct ql *qq;
static ev_timer timer;

static void on_timer(struct ev_loop *l, ev_timer *t, int revents)
{
    (void)l, (void)t, (void)revents;
}

static void on_io(struct ev_loop *l, ev_io *io, int revents)
{
    (void)l;
    if (revents & EV_READ)
        ql_consume(qq, io->fd);
}

static int sys_options(int argc, char **argv)
{
    (void)argc, (void)argv;
    return 0;
}

static int sys_init(struct ql *q)
{
    qq = q;
    loop = ev_loop_new(EVFLAG_AUTO);
    if (!loop) {
        fprintf(stderr, "ev_loop_new failed\n");
        return 1;
    }
    ev_timer_init(&timer, on_timer, QL_TIMEOUT_S, 0.);
    ev_timer_start(loop, &timer);
    for (nw = 0; nw < q->n; nw++) {
        ev_io_init(&w[nw], on_io, q->rfd[nw], EV_READ);
        ev_io_start(loop, &w[nw]);
    }
    return 0;
}

static int sys_change(struct ql *q, int i)
{
    ev_io_stop(loop, &w[i]);
    ev_io_set(&w[i], q->rfd[i], q->wr[i] ? EV_READ | EV_WRITE : EV_READ);
    ev_io_start(loop, &w[i]);
    return 0;
}

static int sys_turn(struct ql *q)
{
    (void)q;
    ev_run(loop, EVRUN_ONCE);
    return 0;
}

static void sys_fini(struct ql *q)
{
    (void)q;
    for (int i = 0; i < nw; i++)
        ev_io_stop(loop, &w[i]);
    ev_timer_stop(loop, &timer);
    ev_loop_destroy(loop);
}

static const char *sys_json(void)
{
    return "\"system\":\"libev\",\"case\":\"ev_io + ev_run(ONCE)\"";
}
