/* Randomized: sequences of create, mkdir, rmdir, unlink, rename (plain, NOREPLACE,
 * EXCHANGE), truncate, symlink, link and readdir, submitted in batches (one
 * vigil_file_submit each), checked against a shadow model of the tree: every result
 * (0, or the errno the model predicts: ENOENT, ENOTDIR, EISDIR, EEXIST, ENOTEMPTY,
 * EPERM), every readdir listing, and after every batch the whole real tree (walked with
 * plain system calls: names, kinds, sizes, symlink targets, which names share an inode
 * and each inode's link count) against the model.
 *
 * A batch holds only operations that commute: no path of one is a path, an ancestor or
 * a descendant of a path of another (and no two truncate one inode), so whatever order
 * the engine runs them in, each sees the state the batch started from. Names come from
 * a small alphabet at depth 1-3, so operations collide and fail often.
 *
 * Seedable: VIGIL_TEST_SEED=n; the seed is printed at the start and with any mismatch. */
#include "ft.h"

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <sys/stat.h>

#define MAXN 256
#define PATHLEN 48 /* renames nest trees: paths grow past depth 3 (bounded at 40) */
#define BATCH 12
#define BATCHES 250

enum { K_FILE = 1, K_DIR, K_LINK };
enum { OP_CREATE, OP_MKDIR, OP_RMDIR, OP_UNLINK, OP_RENAME, OP_TRUNCATE, OP_SYMLINK, OP_LINK, OP_READDIR, OP_N };
static const char *op_names[] = {"create", "mkdir", "rmdir", "unlink", "rename", "truncate", "symlink", "link", "readdir"};

struct node {
    char path[PATHLEN]; /* relative to the scratch directory: "a", "a/b", "a/b/c"... */
    int kind;
    int ino;       /* the model's inode: hard links share it */
};
static struct node nodes[MAXN];
static int nn;
static int64_t sizes[1 << 16]; /* by model inode: a file's size */
static int targets[1 << 16];   /* by model inode: a symlink's target number */
static int next_ino = 1;

static uint64_t seed, rng;
static char dir[32];

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fs_random (seed %llu): ", (unsigned long long)seed);                     \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        exit(1);                                                                                   \
    } while (0)

/* ---------------------------------------------------------------- the model */

static int find(const char *p)
{
    for (int i = 0; i < nn; i++)
        if (!strcmp(nodes[i].path, p))
            return i;
    return -1;
}

/* The error resolving p's parent gives: every proper prefix must be a directory (a
 * symlink's target is absolute and never exists: ENOENT). */
static int parent_err(const char *p)
{
    char pre[PATHLEN];
    for (size_t i = 0; p[i]; i++) {
        if (p[i] != '/')
            continue;
        memcpy(pre, p, i);
        pre[i] = 0;
        int k = find(pre);
        if (k < 0 || nodes[k].kind == K_LINK)
            return -ENOENT;
        if (nodes[k].kind == K_FILE)
            return -ENOTDIR;
    }
    return 0;
}

static bool under(const char *p, const char *root) /* p is root or below it */
{
    size_t n = strlen(root);
    return !strncmp(p, root, n) && (p[n] == 0 || p[n] == '/');
}

static bool has_children(const char *p)
{
    for (int i = 0; i < nn; i++)
        if (under(nodes[i].path, p) && strcmp(nodes[i].path, p))
            return true;
    return false;
}

static void add(const char *p, int kind, int ino)
{
    CHECK(nn < MAXN);
    snprintf(nodes[nn].path, sizeof nodes[nn].path, "%s", p);
    nodes[nn].kind = kind;
    nodes[nn].ino = ino;
    nn++;
}

static void del(int k)
{
    nodes[k] = nodes[--nn];
}

/* Renames every node at or below `from` to below `to` (marked first: an exchange swaps
 * two trees). */
static void move_tree(const char *from, const char *to, bool *moved)
{
    for (int i = 0; i < nn; i++) {
        if (moved[i] || !under(nodes[i].path, from))
            continue;
        char np[2 * PATHLEN];
        snprintf(np, sizeof np, "%s%s", to, nodes[i].path + strlen(from));
        CHECK(strlen(np) < sizeof nodes[i].path);
        memcpy(nodes[i].path, np, strlen(np) + 1);
        moved[i] = true;
    }
}

/* ------------------------------------------------------------ one operation */

