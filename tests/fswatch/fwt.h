/* Helpers of the file-system watcher tests: a private directory tree removed at exit,
 * a recorder of events, and a sync point: the test creates ROOT/.sync-N and runs the
 * loop until the watcher reports it, so every event of what the test did before is in
 * (inotify queues in order). Events of .sync-* names are not recorded. */
#ifndef VIGIL_TEST_FWT_H
#define VIGIL_TEST_FWT_H

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vt.h"
#include "vigil/fswatch.h"

static char fwt_dir[256];
static pid_t fwt_owner;

static inline int fwt_rm_one(const char *p, const struct stat *sb, int type, struct FTW *f)
{
    (void)sb, (void)f;
    if (type == FTW_DP || type == FTW_D)
        rmdir(p);
    else
        unlink(p);
    return 0;
}

static inline void fwt_rm_tree(const char *p)
{
    nftw(p, fwt_rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static inline void fwt_cleanup(void)
{
    if (getpid() == fwt_owner && fwt_dir[0])
        fwt_rm_tree(fwt_dir);
}

/* A new private directory (tmpfs where there is one), removed with its tree at exit. */
static inline const char *fwt_tmpdir(const char *name)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fwt_dir, sizeof fwt_dir, "%s/vigil-%s-XXXXXX", base, name);
    CHECK(mkdtemp(fwt_dir) != NULL);
    fwt_owner = getpid();
    atexit(fwt_cleanup);
    return fwt_dir;
}

struct fwt_ev {
    uint32_t kind, flags;
    char *path, *path2;
    int err;
};

struct fwt_rec {
    struct fwt_ev *ev;
    size_t n, cap;
    long sync_seen; /* the highest .sync-N reported */
    long calls;     /* callbacks, .sync ones included */
};

static const char *const fwt_kind_name[] = {"?", "CREATED", "DELETED", "MOVED", "MOVED_OUT", "MOVED_IN",
                                            "MODIFIED", "ATTRIB", "ROOT_GONE", "RESCAN", "ERROR"};

static inline const char *fwt_kind(uint32_t k)
{
    return k <= VIGIL_FS_ERROR ? fwt_kind_name[k] : "?";
}

static inline void fwt_print(const struct fwt_ev *e)
{
    fprintf(stderr, "  %s%s%s %s%s%s err=%d\n", fwt_kind(e->kind), (e->flags & VIGIL_FS_ISDIR) ? " dir" : "",
            (e->flags & VIGIL_FS_SCANNED) ? " scanned" : "", e->path ? e->path : "(null)", e->path2 ? " -> " : "",
            e->path2 ? e->path2 : "", e->err);
}

static inline void fwt_dump(const struct fwt_rec *r, size_t from)
{
    for (size_t i = from; i < r->n; i++)
        fwt_print(&r->ev[i]);
}

static inline void fwt_on_event(vigil_loop *loop, vigil_fswatch *w, const struct vigil_fswatch_event *ev)
{
    (void)loop;
    struct fwt_rec *r = w->data;
    r->calls++;
    if (ev->path && !strncmp(ev->path, ".sync-", 6)) {
        if (ev->kind == VIGIL_FS_CREATED) {
            long k = atol(ev->path + 6);
            if (k > r->sync_seen)
                r->sync_seen = k;
        }
        return;
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        CHECK(r->ev != NULL);
    }
    r->ev[r->n++] = (struct fwt_ev){ev->kind, ev->flags, ev->path ? strdup(ev->path) : NULL,
                                    ev->path2 ? strdup(ev->path2) : NULL, ev->err};
}

static inline void fwt_clear(struct fwt_rec *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->ev[i].path);
        free(r->ev[i].path2);
    }
    r->n = 0;
}

static inline void fwt_guard_cb(vigil_loop *loop, vigil_timer *t)
{
    (void)loop, (void)t;
    fprintf(stderr, "no sync event within the guard time: the watcher lost it\n");
    exit(1);
}

/* Runs the loop until cond(arg) holds; fails the test (not a timing assertion, a hang
 * guard) if it does not within 30 s. */
static inline void fwt_run_until(vigil_loop *loop, bool (*cond)(void *), void *arg)
{
    vigil_timer guard = {0};
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, 30000000000LL, 0, 0, fwt_guard_cb), 0);
    while (!cond(arg))
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    vigil_timer_stop(loop, &guard);
}

struct fwt_sync_arg {
    struct fwt_rec *r;
    long k;
};
static inline bool fwt_sync_done(void *a)
{
    struct fwt_sync_arg *s = a;
    return s->r->sync_seen >= s->k;
}

/* Creates root/.sync-N and runs the loop until the watcher reported it. */
static inline void fwt_sync(vigil_loop *loop, struct fwt_rec *r, const char *root)
{
    static long n;
    char p[512];
    n = (n > r->sync_seen ? n : r->sync_seen) + 1;
    snprintf(p, sizeof p, "%s/.sync-%ld", root, n);
    int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    close(fd);
    struct fwt_sync_arg a = {r, n};
    fwt_run_until(loop, fwt_sync_done, &a);
}

/* Finds the event (kind, path[, path2]) from index from on; -1 if none. */
static inline long fwt_find(const struct fwt_rec *r, size_t from, uint32_t kind, const char *path, const char *path2)
{
    for (size_t i = from; i < r->n; i++) {
        const struct fwt_ev *e = &r->ev[i];
        if (e->kind == kind && e->path && !strcmp(e->path, path) &&
            (!path2 || (e->path2 && !strcmp(e->path2, path2))))
            return (long)i;
    }
    return -1;
}

/* Counts events (kind, path). */
static inline int fwt_count(const struct fwt_rec *r, uint32_t kind, const char *path)
{
    int c = 0;
    for (size_t i = 0; i < r->n; i++)
        c += r->ev[i].kind == kind && r->ev[i].path && !strcmp(r->ev[i].path, path);
    return c;
}

#define FWT_EXPECT(r, kind, path)                                                                  \
    do {                                                                                           \
        if (fwt_find((r), 0, (kind), (path), NULL) < 0) {                                          \
            fprintf(stderr, "%s:%d: no %s %s among:\n", __FILE__, __LINE__, fwt_kind(kind), path); \
            fwt_dump((r), 0);                                                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static inline void fwt_touch(const char *root, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    close(fd);
}

static inline void fwt_mkdir(const char *root, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    CHECK_SYS(mkdir(p, 0755));
}

static inline void fwt_rename(const char *root, const char *a, const char *b)
{
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s/%s", root, a);
    snprintf(q, sizeof q, "%s/%s", root, b);
    CHECK_SYS(rename(p, q));
}

#endif
