/* fs-watch, vigil: one recursive watcher on the tree's root (<vigil/fswatch.h>), on the
 * backend VIGIL_BACKEND names (bench.py runs uring and epoll). */
#include "vigil.h"
#include "fsw.h"

static vigil_loop *loop;
static vigil_fswatch w;
static vigil_timer tick;
static long got[K_N], moved_out, moved_in, rescans, other;

static void on_event(vigil_loop *l, vigil_fswatch *fw, const struct vigil_fswatch_event *ev)
{
    (void)fw;
    switch (ev->kind) {
    case VIGIL_FS_CREATED:
        got[K_CREATE]++;
        fsw_took(1);
        break;
    case VIGIL_FS_MODIFIED:
        got[K_MODIFY]++;
        fsw_took(1);
        break;
    case VIGIL_FS_ATTRIB:
        got[K_ATTRIB]++;
        fsw_took(1);
        break;
    case VIGIL_FS_DELETED:
        got[K_DELETE]++;
        fsw_took(1);
        break;
    case VIGIL_FS_MOVED:
        got[K_MOVE]++;
        fsw_took(2);
        break;
    case VIGIL_FS_MOVED_OUT:
        moved_out++;
        fsw_took(1);
        break;
    case VIGIL_FS_MOVED_IN:
        moved_in++;
        fsw_took(1);
        break;
    case VIGIL_FS_RESCAN:
        rescans++;
        break;
    default:
        other++;
        break;
    }
    if (atomic_load_explicit(&fsw_sh->consumed, memory_order_relaxed) >= fsw_expect_raw)
        vigil_loop_stop(l);
}

static void on_tick(vigil_loop *l, vigil_timer *t)
{
    (void)t;
    if (fsw_finished())
        vigil_loop_stop(l);
}

static int sys_watch(void)
{
    int rc = vigil_loop_new(&loop, NULL);
    if (rc < 0)
        return rc;
    return vigil_fswatch_start(loop, &w, fsw_root, VIGIL_FSWATCH_RECURSIVE, on_event);
}

static void sys_run(void)
{
    vigil_timer_start(loop, &tick, CLOCK_MONOTONIC, 100000000, 100000000, 0, on_tick);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_timer_stop(loop, &tick);
    if (vigil_fswatch_count(&w) != FSW_DIRS + 1)
        fprintf(stderr, "vigil: %d watches for %d directories\n", vigil_fswatch_count(&w), FSW_DIRS + 1);
    vigil_fswatch_stop(loop, &w);
}

static long sys_lost(void)
{
    long lost = 0;
    long moves = got[K_MOVE] + (moved_out < moved_in ? moved_out : moved_in);
    for (int k = 0; k < K_N; k++) {
        long g = k == K_MOVE ? moves : got[k];
        lost += fsw_expect[k] > g ? fsw_expect[k] - g : 0;
    }
    if (rescans || other)
        fprintf(stderr, "vigil: %ld rescans, %ld other events\n", rescans, other);
    return lost;
}

static const char *sys_name(void)
{
    return "vigil";
}

static const char *sys_case(void)
{
    return "recursive";
}

static const char *sys_extra(void)
{
    static char b[64];
    snprintf(b, sizeof b, "\"backend\":\"%s\"", vigil_loop_backend(loop));
    return b;
}

int main(int argc, char **argv)
{
    int rc = fsw_main(argc, argv);
    if (loop)
        vigil_loop_free(loop);
    return rc;
}
