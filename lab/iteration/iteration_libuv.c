/* iteration, system "libuv": one uv_poll_t per fd, uv_run(UV_RUN_ONCE) per turn. */
#include "iter_frame.h"

#include <uv.h>

static uv_loop_t loop;

static void cb(uv_poll_t *h, int status, int events)
{
    iter_ready((int)(intptr_t)h->data);
}

static int setup(int n, const int *fds, const char *backend)
{
    uv_poll_t *w = calloc((size_t)n, sizeof *w);
    if (!w || uv_loop_init(&loop) != 0)
        return 1;
    for (int i = 0; i < n; i++) {
        w[i].data = (void *)(intptr_t)fds[i];
        if (uv_poll_init(&loop, &w[i], fds[i]) != 0 || uv_poll_start(&w[i], UV_READABLE, cb) != 0) {
            fprintf(stderr, "uv_poll_start failed\n");
            return 1;
        }
    }
    return 0;
}

static void turn(void)
{
    uv_run(&loop, UV_RUN_ONCE);
}

int main(int argc, char **argv)
{
    struct iter_sys sys = {"libuv", "uv_run once", "", setup, turn};
    snprintf(sys.extra, sizeof sys.extra, "\"peer_version\":\"%s\"", uv_version_string());
    return iter_main(argc, argv, &sys);
}
