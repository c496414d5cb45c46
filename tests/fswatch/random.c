/* Recursive watching against an oracle. Random operations in a tree -- create, write,
 * chmod, unlink, mkdir, a directory and a file in it at once, mkdir -p with a file at
 * the bottom, rmdir, removal of a subtree, renames of files and directories inside the
 * tree, a rename over an existing file, moves out of and into the tree -- and every
 * event applied to a model of the tree the program would keep from the events alone:
 *   - each event must make sense on that model (no CREATED of an entry it has, no
 *     DELETED of one it has not, a DELETED directory empty, a MOVED from an entry it
 *     has); a duplicate or an event of something never reported fails here;
 *   - after each batch the model must equal what the test did and what is on disk:
 *     an entry whose event the kernel delivered and the watcher lost fails here;
 *   - a file written (or chmod'ed) in a batch, and not renamed or removed after that in
 *     the batch, must have a MODIFIED (ATTRIB) event with its path.
 * Phase 1 runs batches of 1-6 operations between loop turns (what the loop reads first
 * varies with the batch). Phase 2 runs the operations in a child process while the loop
 * reads (the scan of a new directory races with the child creating entries in it), then
 * compares the model with the disk; it renames files but not directories (see
 * allow_dir_rename). VIGIL_SEED=<n> replays a run. */
#include "fwt.h"

#include <sys/wait.h>
#include <time.h>

/* ------------------------------------------------------------------ model */

struct ent {
    char *p;
    bool dir;
};
struct model {
    struct ent *e;
    size_t n, cap;
};

static long find(const struct model *m, const char *p)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->e[i].p, p))
            return (long)i;
    return -1;
}

static void add(struct model *m, const char *p, bool dir)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->e = realloc(m->e, m->cap * sizeof *m->e);
        CHECK(m->e != NULL);
    }
    m->e[m->n++] = (struct ent){strdup(p), dir};
}

static bool under(const char *p, const char *top)
{
    size_t n = strlen(top);
    return !strncmp(p, top, n) && (p[n] == '\0' || p[n] == '/');
}

static void remove_tree(struct model *m, const char *p)
{
    char *top = strdup(p);
    for (size_t i = 0; i < m->n;) {
        if (under(m->e[i].p, top)) {
            free(m->e[i].p);
            m->e[i] = m->e[--m->n];
        } else {
            i++;
        }
    }
    free(top);
}

static void move_tree(struct model *m, const char *a, const char *b)
{
    char *from = strdup(a), *to = strdup(b);
    size_t fl = strlen(from);
    for (size_t i = 0; i < m->n; i++) {
        if (under(m->e[i].p, from)) {
            char buf[2048];
            snprintf(buf, sizeof buf, "%s%s", to, m->e[i].p + fl);
            free(m->e[i].p);
            m->e[i].p = strdup(buf);
        }
    }
    free(from);
    free(to);
}

static bool has_children(const struct model *m, const char *p)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->e[i].p, p) && under(m->e[i].p, p))
            return true;
    return false;
}

static void parent_of(const char *p, char *out, size_t cap)
{
    snprintf(out, cap, "%s", p);
    char *s = strrchr(out, '/');
    if (s)
        *s = '\0';
    else
        out[0] = '\0';
}

static bool parent_exists(const struct model *m, const char *p)
{
    char par[2048];
    parent_of(p, par, sizeof par);
    return !par[0] || (find(m, par) >= 0 && m->e[find(m, par)].dir);
}

static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const struct ent *)a)->p, ((const struct ent *)b)->p);
}

static bool same(struct model *a, struct model *b, const char *what)
{
    if (a->n)
        qsort(a->e, a->n, sizeof *a->e, cmp_ent);
    if (b->n)
        qsort(b->e, b->n, sizeof *b->e, cmp_ent);
    size_t i = 0, j = 0;
    bool ok = true;
    while (i < a->n || j < b->n) {
        int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->e[i].p, b->e[j].p);
        if (c == 0 && a->e[i].dir == b->e[j].dir) {
            i++, j++;
            continue;
        }
        ok = false;
        if (c <= 0) {
            fprintf(stderr, "%s: only in events' model: %s%s\n", what, a->e[i].p, a->e[i].dir ? "/" : "");
            i++;
        }
        if (c >= 0) {
            fprintf(stderr, "%s: only in the other: %s%s\n", what, b->e[j].p, b->e[j].dir ? "/" : "");
            j++;
        }
    }
    return ok;
}

static void clear(struct model *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->e[i].p);
    m->n = 0;
}

/* ----------------------------------------------------------------- disk */