struct op {
    int kind;
    char p1[PATHLEN], p2[PATHLEN];
    char full1[96], full2[96];
    unsigned flags;
    int64_t size;
    int want;                /* 0 or a negative errno */
    int64_t res;
    bool done;
    int dirfd;               /* readdir: the directory, opened at submission */
    char names[8][16];       /* readdir: the names the model holds there */
    int nnames;
    _Alignas(8) char buf[4096]; /* a readdir buffer: its records are 8-byte aligned */
    char target[32];
    vigil_file_req req;
};

static void rand_path(char *out)
{
    static const char alpha[] = "abcd";
    uint64_t how = rnd() % 4;
    if (nn > 0 && how < 2) { /* a name that exists */
        snprintf(out, PATHLEN, "%s", nodes[rnd() % (uint64_t)nn].path);
        return;
    }
    if (nn > 0 && how == 2) { /* a new name in a directory that exists, when one does */
        int k = (int)(rnd() % (uint64_t)nn);
        if (nodes[k].kind == K_DIR && strlen(nodes[k].path) < 5) {
            size_t n = strlen(nodes[k].path);
            memcpy(out, nodes[k].path, n);
            out[n] = '/';
            out[n + 1] = alpha[rnd() % 4];
            out[n + 2] = 0;
            return;
        }
    }
    int depth = 1 + (int)(rnd() % 3);
    char *q = out;
    for (int i = 0; i < depth; i++) {
        if (i)
            *q++ = '/';
        *q++ = alpha[rnd() % 4];
    }
    *q = 0;
}

/* How much longer than p the longest name at or below it is. */
static size_t deepest(const char *p)
{
    size_t n = strlen(p), most = 0;
    for (int i = 0; i < nn; i++)
        if (under(nodes[i].path, p) && strlen(nodes[i].path) - n > most)
            most = strlen(nodes[i].path) - n;
    return most;
}

static bool related(const char *a, const char *b)
{
    return under(a, b) || under(b, a);
}

/* The paths an operation reads or changes ("#n": the model inode a truncate sets). */
static int footprint(const struct op *o, char fp[3][PATHLEN])
{
    int n = 0;
    snprintf(fp[n++], PATHLEN, "%s", o->p1);
    if (o->kind == OP_RENAME || o->kind == OP_LINK)
        snprintf(fp[n++], PATHLEN, "%s", o->p2);
    if (o->kind == OP_TRUNCATE) {
        int k = find(o->p1);
        if (k >= 0)
            snprintf(fp[n++], PATHLEN, "#%d", nodes[k].ino);
    }
    return n;
}

static bool conflicts(const struct op *a, const struct op *b)
{
    char fa[3][PATHLEN], fb[3][PATHLEN];
    int na = footprint(a, fa), nb = footprint(b, fb);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            if (fa[i][0] == '#' || fb[j][0] == '#') {
                if (!strcmp(fa[i], fb[j]))
                    return true;
            } else if (related(fa[i], fb[j])) {
                return true;
            }
        }
    return false;
}

