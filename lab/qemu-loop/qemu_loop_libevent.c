/* qemu-loop, system "libevent": per fd a persistent read event and a write event, as
 * libevent programs keep them; an interest change adds or deletes the write event
 * (one epoll_ctl MOD, applied at once); a turn is event_base_loop(EVLOOP_ONCE). */
#include <event2/event.h>

#include "qloop.h"

static struct event_base *base;
static struct event *rev[QL_MAXN], *wev[QL_MAXN];
static int ne;
static struct event *timer;

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what, (void)arg;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
    if (what & EV_READ)
        ql_consume(arg, fd);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what, (void)arg; /* a pipe's read end is never writable */
}

static int sys_options(int argc, char **argv)
{
    (void)argc, (void)argv;
    return 0;
}

static int sys_init(struct ql *q)
{
    base = event_base_new();
    if (!base) {
        fprintf(stderr, "event_base_new failed\n");
        return 1;
    }
    struct timeval tv = {QL_TIMEOUT_S, 0};
    timer = evtimer_new(base, on_timer, NULL);
    if (!timer || evtimer_add(timer, &tv) < 0) {
        fprintf(stderr, "evtimer failed\n");
        return 1;
    }
    for (ne = 0; ne < q->n; ne++) {
        rev[ne] = event_new(base, q->rfd[ne], EV_READ | EV_PERSIST, on_read, q);
        wev[ne] = event_new(base, q->rfd[ne], EV_WRITE | EV_PERSIST, on_write, q);
        if (!rev[ne] || !wev[ne] || event_add(rev[ne], NULL) < 0) {
            fprintf(stderr, "event_new/event_add failed\n");
            return 1;
        }
    }
    return 0;
}

static int sys_change(struct ql *q, int i)
{
    return (q->wr[i] ? event_add(wev[i], NULL) : event_del(wev[i])) < 0 ? -EIO : 0;
}

static int sys_turn(struct ql *q)
{
    (void)q;
    return event_base_loop(base, EVLOOP_ONCE) < 0 ? -EIO : 0;
}

static void sys_fini(struct ql *q)
{
    (void)q;
    for (int i = 0; i < ne; i++) {
        event_free(rev[i]);
        event_free(wev[i]);
    }
    if (timer)
        event_free(timer);
    event_base_free(base);
}

static const char *sys_json(void)
{
    return "\"system\":\"libevent\",\"case\":\"event_add/del + event_base_loop(ONCE)\"";
}