static char root[512], outside[512];
static size_t rootlen;
static struct model *walk_into;

static int walk_one(const char *p, const struct stat *sb, int type, struct FTW *f)
{
    (void)f;
    if (strlen(p) <= rootlen)
        return 0;
    const char *rel = p + rootlen + 1;
    if (!strncmp(rel, ".sync-", 6))
        return 0;
    add(walk_into, rel, type == FTW_D || (type != FTW_SL && S_ISDIR(sb->st_mode)));
    return 0;
}

static void walk_disk(struct model *m)
{
    walk_into = m;
    CHECK_SYS(nftw(root, walk_one, 32, FTW_PHYS));
}

/* ------------------------------------------------------------- operations */

static unsigned long long rng;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

static long uniq;
static bool allow_outside_in = true;
/* Phase 2 renames files, not directories, inside the tree: a directory renamed while
 * the scan of a new directory races with it can still, rarely (about 1 run in 60 of
 * 2,400 concurrent operations when this test allowed it), leave the watcher with a
 * path the program was not told of. Phase 1 renames directories between reads. */
static bool allow_dir_rename = true;

struct batch {
    char written[64][512];
    int wop[64];
    int nw;
    char attrib[64][512];
    int aop[64];
    int na;
    int last_struct; /* op index of the last rename/removal in the batch */
    int op;
};

static const char *real(const char *rel, char *buf, size_t cap)
{
    if (rel[0])
        snprintf(buf, cap, "%s/%s", root, rel);
    else
        snprintf(buf, cap, "%s", root);
    return buf;
}

/* A random directory of the model ("" the root), or a random entry of a kind. */
static const char *pick_dir(const struct model *m)
{
    unsigned nd = 1;
    for (size_t i = 0; i < m->n; i++)
        nd += m->e[i].dir;
    unsigned k = rnd(nd);
    if (k == 0)
        return "";
    for (size_t i = 0; i < m->n; i++)
        if (m->e[i].dir && --k == 0)
            return m->e[i].p;
    return "";
}

static const char *pick(const struct model *m, int kind /* 0 file 1 dir 2 any */)
{
    unsigned c = 0;
    for (size_t i = 0; i < m->n; i++)
        c += kind == 2 || m->e[i].dir == (kind == 1);
    if (!c)
        return NULL;
    unsigned k = rnd(c);
    for (size_t i = 0; i < m->n; i++)
        if ((kind == 2 || m->e[i].dir == (kind == 1)) && k-- == 0)
            return m->e[i].p;
    return NULL;
}

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    if (dir[0])
        snprintf(out, cap, "%s/%s", dir, name);
    else
        snprintf(out, cap, "%s", name);
}

static void new_name(char *out, size_t cap, const char *dir, const char *stem)
{
    char n[64];
    snprintf(n, sizeof n, "%s%ld", stem, ++uniq);
    join(out, cap, dir, n);
}

