/* The watched root gone: deleted (after its contents), or renamed away. The program
 * gets ROOT_GONE once, as the last event, and the watcher is stopped. */
#include "fwt.h"

static struct fwt_rec rec;

static void check_gone(vigil_loop *loop, vigil_fswatch *w, const char *what)
{
    while (vigil_fswatch_active(w))
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    if (rec.n == 0 || rec.ev[rec.n - 1].kind != VIGIL_FS_ROOT_GONE || fwt_count(&rec, VIGIL_FS_ROOT_GONE, "") != 1) {
        fprintf(stderr, "%s: want ROOT_GONE once, last:\n", what);
        fwt_dump(&rec, 0);
        exit(1);
    }
    CHECK_EQ(vigil_fswatch_count(w), 0);
    fwt_clear(&rec);
}

int main(void)
{
    const char *top = fwt_tmpdir("fsw-gone");
    char root[512], p[1024];
    vigil_loop *loop = vt_loop();
    vigil_fswatch w = {.data = &rec};

    snprintf(root, sizeof root, "%s/r1", top);
    CHECK_SYS(mkdir(root, 0755));
    fwt_mkdir(root, "sub");
    fwt_touch(root, "sub/f");
    CHECK_EQ(vigil_fswatch_start(loop, &w, root, VIGIL_FSWATCH_RECURSIVE, fwt_on_event), 0);
    fwt_rm_tree(root);
    check_gone(loop, &w, "deleted");

    snprintf(root, sizeof root, "%s/r2", top);
    CHECK_SYS(mkdir(root, 0755));
    CHECK_EQ(vigil_fswatch_start(loop, &w, root, 0, fwt_on_event), 0);
    snprintf(p, sizeof p, "%s/r2-moved", top);
    CHECK_SYS(rename(root, p));
    check_gone(loop, &w, "renamed");

    /* Once stopped it starts again like any watcher. */
    CHECK_EQ(vigil_fswatch_start(loop, &w, p, 0, fwt_on_event), 0);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    free(rec.ev);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
