/* qemu-loop, system "libuv": one uv_poll_t per fd; an interest change is
 * uv_poll_start(new mask) (libuv 1.44: epoll_ctl DEL at once, ADD in the turn); a turn is
 * uv_run(UV_RUN_ONCE). */
#include <uv.h>

#include "qloop.h"

static uv_loop_t loop;
static uv_poll_t h[QL_MAXN];
static int nh;
static uv_timer_t timer;

static void on_timer(uv_timer_t *t)
{
    (void)t;
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    uv_os_fd_t fd;
    if (status == 0 && (events & UV_READABLE) && uv_fileno((uv_handle_t *)p, &fd) == 0)
        ql_consume(p->data, fd);
}

static int sys_options(int argc, char **argv)
{
    (void)argc, (void)argv;
    return 0;
}

static int sys_init(struct ql *q)
{
    int r = uv_loop_init(&loop);
    if (r < 0) {
        fprintf(stderr, "uv_loop_init: %s\n", uv_strerror(r));
        return 1;
    }
    uv_timer_init(&loop, &timer);
    uv_timer_start(&timer, on_timer, QL_TIMEOUT_S * 1000, 0);
    for (nh = 0; nh < q->n; nh++) {
        if ((r = uv_poll_init(&loop, &h[nh], q->rfd[nh])) < 0) {
            fprintf(stderr, "uv_poll_init: %s\n", uv_strerror(r));
            return 1;
        }
        h[nh].data = q;
        if ((r = uv_poll_start(&h[nh], UV_READABLE, on_poll)) < 0) {
            fprintf(stderr, "uv_poll_start: %s\n", uv_strerror(r));
            return 1;
        }
    }
    return 0;
}

static int sys_change(struct ql *q, int i)
{
    return uv_poll_start(&h[i], q->wr[i] ? UV_READABLE | UV_WRITABLE : UV_READABLE, on_poll);
}

static int sys_turn(struct ql *q)
{
    (void)q;
    uv_run(&loop, UV_RUN_ONCE);
    return 0;
}

static void sys_fini(struct ql *q)
{
    (void)q;
    for (int i = 0; i < nh; i++)
        uv_close((uv_handle_t *)&h[i], NULL);
    uv_close((uv_handle_t *)&timer, NULL);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_loop_close(&loop);
}

static const char *sys_json(void)
{
    return "\"system\":\"libuv\",\"case\":\"uv_poll + uv_run(ONCE)\"";
}