/* Predicts o's result from the model and applies its effect. */
static void predict(struct op *o)
{
    int e1 = parent_err(o->p1);
    int k1 = find(o->p1);
    switch (o->kind) {
    case OP_CREATE:
    case OP_MKDIR:
    case OP_SYMLINK:
        o->want = e1 ? e1 : k1 >= 0 ? -EEXIST : 0;
        if (!o->want) {
            int ino = next_ino++;
            CHECK(ino < (1 << 16));
            add(o->p1, o->kind == OP_CREATE ? K_FILE : o->kind == OP_MKDIR ? K_DIR : K_LINK, ino);
            sizes[ino] = 0;
            if (o->kind == OP_SYMLINK)
                sscanf(o->target, "/nonexistent-vigil/t%d", &targets[ino]);
        }
        break;
    case OP_RMDIR:
        o->want = e1 ? e1 : k1 < 0 ? -ENOENT : nodes[k1].kind != K_DIR ? -ENOTDIR
                : has_children(o->p1) ? -ENOTEMPTY : 0;
        if (!o->want)
            del(k1);
        break;
    case OP_UNLINK:
        o->want = e1 ? e1 : k1 < 0 ? -ENOENT : nodes[k1].kind == K_DIR ? -EISDIR : 0;
        if (!o->want)
            del(k1);
        break;
    case OP_TRUNCATE:
        o->want = e1 ? e1 : k1 < 0 || nodes[k1].kind == K_LINK ? -ENOENT : nodes[k1].kind == K_DIR ? -EISDIR : 0;
        if (!o->want)
            sizes[nodes[k1].ino] = o->size;
        break;
    case OP_READDIR:
        o->want = e1 ? e1 : k1 < 0 || nodes[k1].kind == K_LINK ? -ENOENT : nodes[k1].kind == K_FILE ? -ENOTDIR : 0;
        o->nnames = 0;
        if (!o->want)
            for (int i = 0; i < nn; i++) {
                const char *p = nodes[i].path;
                size_t n = strlen(o->p1);
                if (!strncmp(p, o->p1, n) && p[n] == '/' && !strchr(p + n + 1, '/')) {
                    CHECK(o->nnames < 8);
                    snprintf(o->names[o->nnames++], 16, "%s", p + n + 1);
                }
            }
        break;
    case OP_LINK: {
        int e2 = parent_err(o->p2), k2 = find(o->p2);
        o->want = e1 ? e1 : k1 < 0 ? -ENOENT : e2 ? e2 : k2 >= 0 ? -EEXIST : nodes[k1].kind == K_DIR ? -EPERM : 0;
        if (!o->want)
            add(o->p2, nodes[k1].kind, nodes[k1].ino);
        break;
    }
    case OP_RENAME: {
        int e2 = parent_err(o->p2), k2 = find(o->p2);
        bool exch = o->flags & RENAME_EXCHANGE, norep = o->flags & RENAME_NOREPLACE;
        if (e1 || e2) {
            o->want = e1 ? e1 : e2;
        } else if (k1 < 0) {
            o->want = -ENOENT;
        } else if (norep && k2 >= 0) {
            o->want = -EEXIST;
        } else if (exch && k2 < 0) {
            o->want = -ENOENT;
        } else if (k2 >= 0 && nodes[k1].ino == nodes[k2].ino) {
            o->want = 0; /* two names of one inode: rename(2) does nothing */
            break;
        } else if (!exch && k2 >= 0 && nodes[k1].kind == K_DIR && nodes[k2].kind != K_DIR) {
            o->want = -ENOTDIR;
        } else if (!exch && k2 >= 0 && nodes[k1].kind != K_DIR && nodes[k2].kind == K_DIR) {
            o->want = -EISDIR;
        } else if (!exch && k2 >= 0 && has_children(o->p2)) {
            o->want = -ENOTEMPTY;
        } else {
            o->want = 0;
        }
        if (o->want)
            break;
        static bool moved[MAXN];
        memset(moved, 0, sizeof moved);
        if (exch) {
            /* a placeholder name no generated path can take */
            move_tree(o->p1, "@x", moved);
            move_tree(o->p2, o->p1, moved);
            memset(moved, 0, sizeof moved);
            move_tree("@x", o->p2, moved);
        } else {
            if (k2 >= 0)
                del(k2); /* a file, or an empty directory */
            move_tree(o->p1, o->p2, moved);
        }
        break;
    }
    }
}

/* ------------------------------------------------------------ the real tree */

static int seen_ino_model[MAXN];
static ino_t seen_ino_real[MAXN];

