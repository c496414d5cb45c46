/* Recursive watching: mkdir -p a/b/c and a file in the deepest directory at once, each
 * reported CREATED exactly once (by the scan of a new directory or by the kernel's
 * event); events under new directories carry their paths; a directory moved inside the
 * tree keeps its watches under its new path; one moved out loses them (no events from
 * it any more); one moved in with contents is watched and its entries reported. */
#include "fwt.h"

static struct fwt_rec rec;

static void once(const char *path, uint32_t flags)
{
    int n = fwt_count(&rec, VIGIL_FS_CREATED, path);
    long i = fwt_find(&rec, 0, VIGIL_FS_CREATED, path, NULL);
    if (n != 1 || (i >= 0 && (rec.ev[i].flags & VIGIL_FS_ISDIR) != flags)) {
        fprintf(stderr, "CREATED %s reported %d times (want once, flags %u); all:\n", path, n, flags);
        fwt_dump(&rec, 0);
        exit(1);
    }
}

int main(void)
{
    const char *top = fwt_tmpdir("fsw-rec");
    char root[512], p[1024];
    snprintf(root, sizeof root, "%s/root", top);
    CHECK_SYS(mkdir(root, 0755));
    fwt_mkdir(root, "pre");
    fwt_mkdir(root, "pre/deep");
    vigil_loop *loop = vt_loop();
    vigil_fswatch w = {.data = &rec};
    CHECK_EQ(vigil_fswatch_start(loop, &w, root, VIGIL_FSWATCH_RECURSIVE, fwt_on_event), 0);
    CHECK_EQ(vigil_fswatch_count(&w), 3);

    /* Directories there at start are watched. */
    fwt_touch(root, "pre/deep/x");
    fwt_sync(loop, &rec, root);
    once("pre/deep/x", 0);
    fwt_clear(&rec);

    /* Many rounds, since whether the scan or the event finds an entry depends on when
     * the loop reads: either way, once. */
    for (int round = 0; round < 20; round++) {
        char a[64];
        snprintf(a, sizeof a, "n%d", round);
        snprintf(p, sizeof p, "%s/%s", root, a);
        CHECK_SYS(mkdir(p, 0755));
        snprintf(p, sizeof p, "%s/%s/b", root, a);
        CHECK_SYS(mkdir(p, 0755));
        snprintf(p, sizeof p, "%s/%s/b/c", root, a);
        CHECK_SYS(mkdir(p, 0755));
        snprintf(p, sizeof p, "%s/b/c/f", a);
        fwt_touch(root, p);
        if (round % 2) /* let the loop see part of it in between */
            CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
        snprintf(p, sizeof p, "%s/b/c/g", a);
        fwt_touch(root, p);
        fwt_sync(loop, &rec, root);
        char q[128];
        once(a, VIGIL_FS_ISDIR);
        snprintf(q, sizeof q, "%s/b", a);
        once(q, VIGIL_FS_ISDIR);
        snprintf(q, sizeof q, "%s/b/c", a);
        once(q, VIGIL_FS_ISDIR);
        snprintf(q, sizeof q, "%s/b/c/f", a);
        once(q, 0);
        snprintf(q, sizeof q, "%s/b/c/g", a);
        once(q, 0);
        if (rec.n != 5) {
            fprintf(stderr, "round %d: %zu events, want 5:\n", round, rec.n);
            fwt_dump(&rec, 0);
            return 1;
        }
        fwt_clear(&rec);
    }
    CHECK_EQ(vigil_fswatch_count(&w), 3 + 20 * 3);

    /* Events deep in a new directory carry their path. */
    fwt_touch(root, "n3/b/c/h");
    fwt_sync(loop, &rec, root);
    once("n3/b/c/h", 0);
    fwt_clear(&rec);

    /* Moved inside the tree: one MOVED, then events under the new path. */
    fwt_mkdir(root, "dst");
    fwt_sync(loop, &rec, root);
    fwt_clear(&rec);
    fwt_rename(root, "n4", "dst/m4");
    fwt_touch(root, "dst/m4/b/c/new");
    fwt_sync(loop, &rec, root);
    CHECK(fwt_find(&rec, 0, VIGIL_FS_MOVED, "n4", "dst/m4") >= 0);
    once("dst/m4/b/c/new", 0);
    CHECK_EQ(rec.n, 2);
    fwt_clear(&rec);
    CHECK_EQ(vigil_fswatch_count(&w), 3 + 20 * 3 + 1);

    /* Moved into a directory made just before, which the loop had not read yet: the
     * scan of the new directory finds it, so it comes as CREATED there with what is
     * under it, and MOVED_OUT from its old place; its watches follow it. */
    fwt_mkdir(root, "dst2");
    fwt_rename(root, "n7", "dst2/m7");
    fwt_touch(root, "dst2/m7/b/c/new");
    fwt_sync(loop, &rec, root);
    once("dst2", VIGIL_FS_ISDIR);
    once("dst2/m7", VIGIL_FS_ISDIR);
    once("dst2/m7/b", VIGIL_FS_ISDIR);
    once("dst2/m7/b/c", VIGIL_FS_ISDIR);
    once("dst2/m7/b/c/f", 0);
    once("dst2/m7/b/c/g", 0);
    once("dst2/m7/b/c/new", 0);
    FWT_EXPECT(&rec, VIGIL_FS_MOVED_OUT, "n7");
    CHECK_EQ(rec.n, 8);
    fwt_clear(&rec);
    CHECK_EQ(vigil_fswatch_count(&w), 3 + 20 * 3 + 2);
    fwt_touch(root, "dst2/m7/b/c/later");
    fwt_sync(loop, &rec, root);
    once("dst2/m7/b/c/later", 0);
    CHECK_EQ(rec.n, 1);
    fwt_clear(&rec);

    /* Moved out: MOVED_OUT, its three watches dropped, nothing from it after. */
    fwt_rename(top, "root/n5", "n5-out");
    fwt_touch(top, "n5-out/b/c/after");
    fwt_sync(loop, &rec, root);
    FWT_EXPECT(&rec, VIGIL_FS_MOVED_OUT, "n5");
    CHECK_EQ(rec.n, 1);
    CHECK_EQ(vigil_fswatch_count(&w), 3 + 19 * 3 + 2);
    fwt_clear(&rec);

    /* Moved in with contents: MOVED_IN and its entries CREATED (scanned), watched. */
    fwt_rename(top, "n5-out", "root/back");
    fwt_sync(loop, &rec, root);
    FWT_EXPECT(&rec, VIGIL_FS_MOVED_IN, "back");
    once("back/b", VIGIL_FS_ISDIR);
    once("back/b/c", VIGIL_FS_ISDIR);
    once("back/b/c/f", 0);
    once("back/b/c/g", 0);
    once("back/b/c/after", 0);
    CHECK_EQ(rec.n, 6);
    CHECK_EQ(vigil_fswatch_count(&w), 3 + 20 * 3 + 2);
    fwt_clear(&rec);
    fwt_touch(root, "back/b/c/later");
    fwt_sync(loop, &rec, root);
    once("back/b/c/later", 0);
    fwt_clear(&rec);

    /* Deleted subtree: DELETED for each, watches gone. */
    snprintf(p, sizeof p, "%s/n6", root);
    fwt_rm_tree(p);
    fwt_sync(loop, &rec, root);
    FWT_EXPECT(&rec, VIGIL_FS_DELETED, "n6/b/c/f");
    FWT_EXPECT(&rec, VIGIL_FS_DELETED, "n6/b/c");
    FWT_EXPECT(&rec, VIGIL_FS_DELETED, "n6");
    CHECK_EQ(vigil_fswatch_count(&w), 3 + 19 * 3 + 2);
    fwt_clear(&rec);
    free(rec.ev);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
