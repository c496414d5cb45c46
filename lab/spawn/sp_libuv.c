/* spawn, libuv: uv_spawn of /bin/true (stdio inherited), the exit learned by libuv's
 * SIGCHLD handling; the handle is closed and started again from its close callback. */
#include "sp.h"

#include <uv.h>

static struct sp_point pt;
static uv_process_options_t opts;
static uv_process_t procs[SP_MAX_INFLIGHT];
static int64_t started_at[SP_MAX_INFLIGHT];
static uv_loop_t *loop;

static void on_exit_(uv_process_t *p, int64_t status, int sig);

static void start(uv_process_t *p)
{
    started_at[p - procs] = bench_now_ns();
    int r = uv_spawn(loop, p, &opts);
    if (r < 0) {
        fprintf(stderr, "uv_spawn: %s\n", uv_strerror(r));
        exit(1);
    }
}

static void on_closed(uv_handle_t *h)
{
    if (sp_more(&pt))
        start((uv_process_t *)h);
}

static void on_exit_(uv_process_t *p, int64_t status, int sig)
{
    if (status != 0 || sig != 0) {
        fprintf(stderr, "child: status %lld signal %d\n", (long long)status, sig);
        exit(1);
    }
    sp_ended(&pt, started_at[p - procs]);
    uv_close((uv_handle_t *)p, on_closed);
}

int main(int argc, char **argv)
{
    struct sp_args a = sp_parse(argc, argv);
    sp_grow(a.rss_mb);
    loop = uv_default_loop();
    static char *cargv[] = {SP_PROG, NULL};
    static uv_stdio_container_t stdio[3];
    for (int i = 0; i < 3; i++) {
        stdio[i].flags = UV_INHERIT_FD;
        stdio[i].data.fd = i;
    }
    opts.file = SP_PROG;
    opts.args = cargv;
    opts.exit_cb = on_exit_;
    opts.stdio = stdio;
    opts.stdio_count = 3;
    for (int k = 0; k < a.n_inflight; k++) {
        sp_begin(&pt, a.ms, a.inflight[k]);
        for (int i = 0; i < a.inflight[k]; i++)
            start(&procs[i]);
        uv_run(loop, UV_RUN_DEFAULT);
        sp_emit(&pt, "libuv", "", a.inflight[k], a.rss_mb, NULL);
    }
    uv_loop_close(loop);
    return 0;
}