static void walk(const char *rel, int *count)
{
    char full[128];
    if (rel[0])
        snprintf(full, sizeof full, "%s/%s", dir, rel);
    else
        snprintf(full, sizeof full, "%s", dir);
    DIR *d = opendir(full);
    CHECK(d != NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char p[300], fp[400];
        if (rel[0])
            snprintf(p, sizeof p, "%s/%s", rel, de->d_name);
        else
            snprintf(p, sizeof p, "%s", de->d_name);
        snprintf(fp, sizeof fp, "%s/%s", dir, p);
        struct stat st;
        CHECK_SYS(lstat(fp, &st));
        int k = find(p);
        int kind = S_ISREG(st.st_mode) ? K_FILE : S_ISDIR(st.st_mode) ? K_DIR : S_ISLNK(st.st_mode) ? K_LINK : 0;
        if (k < 0)
            FAIL("%s exists, the model has no such name", p);
        if (nodes[k].kind != kind)
            FAIL("%s: kind %d, the model says %d", p, kind, nodes[k].kind);
        int ino = nodes[k].ino;
        if (kind == K_FILE && st.st_size != sizes[ino])
            FAIL("%s: size %lld, the model says %lld", p, (long long)st.st_size, (long long)sizes[ino]);
        if (kind == K_LINK) {
            char t[64] = {0}, want[64];
            CHECK(readlink(fp, t, sizeof t - 1) > 0);
            snprintf(want, sizeof want, "/nonexistent-vigil/t%d", targets[ino]);
            if (strcmp(t, want))
                FAIL("%s: target %s, the model says %s", p, t, want);
        }
        if (kind != K_DIR) {
            int names = 0;
            for (int i = 0; i < nn; i++)
                names += nodes[i].ino == ino;
            if ((int)st.st_nlink != names)
                FAIL("%s: %d links, the model has %d names for it", p, (int)st.st_nlink, names);
            /* the model's inodes and the real ones correspond one to one */
            for (int i = 0; i < *count; i++)
                if ((seen_ino_model[i] == ino) != (seen_ino_real[i] == st.st_ino))
                            FAIL("%s: shares an inode with a name the model does not pair it with", p);
        }
        CHECK(*count < MAXN);
        seen_ino_model[*count] = kind == K_DIR ? -1 : ino;
        seen_ino_real[*count] = kind == K_DIR ? 0 : st.st_ino;
        (*count)++;
        if (kind == K_DIR)
            walk(p, count);
    }
    closedir(d);
}

static void compare_tree(int batch)
{
    int count = 0;
    walk("", &count);
    if (count != nn)
        FAIL("after batch %d: %d names in the tree, %d in the model", batch, count, nn);
}

/* ------------------------------------------------------------------ running */

static int ndone;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    struct op *o = req->data;
    o->res = res;
    o->done = true;
    if (o->kind == OP_CREATE && res >= 0)
        close((int)res);
    ndone++;
}

static void prep(struct op *o)
{
    vigil_file_req *r = &o->req;
    memset(r, 0, sizeof *r);
    r->data = o;
    snprintf(o->full1, sizeof o->full1, "%s/%s", dir, o->p1);
    snprintf(o->full2, sizeof o->full2, "%s/%s", dir, o->p2);
    switch (o->kind) {
    case OP_CREATE:
        vigil_file_prep_open(r, AT_FDCWD, o->full1, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644, on_done);
        break;
    case OP_MKDIR: vigil_file_prep_mkdir(r, AT_FDCWD, o->full1, 0755, on_done); break;
    case OP_RMDIR: vigil_file_prep_rmdir(r, AT_FDCWD, o->full1, on_done); break;
    case OP_UNLINK: vigil_file_prep_unlink(r, AT_FDCWD, o->full1, on_done); break;
    case OP_RENAME: vigil_file_prep_rename(r, AT_FDCWD, o->full1, AT_FDCWD, o->full2, o->flags, on_done); break;
    case OP_TRUNCATE: vigil_file_prep_truncate(r, o->full1, o->size, on_done); break;
    case OP_SYMLINK: vigil_file_prep_symlink(r, o->target, AT_FDCWD, o->full1, on_done); break;
    case OP_LINK: vigil_file_prep_link(r, AT_FDCWD, o->full1, AT_FDCWD, o->full2, 0, on_done); break;
    case OP_READDIR:
        vigil_file_prep_readdir(r, o->dirfd, o->buf, sizeof o->buf, 0, on_done);
        break;
    }
}

static void check_listing(struct op *o, int batch)
{
    size_t pos = 0;
    const struct vigil_dirent *d;
    int n = 0;
    while ((d = vigil_file_dirent_next(o->buf, (size_t)o->res, &pos))) {
        if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
            continue;
        int j = 0;
        while (j < o->nnames && strcmp(o->names[j], d->name))
            j++;
        if (j == o->nnames)
            FAIL("batch %d: readdir %s lists %s, the model has no such entry", batch, o->p1, d->name);
        n++;
    }
    if (n != o->nnames)
        FAIL("batch %d: readdir %s lists %d names, the model %d", batch, o->p1, n, o->nnames);
}

