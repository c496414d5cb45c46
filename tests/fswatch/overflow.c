/* The kernel's queue overflows (IN_Q_OVERFLOW) and the program is told to rescan. The
 * sysctl is read, never changed: the test makes more events than max_queued_events
 * while the loop is not reading. A directory made after the queue was full (its event
 * lost) is watched after the rescan, and events keep coming. */
#include "fwt.h"

static struct fwt_rec rec;

static bool has_rescan(void)
{
    for (size_t i = 0; i < rec.n; i++)
        if (rec.ev[i].kind == VIGIL_FS_RESCAN)
            return true;
    return false;
}

static bool rescan_cond(void *a)
{
    (void)a;
    return has_rescan();
}

int main(void)
{
    long maxq = 16384;
    FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
    if (f) {
        if (fscanf(f, "%ld", &maxq) != 1)
            maxq = 16384;
        fclose(f);
    }
    if (maxq > 1000000)
        vt_skip("max_queued_events is above a million here: overflowing it would take too long");
    const char *top = fwt_tmpdir("fsw-ovf");
    char root[512], p[1024];
    snprintf(root, sizeof root, "%s/root", top);
    CHECK_SYS(mkdir(root, 0755));
    fwt_mkdir(root, "sub");
    vigil_loop *loop = vt_loop();
    vigil_fswatch w = {.data = &rec};
    CHECK_EQ(vigil_fswatch_start(loop, &w, root, VIGIL_FSWATCH_RECURSIVE, fwt_on_event), 0);
    CHECK_EQ(vigil_fswatch_count(&w), 2);

    /* Two files written in turn: consecutive events differ, so none is merged. */
    snprintf(p, sizeof p, "%s/sub/a", root);
    int fa = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    snprintf(p, sizeof p, "%s/sub/b", root);
    int fb = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fa >= 0 && fb >= 0);
    for (long i = 0; i < maxq / 2 + 1000; i++) {
        CHECK_EQ(write(fa, "x", 1), 1);
        CHECK_EQ(write(fb, "x", 1), 1);
    }
    close(fa);
    close(fb);
    fwt_mkdir(root, "late"); /* its CREATED is lost with the overflow */
    fwt_touch(root, "late/early-file");
    fwt_run_until(loop, rescan_cond, NULL);
    size_t nres = 0;
    for (size_t i = 0; i < rec.n; i++)
        nres += rec.ev[i].kind == VIGIL_FS_RESCAN;
    CHECK_EQ(nres, 1);
    CHECK(fwt_find(&rec, 0, VIGIL_FS_CREATED, "late", NULL) < 0); /* lost, as the kernel said */
    CHECK(rec.n <= (size_t)maxq + 8); /* no more than the queue held */
    CHECK(rec.n >= (size_t)maxq - 8);
    /* Rebuilt on the tree as it is: root, sub, late. */
    CHECK_EQ(vigil_fswatch_count(&w), 3);
    CHECK_EQ(vigil_fswatch_active(&w), 1);
    fwt_clear(&rec);
    fwt_touch(root, "late/after");
    fwt_touch(root, "sub/after");
    fwt_sync(loop, &rec, root);
    FWT_EXPECT(&rec, VIGIL_FS_CREATED, "late/after");
    FWT_EXPECT(&rec, VIGIL_FS_CREATED, "sub/after");
    CHECK_EQ(rec.n, 2);
    fwt_clear(&rec);
    free(rec.ev);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
