/* Each kind of event, on a directory watched without recursion and on a watched file:
 * created, modified, attributes, moved inside (one MOVED with both names), moved out,
 * moved in, deleted (file and directory), and the exact sequence for a file. */
#include "fwt.h"

static struct fwt_rec rec;

static bool have_n(void *a)
{
    return rec.n >= *(size_t *)a;
}

int main(void)
{
    const char *top = fwt_tmpdir("fsw-events");
    char root[512], outside[512], p[1024];
    snprintf(root, sizeof root, "%s/root", top);
    snprintf(outside, sizeof outside, "%s/outside", top);
    CHECK_SYS(mkdir(root, 0755));
    CHECK_SYS(mkdir(outside, 0755));
    vigil_loop *loop = vt_loop();

    vigil_fswatch w = {.data = &rec};
    CHECK_EQ(vigil_fswatch_start(loop, &w, root, 0, fwt_on_event), 0);
    CHECK_EQ(vigil_fswatch_active(&w), 1);
    CHECK_EQ(vigil_fswatch_count(&w), 1);

    fwt_touch(root, "a");
    snprintf(p, sizeof p, "%s/a", root);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, "x", 1), 1);
    close(fd);
    CHECK_SYS(chmod(p, 0600));
    fwt_rename(root, "a", "b");
    snprintf(p, sizeof p, "%s/c", outside);
    fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    close(fd);
    fwt_rename(top, "outside/c", "root/c");
    fwt_rename(top, "root/b", "outside/b");
    snprintf(p, sizeof p, "%s/c", root);
    CHECK_SYS(unlink(p));
    fwt_mkdir(root, "d");
    fwt_mkdir(root, "d/e"); /* not watched: no event */
    snprintf(p, sizeof p, "%s/d/e", root);
    CHECK_SYS(rmdir(p));
    snprintf(p, sizeof p, "%s/d", root);
    CHECK_SYS(rmdir(p));
    fwt_sync(loop, &rec, root);

    static const struct {
        uint32_t kind, flags;
        const char *path, *path2;
    } want[] = {
        {VIGIL_FS_CREATED, 0, "a", NULL},
        {VIGIL_FS_MODIFIED, 0, "a", NULL},
        {VIGIL_FS_ATTRIB, 0, "a", NULL},
        {VIGIL_FS_MOVED, 0, "a", "b"},
        {VIGIL_FS_MOVED_IN, 0, "c", NULL},
        {VIGIL_FS_MOVED_OUT, 0, "b", NULL},
        {VIGIL_FS_DELETED, 0, "c", NULL},
        {VIGIL_FS_CREATED, VIGIL_FS_ISDIR, "d", NULL},
        {VIGIL_FS_DELETED, VIGIL_FS_ISDIR, "d", NULL},
    };
    size_t nw = sizeof want / sizeof want[0];
    /* The directory's own ATTRIB/modify notices (its mtime) are not events of an
     * entry; everything else must be exactly this sequence. */
    if (rec.n != nw) {
        fprintf(stderr, "got %zu events, want %zu:\n", rec.n, nw);
        fwt_dump(&rec, 0);
        return 1;
    }
    for (size_t i = 0; i < nw; i++) {
        const struct fwt_ev *e = &rec.ev[i];
        if (e->kind != want[i].kind || e->flags != want[i].flags || strcmp(e->path, want[i].path) ||
            (want[i].path2 ? !e->path2 || strcmp(e->path2, want[i].path2) : e->path2 != NULL)) {
            fprintf(stderr, "event %zu differs; all:\n", i);
            fwt_dump(&rec, 0);
            return 1;
        }
    }
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_fswatch_active(&w), 0);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    fwt_clear(&rec);

    /* A watched file: modified and attributes reported with the path "", then its
     * deletion is the root gone (the watcher stops itself). */
    snprintf(p, sizeof p, "%s/f", top);
    fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    CHECK_EQ(vigil_fswatch_start(loop, &w, p, 0, fwt_on_event), 0);
    CHECK_EQ(write(fd, "y", 1), 1);
    close(fd);
    size_t need = 1;
    fwt_run_until(loop, have_n, &need);
    CHECK_EQ(rec.ev[0].kind, VIGIL_FS_MODIFIED);
    CHECK_EQ(strcmp(rec.ev[0].path, ""), 0);
    CHECK_SYS(chmod(p, 0600));
    need = 2;
    fwt_run_until(loop, have_n, &need);
    CHECK_EQ(rec.ev[1].kind, VIGIL_FS_ATTRIB);
    CHECK_SYS(unlink(p));
    while (vigil_fswatch_active(&w))
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK(fwt_find(&rec, 2, VIGIL_FS_ROOT_GONE, "", NULL) >= 0);
    CHECK_EQ(rec.ev[rec.n - 1].kind, VIGIL_FS_ROOT_GONE);
    CHECK_EQ(vigil_fswatch_count(&w), 0);
    fwt_clear(&rec);
    free(rec.ev);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