int main(void)
{
    const char *s = getenv("VIGIL_TEST_SEED");
    seed = s && *s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    rng = seed ? seed : 1;
    fprintf(stderr, "fs_random: seed %llu (VIGIL_TEST_SEED=%llu reruns it)\n", (unsigned long long)seed,
            (unsigned long long)seed);
    vigil_loop *loop = ft_loop();
    snprintf(dir, sizeof dir, "ft_rand_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);

    static struct op ops[BATCH];
    int tally[OP_N][2] = {{0}};
    for (int b = 0; b < BATCHES; b++) {
        int n = 0;
        for (int tries = 0; tries < 40 && n < BATCH; tries++) {
            struct op *o = &ops[n];
            memset(o, 0, offsetof(struct op, buf));
            static const int weights[OP_N] = {4, 3, 2, 3, 4, 2, 2, 2, 1};
            int w = (int)(rnd() % 23), k = 0;
            while (w >= weights[k])
                w -= weights[k++];
            o->kind = k;
            rand_path(o->p1);
            if (k == OP_RENAME || k == OP_LINK) {
                rand_path(o->p2);
                if (rnd() % 2) { /* a sibling: the same parent, another last letter */
                    memcpy(o->p2, o->p1, sizeof o->p2);
                    o->p2[strlen(o->p2) - 1] = "abcd"[rnd() % 4];
                }
                if (k == OP_RENAME && related(o->p1, o->p2))
                    continue; /* into itself, or onto an ancestor: another errno story */
                if (k == OP_RENAME && (strlen(o->p2) + deepest(o->p1) > 40 || strlen(o->p1) + deepest(o->p2) > 40))
                    continue; /* a tree nested too deep */
                if (k == OP_LINK && !strcmp(o->p1, o->p2))
                    continue;
                static const unsigned fl[] = {0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE};
                o->flags = k == OP_RENAME ? fl[rnd() % 4] : 0;
            }
            o->size = (int64_t)(rnd() % 10000);
            snprintf(o->target, sizeof o->target, "/nonexistent-vigil/t%d", (int)(rnd() % 1000));
            bool clash = false;
            for (int i = 0; i < n && !clash; i++)
                clash = conflicts(o, &ops[i]);
            if (clash)
                continue;
            predict(o);
            if (k == OP_READDIR) {
                char full[96];
                snprintf(full, sizeof full, "%s/%s", dir, o->p1);
                o->dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                int got = o->dirfd < 0 ? -errno : 0;
                if (got != o->want)
                    FAIL("batch %d: open %s for readdir: %d, the model says %d", b, o->p1, got, o->want);
                if (o->dirfd < 0)
                    continue; /* checked; nothing to submit */
            }
            n++;
        }
        vigil_file_req *v[BATCH];
        for (int i = 0; i < n; i++) {
            prep(&ops[i]);
            v[i] = &ops[i].req;
        }
        ndone = 0;
        if (n) {
            CHECK_EQ(vigil_file_submit(loop, v, n), n);
            ft_run_until(loop, &ndone, n);
        }
        for (int i = 0; i < n; i++) {
            struct op *o = &ops[i];
            int64_t got = o->res;
            bool ok = o->want == 0 ? got >= 0 && (o->kind == OP_CREATE || o->kind == OP_READDIR || got == 0)
                                   : got == o->want;
            if (!ok)
                FAIL("batch %d: %s %s%s%s (flags %u): %lld, the model says %d", b, op_names[o->kind], o->p1,
                     o->p2[0] ? " -> " : "", o->p2, o->flags, (long long)got, o->want);
            tally[o->kind][o->want != 0]++;
            if (o->kind == OP_READDIR) {
                check_listing(o, b);
                close(o->dirfd);
            }
        }
        compare_tree(b);
    }
    /* The run must have exercised every operation, both ways */
    for (int k = 0; k < OP_N; k++) {
        fprintf(stderr, "  %-8s ok %4d  failed %4d\n", op_names[k], tally[k][0], tally[k][1]);
        CHECK(tally[k][0] > 0);
        CHECK(k == OP_READDIR || tally[k][1] > 0);
    }
    /* clean up: deepest first */
    while (nn > 0) {
        int best = 0;
        for (int i = 1; i < nn; i++)
            if (strlen(nodes[i].path) > strlen(nodes[best].path))
                best = i;
        char full[96];
        snprintf(full, sizeof full, "%s/%s", dir, nodes[best].path);
        CHECK_SYS(nodes[best].kind == K_DIR ? rmdir(full) : unlink(full));
        del(best);
    }
    CHECK_SYS(rmdir(dir));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
