/* fs-watch, libuv: uv_fs_event on every directory, what a libuv user must do on Linux
 * (libuv has no recursive watching there). libuv keeps one inotify instance per loop
 * and calls each handle's callback once per inotify event (UV_CHANGE for modify and
 * attributes, UV_RENAME for the rest: a rename is two callbacks). */
#include <uv.h>

#include "fsw.h"

static uv_loop_t *loop;
static uv_fs_event_t h[FSW_DIRS];
static uv_timer_t tick;
static long changes, renames, errors;

static void on_event(uv_fs_event_t *handle, const char *filename, int events, int status)
{
    (void)handle, (void)filename;
    if (status < 0) {
        errors++;
        return;
    }
    if (events & UV_CHANGE)
        changes++;
    if (events & UV_RENAME)
        renames++;
    fsw_took(1);
    if (atomic_load_explicit(&fsw_sh->consumed, memory_order_relaxed) >= fsw_expect_raw)
        uv_stop(loop);
}

static void on_tick(uv_timer_t *t)
{
    if (fsw_finished())
        uv_stop(t->loop);
}

static int sys_watch(void)
{
    loop = uv_default_loop();
    for (int i = 0; i < FSW_DIRS; i++) {
        int rc = uv_fs_event_init(loop, &h[i]);
        if (rc == 0)
            rc = uv_fs_event_start(&h[i], on_event, fsw_dir[i], 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void sys_run(void)
{
    uv_timer_init(loop, &tick);
    uv_timer_start(&tick, on_tick, 100, 100);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_timer_stop(&tick);
    for (int i = 0; i < FSW_DIRS; i++)
        uv_fs_event_stop(&h[i]);
}

static long sys_lost(void)
{
    long want_change = fsw_expect[K_MODIFY] + fsw_expect[K_ATTRIB];
    long want_rename = fsw_expect[K_CREATE] + fsw_expect[K_DELETE] + 2 * fsw_expect[K_MOVE];
    if (errors)
        fprintf(stderr, "libuv: %ld error callbacks\n", errors);
    return (want_change > changes ? want_change - changes : 0) + (want_rename > renames ? want_rename - renames : 0);
}

static const char *sys_name(void)
{
    return "libuv";
}

static const char *sys_case(void)
{
    return "uv_fs_event every directory";
}

static const char *sys_extra(void)
{
    return "";
}

int main(int argc, char **argv)
{
    return fsw_main(argc, argv);
}
