/* Bad input: a path that is not there, a path through a file, bad arguments, a watcher
 * started twice; stop of a stopped watcher; fds back to where they were after stop. */
#include "fwt.h"
#include "fds.h"

static void cb(vigil_loop *l, vigil_fswatch *w, const struct vigil_fswatch_event *e)
{
    (void)l, (void)w, (void)e;
}

int main(void)
{
    const char *top = fwt_tmpdir("fsw-errors");
    char p[512];
    vigil_loop *loop = vt_loop();
    int fds0 = vt_count_fds();
    vigil_fswatch w = {0};
    snprintf(p, sizeof p, "%s/missing", top);
    CHECK_EQ(vigil_fswatch_start(loop, &w, p, 0, cb), -ENOENT);
    CHECK_EQ(vigil_fswatch_start(loop, &w, p, VIGIL_FSWATCH_RECURSIVE, cb), -ENOENT);
    CHECK_EQ(vigil_fswatch_start(loop, &w, "", 0, cb), -ENOENT);
    fwt_touch(top, "file");
    snprintf(p, sizeof p, "%s/file/below", top);
    CHECK_EQ(vigil_fswatch_start(loop, &w, p, 0, cb), -ENOTDIR);
    CHECK_EQ(vigil_fswatch_active(&w), 0);
    CHECK_EQ(vigil_fswatch_start(loop, &w, top, 0x100, cb), -EINVAL);
    CHECK_EQ(vigil_fswatch_start(loop, &w, top, 0, NULL), -EINVAL);
    CHECK_EQ(vigil_fswatch_start(loop, &w, NULL, 0, cb), -EINVAL);
    CHECK_EQ(vigil_fswatch_start(NULL, &w, top, 0, cb), -EINVAL);
    CHECK_EQ(vigil_fswatch_start(loop, NULL, top, 0, cb), -EINVAL);
    char longp[PATH_MAX + 16];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    CHECK_EQ(vigil_fswatch_start(loop, &w, longp, 0, cb), -ENAMETOOLONG);
    CHECK_EQ(vt_count_fds(), fds0); /* failed starts leave nothing open */

    CHECK_EQ(vigil_fswatch_start(loop, &w, top, VIGIL_FSWATCH_RECURSIVE, cb), 0);
    CHECK_EQ(vigil_fswatch_start(loop, &w, top, 0, cb), -EBUSY);
    CHECK_EQ(vigil_fswatch_active(&w), 1);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_fswatch_stop(NULL, &w), -EINVAL);
    CHECK_EQ(vigil_fswatch_active(NULL), 0);
    CHECK_EQ(vigil_fswatch_count(NULL), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0, 1);
    CHECK_EQ(vt_count_fds(), fds0);
    /* A stopped watcher may be started again. */
    CHECK_EQ(vigil_fswatch_start(loop, &w, top, 0, cb), 0);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