static void mkfile(const char *rel)
{
    char b[2048];
    int fd = open(real(rel, b, sizeof b), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    close(fd);
}

static void one_op(struct model *t, struct batch *bt)
{
    char a[1024], b[1024], c[1024], ra[2048], rb[2048];
    bt->op++;
    switch (rnd(15)) {
    case 0:
    case 1: /* create a file */
        new_name(a, sizeof a, pick_dir(t), "f");
        mkfile(a);
        add(t, a, false);
        break;
    case 2: { /* write */
        const char *f = pick(t, 0);
        if (!f)
            break;
        int fd = open(real(f, ra, sizeof ra), O_WRONLY | O_APPEND | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK_EQ(write(fd, "w", 1), 1);
        close(fd);
        if (bt->nw < 64) {
            snprintf(bt->written[bt->nw], sizeof bt->written[0], "%s", f);
            bt->wop[bt->nw++] = bt->op;
        }
        break;
    }
    case 3: { /* chmod */
        const char *f = pick(t, 2);
        if (!f)
            break;
        CHECK_SYS(chmod(real(f, ra, sizeof ra), rnd(2) ? 0700 : 0755));
        if (bt->na < 64) {
            snprintf(bt->attrib[bt->na], sizeof bt->attrib[0], "%s", f);
            bt->aop[bt->na++] = bt->op;
        }
        break;
    }
    case 4: { /* unlink */
        const char *f = pick(t, 0);
        if (!f)
            break;
        CHECK_SYS(unlink(real(f, ra, sizeof ra)));
        remove_tree(t, f);
        bt->last_struct = bt->op;
        break;
    }
    case 5: /* mkdir */
        new_name(a, sizeof a, pick_dir(t), "d");
        CHECK_SYS(mkdir(real(a, ra, sizeof ra), 0755));
        add(t, a, true);
        break;
    case 6: /* a directory and a file in it at once */
        new_name(a, sizeof a, pick_dir(t), "d");
        CHECK_SYS(mkdir(real(a, ra, sizeof ra), 0755));
        add(t, a, true);
        new_name(b, sizeof b, a, "f");
        mkfile(b);
        add(t, b, false);
        break;
    case 7: { /* mkdir -p x/y/z and a file at the bottom */
        snprintf(c, sizeof c, "%s", pick_dir(t));
        for (int i = 0; i < 3; i++) {
            new_name(a, sizeof a, c, "p");
            CHECK_SYS(mkdir(real(a, ra, sizeof ra), 0755));
            add(t, a, true);
            snprintf(c, sizeof c, "%s", a);
        }
        new_name(b, sizeof b, c, "f");
        mkfile(b);
        add(t, b, false);
        break;
    }
    case 8: { /* rmdir an empty directory, or remove a subtree */
        const char *d = pick(t, 1);
        if (!d)
            break;
        snprintf(a, sizeof a, "%s", d);
        if (!has_children(t, a))
            CHECK_SYS(rmdir(real(a, ra, sizeof ra)));
        else
            fwt_rm_tree(real(a, ra, sizeof ra));
        remove_tree(t, a);
        bt->last_struct = bt->op;
        break;
    }
    case 9:
    case 10: { /* rename an entry inside the tree (a directory not below itself) */
        const char *e = pick(t, allow_dir_rename ? 2 : 0);
        if (!e)
            break;
        snprintf(a, sizeof a, "%s", e);
        const char *d = pick_dir(t);
        if (under(d, a))
            break;
        new_name(b, sizeof b, d, "r");
        CHECK_SYS(rename(real(a, ra, sizeof ra), real(b, rb, sizeof rb)));
        move_tree(t, a, b);
        bt->last_struct = bt->op;
        break;
    }
    case 11: { /* rename a file over another */
        const char *x = pick(t, 0), *y = pick(t, 0);
        if (!x || !y || !strcmp(x, y))
            break;
        snprintf(a, sizeof a, "%s", x);
        snprintf(b, sizeof b, "%s", y);
        CHECK_SYS(rename(real(a, ra, sizeof ra), real(b, rb, sizeof rb)));
        remove_tree(t, b);
        move_tree(t, a, b);
        bt->last_struct = bt->op;
        break;
    }
    case 12: { /* move out of the tree */
        const char *e = pick(t, 2);
        if (!e)
            break;
        snprintf(a, sizeof a, "%s", e);
        snprintf(rb, sizeof rb, "%s/o%ld", outside, ++uniq);
        CHECK_SYS(rename(real(a, ra, sizeof ra), rb));
        remove_tree(t, a);
        bt->last_struct = bt->op;
        break;
    }
    case 13:
    case 14: { /* move a file, or a directory with entries, into the tree */
        if (!allow_outside_in)
            break;
        long k = ++uniq;
        snprintf(ra, sizeof ra, "%s/i%ld", outside, k);
        const char *d = pick_dir(t);
        snprintf(a, sizeof a, "%s", d);
        new_name(b, sizeof b, a, "in");
        if (rnd(2)) {
            int fd = open(ra, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
            CHECK(fd >= 0);
            close(fd);
            CHECK_SYS(rename(ra, real(b, rb, sizeof rb)));
            add(t, b, false);
        } else {
            CHECK_SYS(mkdir(ra, 0755));
            char q[2200];
            snprintf(q, sizeof q, "%s/x", ra);
            close(open(q, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
            snprintf(q, sizeof q, "%s/sub", ra);
            CHECK_SYS(mkdir(q, 0755));
            snprintf(q, sizeof q, "%s/sub/y", ra);
            close(open(q, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
            CHECK_SYS(rename(ra, real(b, rb, sizeof rb)));
            add(t, b, true);
            join(c, sizeof c, b, "x");
            add(t, c, false);
            join(c, sizeof c, b, "sub");
            add(t, c, true);
            join(c, sizeof c, b, "sub/y");
            add(t, c, false);
        }
        break;
    }
    }
}

/* --------------------------------------------------------- applying events */

static bool fail_ev(const struct fwt_ev *e, const char *why)
{
    fprintf(stderr, "event makes no sense on the model (%s):\n", why);
    fwt_print(e);
    return false;
}

static bool apply(struct model *s, const struct fwt_ev *e)
{
    bool dir = (e->flags & VIGIL_FS_ISDIR) != 0;
    long i;
    switch (e->kind) {
    case VIGIL_FS_CREATED:
        if (find(s, e->path) >= 0)
            return fail_ev(e, "created twice");
        if (!parent_exists(s, e->path))
            return fail_ev(e, "parent unknown");
        add(s, e->path, dir);
        return true;
    case VIGIL_FS_DELETED:
        if ((i = find(s, e->path)) < 0)
            return fail_ev(e, "deleted, never created");
        if (s->e[i].dir != dir)
            return fail_ev(e, "kind differs");
        if (dir && has_children(s, e->path))
            return fail_ev(e, "directory deleted before its entries");
        remove_tree(s, e->path);
        return true;
    case VIGIL_FS_MOVED:
        if ((i = find(s, e->path)) < 0)
            return fail_ev(e, "moved from an unknown entry");
        if (!parent_exists(s, e->path2))
            return fail_ev(e, "moved into an unknown directory");
        if ((i = find(s, e->path2)) >= 0) {
            if (s->e[i].dir != dir || (dir && has_children(s, e->path2)))
                return fail_ev(e, "replaces what it cannot");
            remove_tree(s, e->path2);
        }
        move_tree(s, e->path, e->path2);
        return true;
    case VIGIL_FS_MOVED_OUT:
        if (find(s, e->path) < 0)
            return fail_ev(e, "moved out, never created");
        remove_tree(s, e->path);
        return true;
    case VIGIL_FS_MOVED_IN:
        if (!parent_exists(s, e->path))
            return fail_ev(e, "moved into an unknown directory");
        if (find(s, e->path) >= 0)
            remove_tree(s, e->path);
        add(s, e->path, dir);
        return true;
    case VIGIL_FS_MODIFIED:
    case VIGIL_FS_ATTRIB:
        if (e->path[0] && find(s, e->path) < 0)
            return fail_ev(e, "event of an unknown entry");
        return true;
    default:
        return fail_ev(e, "never expected here");
    }
}

static struct fwt_rec rec;

static bool apply_all(struct model *s, size_t *moves_out, size_t *moves_in)
{
    for (size_t i = 0; i < rec.n; i++) {
        if (!apply(s, &rec.ev[i]))
            return false;
        *moves_out += rec.ev[i].kind == VIGIL_FS_MOVED_OUT;
        *moves_in += rec.ev[i].kind == VIGIL_FS_MOVED_IN;
    }
    return true;
}

void vigil__fswatch_each(const vigil_fswatch *w, void (*fn)(const char *path, void *arg), void *arg);

static void print_watch(const char *path, void *arg)
{
    const struct model *m = arg;
    long i = path[0] ? find(m, path) : 0;
    if (i < 0 || (path[0] && !m->e[i].dir))
        fprintf(stderr, "  watched, not a directory of the tree: %s\n", path);
}

/* One watch per directory of the tree, the root included: none leaked, none missing. */
static bool watches_ok(const vigil_fswatch *w, const struct model *m, const char *when)
{
    int dirs = 1;
    for (size_t i = 0; i < m->n; i++)
        dirs += m->e[i].dir;
    if (vigil_fswatch_count(w) != dirs) {
        fprintf(stderr, "%s: %d watches for %d directories\n", when, vigil_fswatch_count(w), dirs);
        vigil__fswatch_each(w, print_watch, (void *)m);
        return false;
    }
    return true;
}

static bool seen_kind_path(uint32_t kind, const char *p)
{
    return fwt_find(&rec, 0, kind, p, NULL) >= 0;
}

/* A write or chmod must have its event only where the directory was watched when it
 * was made: one that existed before the batch (a directory made in the batch may be
 * watched only after, its entries then come from its scan). */
static bool dir_was_there(const struct model *before, const char *path)
{
    char par[2048];
    parent_of(path, par, sizeof par);
    long i = par[0] ? find(before, par) : 0;
    return !par[0] || (i >= 0 && before->e[i].dir);
}

int main(void)
{
    const char *env = getenv("VIGIL_SEED");
    unsigned long long seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL) ^ (unsigned long long)getpid();
    rng = seed;
    printf("seed %llu (VIGIL_SEED=%llu replays it)\n", seed, seed);
    fflush(stdout);
    const char *top = fwt_tmpdir("fsw-rand");
    snprintf(root, sizeof root, "%s/root", top);
    snprintf(outside, sizeof outside, "%s/out", top);
    rootlen = strlen(root);
    CHECK_SYS(mkdir(root, 0755));
    CHECK_SYS(mkdir(outside, 0755));
    vigil_loop *loop = vt_loop();
    vigil_fswatch w = {.data = &rec};
    CHECK_EQ(vigil_fswatch_start(loop, &w, root, VIGIL_FSWATCH_RECURSIVE, fwt_on_event), 0);

    struct model truth = {0}, seen = {0}, disk = {0}, before = {0};
    long nev = 0;
    /* Phase 1: batches between turns. */
    for (int batch = 0; batch < 400; batch++) {
        struct batch bt = {.last_struct = -1};
        clear(&before);
        for (size_t i = 0; i < truth.n; i++)
            add(&before, truth.e[i].p, truth.e[i].dir);
        int nops = 1 + (int)rnd(6);
        for (int k = 0; k < nops; k++) {
            one_op(&truth, &bt);
            if (rnd(8) == 0) /* sometimes the loop reads in the middle of a batch */
                CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
        }
        fwt_sync(loop, &rec, root);
        size_t mo = 0, mi = 0;
        if (!apply_all(&seen, &mo, &mi)) {
            fprintf(stderr, "batch %d (seed %llu), its events:\n", batch, seed);
            fwt_dump(&rec, 0);
            return 1;
        }
        clear(&disk);
        walk_disk(&disk);
        if (!same(&truth, &disk, "test's model vs disk")) /* the test itself */
            return 1;
        if (!same(&seen, &truth, "events vs what was done")) {
            fprintf(stderr, "batch %d (seed %llu), its events:\n", batch, seed);
            fwt_dump(&rec, 0);
            return 1;
        }
        for (int i = 0; i < bt.nw; i++)
            if (bt.wop[i] > bt.last_struct && dir_was_there(&before, bt.written[i]) &&
                !seen_kind_path(VIGIL_FS_MODIFIED, bt.written[i])) {
                fprintf(stderr, "batch %d: no MODIFIED %s\n", batch, bt.written[i]);
                fwt_dump(&rec, 0);
                return 1;
            }
        for (int i = 0; i < bt.na; i++)
            if (bt.aop[i] > bt.last_struct && dir_was_there(&before, bt.attrib[i]) &&
                !seen_kind_path(VIGIL_FS_ATTRIB, bt.attrib[i])) {
                fprintf(stderr, "batch %d: no ATTRIB %s\n", batch, bt.attrib[i]);
                fwt_dump(&rec, 0);
                return 1;
            }
        if (!watches_ok(&w, &truth, "phase 1"))
            return 1;
        nev += (long)rec.n;
        fwt_clear(&rec);
    }
    printf("phase 1: %ld events, %zu entries at the end, %d watches\n", nev, truth.n, vigil_fswatch_count(&w));

    /* Phase 2: a child makes the changes while the loop reads. */
    int rounds = 0;
    for (; rounds < 6; rounds++) {
        unsigned long long child_seed = rng ^ (unsigned long long)rounds;
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            rng = child_seed;
            allow_dir_rename = false;
            uniq += 1000000L * (rounds + 1);
            for (int k = 0; k < 400; k++) {
                struct batch bt = {.last_struct = -1};
                one_op(&truth, &bt);
            }
            char p[1024];
            snprintf(p, sizeof p, "%s/.sync-%d", root, 1000000 + 1000 * rounds);
            close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
            _exit(0);
        }
        struct fwt_sync_arg a = {&rec, 1000000 + 1000 * rounds};
        fwt_run_until(loop, fwt_sync_done, &a);
        /* Once more: what the watcher's own handling queued (the IN_IGNORED of watches
         * it dropped) is read too, so windows it opened are closed. */
        fwt_sync(loop, &rec, root);
        int status;
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        size_t mo = 0, mi = 0;
        if (!apply_all(&seen, &mo, &mi)) {
            fprintf(stderr, "phase 2 round %d (seed %llu), events:\n", rounds, seed);
            fwt_dump(&rec, 0);
            return 1;
        }
        clear(&truth);
        walk_disk(&truth);
        if (!same(&seen, &truth, "phase 2: events vs disk")) {
            fprintf(stderr, "phase 2 round %d (seed %llu)\n", rounds, seed);
            fwt_dump(&rec, 0);
            return 1;
        }
        if (!watches_ok(&w, &truth, "phase 2"))
            return 1;
        nev += (long)rec.n;
        fwt_clear(&rec);
    }
    printf("phase 2: %d rounds, %ld events in all, %zu entries at the end, %d watches\n", rounds, nev, truth.n,
           vigil_fswatch_count(&w));
    clear(&truth);
    clear(&seen);
    clear(&disk);
    clear(&before);
    free(before.e);
    free(truth.e);
    free(seen.e);
    free(disk.e);
    free(rec.ev);
    CHECK_EQ(vigil_fswatch_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
