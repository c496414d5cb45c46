/* ctl-batch, system "libuv": k uv_poll_start() calls, applied by one
 * uv_run(UV_RUN_NOWAIT). libuv 1.44 (Debian's) handles uv_poll_start on a started handle
 * as stop + start: the stop removes the fd from epoll at once (EPOLL_CTL_DEL), the start
 * is recorded and applied in the next turn (EPOLL_CTL_ADD), so a change costs two
 * epoll_ctl; the turn then makes one epoll_wait(..., 0), updates its clock and runs its
 * (empty) timer, idle, prepare and check queues. libuv 1.45+ would send its epoll_ctls
 * through io_uring instead. */
#include <uv.h>

#include "ctlb.h"

static uv_loop_t loop;
static uv_poll_t h[CTLB_MAXK];
static int nh;

static void on_poll(uv_poll_t *p, int status, int events)
{
    (void)p, (void)status, (void)events; /* a pipe's read end with no data never fires */
}

static int sys_init(int n, const int *rfd)
{
    int r = uv_loop_init(&loop);
    if (r < 0) {
        fprintf(stderr, "uv_loop_init: %s\n", uv_strerror(r));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if ((r = uv_poll_init(&loop, &h[i], rfd[i])) < 0 || (r = uv_poll_start(&h[i], UV_READABLE, on_poll)) < 0) {
            fprintf(stderr, "uv_poll: %s\n", uv_strerror(r));
            return 1;
        }
        nh++;
    }
    uv_run(&loop, UV_RUN_NOWAIT);
    return 0;
}

static int sys_batch(const int *rfd, int k, int on)
{
    (void)rfd;
    int ev = on ? UV_READABLE | UV_WRITABLE : UV_READABLE;
    for (int i = 0; i < k; i++) {
        int r = uv_poll_start(&h[i], ev, on_poll);
        if (r < 0)
            return r;
    }
    uv_run(&loop, UV_RUN_NOWAIT);
    return 0;
}

static void sys_fini(void)
{
    for (int i = 0; i < nh; i++)
        uv_close((uv_handle_t *)&h[i], NULL);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_loop_close(&loop);
}

static const char *sys_json(void)
{
    return "\"system\":\"libuv\",\"case\":\"uv_poll_start + uv_run(NOWAIT): 2 epoll_ctl per change + epoll_wait 0\"";
}
