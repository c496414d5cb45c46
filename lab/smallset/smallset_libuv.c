/* smallset, system "libuv": uv_run(UV_RUN_NOWAIT) with one uv_poll_t on an idle pty. */
#include "smallset_peer.h"

#include <uv.h>

static uv_loop_t loop;
static uv_poll_t w;

static void cb(uv_poll_t *h, int status, int events)
{
    smallset_fired = 1;
}

static int setup(int fd, const char *backend)
{
    if (uv_loop_init(&loop) != 0 || uv_poll_init(&loop, &w, fd) != 0 || uv_poll_start(&w, UV_READABLE, cb) != 0) {
        fprintf(stderr, "libuv setup failed\n");
        return 1;
    }
    return 0;
}

static void turn(void)
{
    uv_run(&loop, UV_RUN_NOWAIT);
}

int main(int argc, char **argv)
{
    char extra[96];
    snprintf(extra, sizeof extra, "\"fds\":1,\"peer_version\":\"%s\"", uv_version_string());
    smallset_run(argc, argv, "libuv", "uv_run nowait", extra, setup, turn);
    return 0;
}
