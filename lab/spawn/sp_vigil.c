/* spawn, vigil: vigil_proc_start of /bin/true, the exit learned through the pidfd
 * watcher (VIGIL_BACKEND picks the backend; bench.py runs the default, io_uring). */
#include "sp.h"

#include <vigil.h>

static struct sp_point pt;
static struct vigil_proc_options opts;
static vigil_proc procs[SP_MAX_INFLIGHT];
static int64_t started_at[SP_MAX_INFLIGHT];

static void on_exit_(vigil_loop *loop, vigil_proc *p, int status, int sig);

static void start(vigil_loop *loop, vigil_proc *p)
{
    int i = (int)(p - procs);
    started_at[i] = bench_now_ns();
    int r = vigil_proc_start(loop, p, &opts, on_exit_);
    if (r < 0) {
        fprintf(stderr, "vigil_proc_start: %s\n", strerror(-r));
        exit(1);
    }
}

static void on_exit_(vigil_loop *loop, vigil_proc *p, int status, int sig)
{
    if (status != 0 || sig != 0) {
        fprintf(stderr, "child: status %d signal %d\n", status, sig);
        exit(1);
    }
    sp_ended(&pt, started_at[p - procs]);
    if (sp_more(&pt))
        start(loop, p);
}

int main(int argc, char **argv)
{
    struct sp_args a = sp_parse(argc, argv);
    sp_grow(a.rss_mb);
    vigil_loop *loop;
    if (vigil_loop_new(&loop, NULL) < 0)
        return 1;
    static char *const cargv[] = {SP_PROG, NULL};
    vigil_proc_options_init(&opts);
    opts.file = SP_PROG;
    opts.argv = cargv;
    for (int k = 0; k < a.n_inflight; k++) {
        sp_begin(&pt, a.ms, a.inflight[k]);
        for (int i = 0; i < a.inflight[k]; i++)
            start(loop, &procs[i]);
        vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
        char extra[64];
        snprintf(extra, sizeof extra, "\"backend\":\"%s\"", vigil_loop_backend(loop));
        sp_emit(&pt, "vigil", "", a.inflight[k], a.rss_mb, extra);
    }
    vigil_loop_free(loop);
    return 0;
}
