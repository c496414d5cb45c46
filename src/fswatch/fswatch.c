/* src/fswatch/: file-system events (<vigil/fswatch.h>). Owns the watchers: one inotify
 * instance each, read through an ordinary fd watcher of the loop (vigil_io_start), the
 * table of watched directories (a tree of nodes, found by watch descriptor through a
 * hash), the scan of directories that appear, the pairing of moves, the rebuild after
 * a queue overflow. May call: the public loop API, src/loop's module slot (so that
 * vigil_loop_free stops watchers still started). Loop thread only.
 *
 * Reading. One read(2) of up to FSW_BUF bytes per readiness, and another only while
 * the buffer came back nearly full (more is queued) or a move's first half waits for
 * its second: the level-triggered fd watcher calls again if anything is left, so a
 * reader that keeps up makes one read per wake-up, never one that returns EAGAIN.
 * Paths are built right to left, from the node up the tree, into the watcher's
 * buffers; no event allocates.
 *
 * New directories, the race. A directory D that appears in the tree is handled when its
 * event is read: add the watch, read D, report each entry found (CREATED, SCANNED), and
 * note the byte offset of the inotify stream up to which events may predate the end of
 * the scan (bytes read so far + FIONREAD after closedir): D's "window". An event of an
 * entry the scan saw is queued before the scan saw it (fsnotify_create and friends
 * run under D's i_rwsem, which getdents takes too), so every duplicate lies inside the
 * window. While D's window is open the watcher keeps the names of D it has reported
 * (scanned, or created by an event read since) and drops: a CREATED of a name the scan
 * reported (the duplicate), and any other event of a name never reported (an entry
 * that existed before the watch and went away before the scan: the program never heard
 * of it). Windows close in the order they opened (their offsets grow), checked at
 * every event against the head of a FIFO; no window open costs one compare.
 */
#include "loop/loop.h"
#include "sys/list.h"
#include "vigil/fswatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define FSW_BUF (64 * 1024) /* bytes per read: ~2000 events with short names */
#define FSW_EVMAX (sizeof(struct inotify_event) + NAME_MAX + 1)

#define FSW_MASK                                                                                   \
    (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | \
     IN_MOVE_SELF | IN_EXCL_UNLINK)

struct fsw_window;

/* A watched directory (or the watched file, the root). */
struct fsw_node {
    int wd;
    uint32_t nlen;
    char *name;                    /* "" for the root */
    struct fsw_node *parent;       /* NULL for the root */
    struct fsw_node *child;        /* first child */
    struct fsw_node *next, *prev;  /* siblings */
    struct fsw_node *hnext;        /* wd hash chain */
    struct fsw_window *win;        /* open scan window, or NULL */
    struct fsw_window *limbo;      /* detached by that window's rescan (see scan_fd) */
};

VIGIL__HLIST_DEFINE(child_list, struct fsw_node, next, prev)

enum { WIN_SCANNED = 1, WIN_KNOWN = 2 };
struct fsw_went {
    uint32_t hash;
    uint32_t state;
    char *name;
};
struct fsw_window {
    uint64_t barrier;              /* stream offset where it closes */
    struct fsw_node *node;         /* NULL once the node is gone */
    struct fsw_window *next;       /* FIFO */
    size_t n, cap;
    struct fsw_went *ent;
    size_t nlimbo, caplimbo;
    struct fsw_node **limbo;       /* children the rescan of node did not find */
};

struct fsw_state {
    vigil_loop *loop;
    vigil_fswatch *pub;
    vigil_fswatch_cb cb;
    struct fsw_state *mnext, *mprev; /* the loop's watchers (module list) */
    vigil_io io;
    int fd;
    uint32_t flags;
    bool root_dir;
    bool dead;                     /* stopped (maybe while dispatching) */
    bool rebuilt;                  /* the fd was replaced: drop the rest of the buffer */
    int dispatching;
    struct fsw_node *root;
    struct fsw_node **bucket;
    size_t nbucket, nnode;
    struct fsw_window *win_head, *win_tail;
    uint64_t rd_total;             /* bytes read from this watcher's inotify stream */
    struct {                       /* a move's first half, waiting for its second */
        bool on;
        bool isdir;
        bool missed; /* a directory whose entries were never reported */
        uint32_t cookie;
        struct fsw_node *parent;
        uint32_t nlen;
        char name[NAME_MAX + 1];
    } mv;
    struct fsw_miss *miss;         /* directories reported but not watched yet */
    size_t nmiss, capmiss;
    size_t rootlen;
    char *rootpath;
    char path[PATH_MAX], path2[PATH_MAX], full[PATH_MAX];
    char *buf;
};

VIGIL__HLIST_DEFINE(watcher_list, struct fsw_state, mnext, mprev)

/* A directory reported (CREATED, MOVED) whose watch could not be added because its path
 * was not there: either it went away (its DELETED or MOVED comes later and drops
 * this), or a directory above it was renamed after its event was queued, so the path
 * built from the tree as read so far is stale. The next MOVED of a directory retries. */
struct fsw_miss {
    struct fsw_node *parent;
    char *name;
};

struct fsw_mod {
    struct fsw_state *head;
};

static void limbo_leave(struct fsw_node *n);

_Static_assert(sizeof(void *) <= sizeof(uint64_t), "private_ holds a pointer");

static inline struct fsw_state *state_of(const vigil_fswatch *w)
{
    return (struct fsw_state *)(uintptr_t)w->private_[0];
}

/* ---------------------------------------------------------------- the module */

static void mod_fini(vigil_loop *loop, void *state)
{
    struct fsw_mod *m = state;
    while (m->head)
        vigil_fswatch_stop(loop, m->head->pub);
    free(m);
}

static struct fsw_mod *mod_get(vigil_loop *loop)
{
    return vigil__module_get(loop, VIGIL__MOD_FSWATCH, sizeof(struct fsw_mod), mod_fini, NULL);
}

/* ------------------------------------------------------------- nodes by wd */

static struct fsw_node *node_find(const struct fsw_state *st, int wd)
{
    if (!st->nbucket)
        return NULL;
    struct fsw_node *n = st->bucket[(size_t)wd & (st->nbucket - 1)];
    while (n && n->wd != wd)
        n = n->hnext;
    return n;
}

/* Watch descriptors are handed out in increasing order (idr_alloc_cyclic): wd & mask
 * spreads them evenly. */
static int hash_grow(struct fsw_state *st)
{
    size_t nb = st->nbucket ? st->nbucket * 2 : 64;
    struct fsw_node **b = calloc(nb, sizeof *b);
    if (!b)
        return -ENOMEM;
    for (size_t i = 0; i < st->nbucket; i++) {
        struct fsw_node *n = st->bucket[i];
        while (n) {
            struct fsw_node *next = n->hnext;
            size_t h = (size_t)n->wd & (nb - 1);
            n->hnext = b[h];
            b[h] = n;
            n = next;
        }
    }
    free(st->bucket);
    st->bucket = b;
    st->nbucket = nb;
    return 0;
}

static void hash_del(struct fsw_state *st, struct fsw_node *node)
{
    struct fsw_node **pp = &st->bucket[(size_t)node->wd & (st->nbucket - 1)];
    while (*pp && *pp != node)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = node->hnext;
    st->nnode--;
}

static void child_link(struct fsw_node *parent, struct fsw_node *n)
{
    n->parent = parent;
    child_list_add(&parent->child, n);
}

static void child_unlink(struct fsw_node *n)
{
    if (!n->parent)
        return;
    child_list_del(&n->parent->child, n);
    n->parent = NULL;
}

static struct fsw_node *child_find(const struct fsw_node *parent, const char *name, size_t nlen)
{
    for (struct fsw_node *c = parent->child; c; c = c->next)
        if (c->nlen == nlen && memcmp(c->name, name, nlen) == 0)
            return c;
    return NULL;
}

/* A new node for wd under parent (NULL: the root). */
static struct fsw_node *node_new(struct fsw_state *st, struct fsw_node *parent, const char *name, size_t nlen, int wd)
{
    if ((st->nnode + 1) * 2 > st->nbucket * 3 && hash_grow(st) < 0)
        return NULL;
    struct fsw_node *n = calloc(1, sizeof *n);
    char *nm = malloc(nlen + 1);
    if (!n || !nm) {
        free(n);
        free(nm);
        return NULL;
    }
    memcpy(nm, name, nlen);
    nm[nlen] = '\0';
    n->name = nm;
    n->nlen = (uint32_t)nlen;
    n->wd = wd;
    size_t h = (size_t)wd & (st->nbucket - 1);
    n->hnext = st->bucket[h];
    st->bucket[h] = n;
    st->nnode++;
    if (parent)
        child_link(parent, n);
    return n;
}

static int node_rename(struct fsw_node *n, struct fsw_node *parent, const char *name, size_t nlen)
{
    if (nlen != n->nlen || memcmp(n->name, name, nlen) != 0) {
        char *nm = malloc(nlen + 1);
        if (!nm)
            return -ENOMEM;
        memcpy(nm, name, nlen);
        nm[nlen] = '\0';
        free(n->name);
        n->name = nm;
        n->nlen = (uint32_t)nlen;
    }
    child_unlink(n);
    limbo_leave(n);
    child_link(parent, n);
    return 0;
}

/* True if node hangs from the root (not in limbo, nor below a node in limbo). */
static bool attached(const struct fsw_state *st, const struct fsw_node *node)
{
    while (node->parent)
        node = node->parent;
    return node == st->root;
}

static void limbo_leave(struct fsw_node *n)
{
    struct fsw_window *w = n->limbo;
    if (!w)
        return;
    for (size_t i = 0; i < w->nlimbo; i++) {
        if (w->limbo[i] == n) {
            w->limbo[i] = w->limbo[--w->nlimbo];
            break;
        }
    }
    n->limbo = NULL;
}

static bool limbo_enter(struct fsw_window *w, struct fsw_node *n)
{
    if (w->nlimbo == w->caplimbo) {
        size_t cap = w->caplimbo ? w->caplimbo * 2 : 8;
        struct fsw_node **l = realloc(w->limbo, cap * sizeof *l);
        if (!l)
            return false;
        w->limbo = l;
        w->caplimbo = cap;
    }
    child_unlink(n);
    w->limbo[w->nlimbo++] = n;
    n->limbo = w;
    return true;
}

/* Frees n and everything under it; rm: also drop their watches in the kernel (a
 * directory that left the tree still exists; a deleted one's watch is gone already). */
static void node_free(struct fsw_state *st, struct fsw_node *n, bool rm)
{
    while (n->child)
        node_free(st, n->child, rm);
    child_unlink(n);
    limbo_leave(n);
    if (rm && st->fd >= 0)
        inotify_rm_watch(st->fd, n->wd);
    hash_del(st, n);
    if (n->win)
        n->win->node = NULL;
    if (st->mv.on && st->mv.parent == n)
        st->mv.on = false;
    for (size_t i = 0; i < st->nmiss;) {
        if (st->miss[i].parent == n) {
            free(st->miss[i].name);
            st->miss[i] = st->miss[--st->nmiss];
        } else {
            i++;
        }
    }
    free(n->name);
    free(n);
}

/* -------------------------------------------------------------------- paths */

/* The path of node (relative to the root) with "/name" after it when name is given,
 * written at the end of buf; its start, or NULL if it does not fit. */
static const char *rel_path(const struct fsw_node *node, const char *name, size_t nlen, char *buf, size_t cap)
{
    char *p = buf + cap;
    *--p = '\0';
    bool have = false;
    if (name) {
        if (nlen + 1 > (size_t)(p - buf))
            return NULL;
        p -= nlen;
        memcpy(p, name, nlen);
        have = true;
    }
    for (const struct fsw_node *n = node; n && n->parent; n = n->parent) {
        if (n->nlen + 2 > (size_t)(p - buf))
            return NULL;
        if (have)
            *--p = '/';
        p -= n->nlen;
        memcpy(p, n->name, n->nlen);
        have = true;
    }
    return p;
}

/* The absolute path (root path + "/" + relative path) in st->full, or NULL. */
static const char *full_path(struct fsw_state *st, const struct fsw_node *node, const char *name, size_t nlen)
{
    const char *rel = rel_path(node, name, nlen, st->path2, sizeof st->path2);
    if (!rel)
        return NULL;
    size_t rl = strlen(rel);
    if (st->rootlen + 1 + rl + 1 > sizeof st->full)
        return NULL;
    memcpy(st->full, st->rootpath, st->rootlen);
    size_t at = st->rootlen;
    if (rl) {
        if (at != 1 || st->full[0] != '/') /* the root "/" has its separator */
            st->full[at++] = '/';
        memcpy(st->full + at, rel, rl);
        at += rl;
    }
    st->full[at] = '\0';
    return st->full;
}

/* ----------------------------------------------------------------- emitting */

static void state_free(struct fsw_state *st);

/* Runs the callback; true when the watcher was stopped meanwhile (stop now). */
static bool emit(struct fsw_state *st, uint32_t kind, uint32_t flags, const char *p1, const char *p2, int err)
{
    struct vigil_fswatch_event ev = {.kind = kind, .flags = flags, .path = p1, .path2 = p2, .err = err};
    st->cb(st->loop, st->pub, &ev);
    return st->dead;
}

static bool emit_at(struct fsw_state *st, uint32_t kind, uint32_t flags, const struct fsw_node *node, const char *name,
                    size_t nlen)
{
    const char *p = rel_path(node, name, nlen, st->path, sizeof st->path);
    if (!p)
        return emit(st, VIGIL_FS_ERROR, flags, "", NULL, -ENAMETOOLONG);
    return emit(st, kind, flags, p, NULL, 0);
}

/* ------------------------------------------------------------------ windows */

static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static struct fsw_went *win_find(struct fsw_window *w, const char *name, size_t nlen, uint32_t h)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->ent[i].hash == h && strncmp(w->ent[i].name, name, nlen) == 0 && w->ent[i].name[nlen] == '\0')
            return &w->ent[i];
    return NULL;
}

static int win_add(struct fsw_window *w, const char *name, size_t nlen, uint32_t h, uint32_t state)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        struct fsw_went *e = realloc(w->ent, cap * sizeof *e);
        if (!e)
            return -ENOMEM;
        w->ent = e;
        w->cap = cap;
    }
    char *nm = malloc(nlen + 1);
    if (!nm)
        return -ENOMEM;
    memcpy(nm, name, nlen);
    nm[nlen] = '\0';
    w->ent[w->n++] = (struct fsw_went){.hash = h, .state = state, .name = nm};
    return 0;
}

static void win_del(struct fsw_window *w, struct fsw_went *e)
{
    free(e->name);
    *e = w->ent[--w->n];
}

/* Frees w. The children its rescan left in limbo and that no event brought back into
 * the tree by now (every event queued before the rescan is read) left the tree: they
 * are dropped with their watches. */
static void win_free(struct fsw_state *st, struct fsw_window *w)
{
    while (w->nlimbo) {
        struct fsw_node *n = w->limbo[w->nlimbo - 1];
        node_free(st, n, true); /* limbo_leave shrinks the list */
    }
    free(w->limbo);
    for (size_t i = 0; i < w->n; i++)
        free(w->ent[i].name);
    free(w->ent);
    if (w->node && w->node->win == w)
        w->node->win = NULL;
    free(w);
}

/* Closes the windows whose events have all been read (offset: the next event's). */
static void win_expire(struct fsw_state *st, uint64_t offset)
{
    while (st->win_head && st->win_head->barrier <= offset) {
        struct fsw_window *w = st->win_head;
        st->win_head = w->next;
        if (!st->win_head)
            st->win_tail = NULL;
        win_free(st, w);
    }
}

static void win_drop_all(struct fsw_state *st)
{
    while (st->win_head) {
        struct fsw_window *w = st->win_head;
        st->win_head = w->next;
        win_free(st, w);
    }
    st->win_tail = NULL;
}

enum { WIN_PASS = 0, WIN_DROP = 1, WIN_DROP_MOVE = 2 };

/* An event of name in a directory whose window is open: WIN_DROP to drop it (see the
 * top of the file); WIN_DROP_MOVE for a rename into the directory of a name its scan
 * reported (the scan saw the renamed entry, and reported it and what is under it as
 * created): the rename's first half then tells only that the entry left its old place.
 * If memory runs out the event passes: a duplicate, never a loss. */
static int win_filter(struct fsw_window *w, uint32_t mask, const char *name, size_t nlen)
{
    uint32_t h = name_hash(name, nlen);
    struct fsw_went *e = win_find(w, name, nlen, h);
    if (mask & (IN_CREATE | IN_MOVED_TO)) {
        if (e && e->state == WIN_SCANNED) {
            e->state = WIN_KNOWN;
            return mask & IN_CREATE ? WIN_DROP : WIN_DROP_MOVE;
        }
        if (!e)
            win_add(w, name, nlen, h, WIN_KNOWN);
        return WIN_PASS;
    }
    if (!e)
        return WIN_DROP; /* never reported: came and went before the scan */
    if (mask & (IN_DELETE | IN_MOVED_FROM))
        win_del(w, e);
    return WIN_PASS;
}

/* ------------------------------------------------------- adding directories */

static void miss_add(struct fsw_state *st, struct fsw_node *parent, const char *name, size_t nlen)
{
    if (st->nmiss == st->capmiss) {
        size_t cap = st->capmiss ? st->capmiss * 2 : 8;
        struct fsw_miss *m = realloc(st->miss, cap * sizeof *m);
        if (!m)
            return;
        st->miss = m;
        st->capmiss = cap;
    }
    char *nm = malloc(nlen + 1);
    if (!nm)
        return;
    memcpy(nm, name, nlen);
    nm[nlen] = '\0';
    st->miss[st->nmiss++] = (struct fsw_miss){parent, nm};
}

static bool miss_del(struct fsw_state *st, struct fsw_node *parent, const char *name, size_t nlen)
{
    for (size_t i = 0; i < st->nmiss; i++) {
        if (st->miss[i].parent == parent && !strncmp(st->miss[i].name, name, nlen) && !st->miss[i].name[nlen]) {
            free(st->miss[i].name);
            st->miss[i] = st->miss[--st->nmiss];
            return true;
        }
    }
    return false;
}

enum add_mode {
    ADD_START,  /* vigil_fswatch_start: an error fails the start; nothing reported */
    ADD_QUIET,  /* the rebuild after an overflow: nothing reported but errors */
    ADD_REPORT, /* a directory appeared: its entries are reported CREATED (SCANNED) */
    ADD_FOLLOW, /* a directory was renamed in the tree: its node follows it; if it was
                   never watched, as ADD_REPORT */
};

static int add_dir(struct fsw_state *st, struct fsw_node *parent, const char *name, size_t nlen, enum add_mode mode);

/* Reads the directory open as dfd (node's; dfd is closed here): watches its
 * subdirectories and, in ADD_REPORT, reports every entry and opens node's window. 0, a
 * negative errno (ADD_START), or 1 if the watcher was stopped by a callback. */
static int scan_fd(struct fsw_state *st, struct fsw_node *node, int dfd, enum add_mode mode)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return mode == ADD_START ? -e : 0;
    }
    struct fsw_window *w = NULL;
    if (mode == ADD_REPORT) {
        w = calloc(1, sizeof *w);
        if (w) {
            if (node->win) /* scanned again (moved here): the older window ends as it would */
                node->win->node = NULL;
            w->node = node;
            node->win = w;
            /* A rescan (a watched directory found in a new one): what the tree has under
             * it may have moved away since. Its children wait in limbo, their events
             * dropped, until the scan finds them here again, or an event of theirs
             * brings them back elsewhere (MOVED_IN), or the window closes. */
            while (node->child && limbo_enter(w, node->child))
                ;
        }
    }
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *nm = de->d_name;
        if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
            continue;
        size_t nlen = strlen(nm);
        bool isdir = de->d_type == DT_DIR;
        if (de->d_type == DT_UNKNOWN) {
            struct stat sb;
            if (fstatat(dfd, nm, &sb, AT_SYMLINK_NOFOLLOW) < 0)
                continue;
            isdir = S_ISDIR(sb.st_mode);
        }
        if (mode == ADD_REPORT) {
            if (w)
                win_add(w, nm, nlen, name_hash(nm, nlen), WIN_SCANNED);
            if (emit_at(st, VIGIL_FS_CREATED, VIGIL_FS_SCANNED | (isdir ? VIGIL_FS_ISDIR : 0), node, nm, nlen)) {
                rc = 1;
                break;
            }
        }
        if (isdir && (st->flags & VIGIL_FSWATCH_RECURSIVE)) {
            rc = add_dir(st, node, nm, nlen, mode);
            if (rc)
                break;
        }
    }
    closedir(d);
    if (w) {
        /* Every event of an entry seen above is queued by now: the window closes once
         * the stream has been read up to here. */
        int q = 0;
        if (rc != 1 && ioctl(st->fd, FIONREAD, &q) < 0)
            q = 0;
        w->barrier = st->rd_total + (uint64_t)(q > 0 ? q : 0);
        if (rc == 1 || !w->node) {
            win_free(st, w);
        } else {
            if (st->win_tail)
                st->win_tail->next = w;
            else
                st->win_head = w;
            st->win_tail = w;
        }
    }
    return rc;
}

/* Watches the directory open as dfd: through /proc/self/fd, so that the watch and the
 * scan are of one directory even if it is renamed meanwhile; by its path where /proc is
 * not mounted. The watch descriptor, or a negative errno. */
static int watch_fd(struct fsw_state *st, int dfd, const char *full, uint32_t mask)
{
    char proc[40];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", dfd);
    int wd = inotify_add_watch(st->fd, proc, mask);
    if (wd >= 0)
        return wd;
    if (errno != ENOENT)
        return -errno;
    wd = inotify_add_watch(st->fd, full, mask | IN_DONT_FOLLOW);
    return wd >= 0 ? wd : -errno;
}

/* True if node is n or below it. */
static bool node_within(const struct fsw_node *node, const struct fsw_node *n)
{
    for (; node; node = node->parent)
        if (node == n)
            return true;
    return false;
}

/* The directory at parent/name is another than the node the tree has there (keep):
 * that node's directory was replaced (a rename over an empty directory) and is gone. */
static void drop_stale(struct fsw_state *st, struct fsw_node *parent, const char *name, size_t nlen,
                       struct fsw_node *keep)
{
    for (struct fsw_node *c = parent->child; c; c = c->next) {
        if (c != keep && c->nlen == nlen && memcmp(c->name, name, nlen) == 0) {
            node_free(st, c, false);
            return;
        }
    }
}

/* Watches parent/name and what is under it. If that directory is watched already (a
 * directory renamed), its node takes the new name (and, in ADD_REPORT, what is under
 * it is reported). 0, a negative errno (ADD_START only), or 1 if the watcher was
 * stopped by a callback. */
static int add_dir(struct fsw_state *st, struct fsw_node *parent, const char *name, size_t nlen, enum add_mode mode)
{
    if (!attached(st, parent))
        return 0; /* its place is unknown: it is found again, or dropped (see scan_fd) */
    const char *full = full_path(st, parent, name, nlen);
    int err = -ENAMETOOLONG;
    if (full) {
        int dfd = open(full, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) {
            err = -errno;
            if (err == -ENOENT || err == -ENOTDIR || err == -ELOOP) {
                /* Gone again (its event is queued), a symbolic link, or a stale path. */
                if (err != -ELOOP && (mode == ADD_REPORT || (mode == ADD_FOLLOW && !child_find(parent, name, nlen))))
                    miss_add(st, parent, name, nlen);
                return 0;
            }
        } else {
            int wd = watch_fd(st, dfd, full, FSW_MASK | IN_ONLYDIR);
            struct fsw_node *n = wd >= 0 ? node_find(st, wd) : NULL;
            enum add_mode scan_mode = mode == ADD_FOLLOW ? ADD_REPORT : mode;
            if (wd < 0) {
                err = wd;
            } else if (n) {
                /* Watched already: a directory renamed here. Its node follows it. Found
                 * by the scan of a new directory (ADD_REPORT), it was reported CREATED
                 * there, so what is under it is reported too. */
                if (n == st->root || node_within(parent, n)) {
                    close(dfd);
                    return 0; /* the tree as read so far is stale: its events will tell */
                }
                node_rename(n, parent, name, nlen);
                drop_stale(st, parent, name, nlen, n);
                if (st->nmiss)
                    miss_del(st, parent, name, nlen);
                if (mode == ADD_REPORT)
                    return scan_fd(st, n, dfd, mode);
                close(dfd);
                return 0;
            } else {
                drop_stale(st, parent, name, nlen, NULL);
                if (!(n = node_new(st, parent, name, nlen, wd))) {
                    inotify_rm_watch(st->fd, wd);
                    err = -ENOMEM;
                } else {
                    /* Watched now: if its CREATED found it gone (moved on before the
                     * event was read) and this is the scan that found it again, it is
                     * missed no more. A stale entry would make its next rename look
                     * like the move of a directory never scanned, and report what is
                     * under it a second time. */
                    if (st->nmiss)
                        miss_del(st, parent, name, nlen);
                    return scan_fd(st, n, dfd, scan_mode);
                }
            }
            close(dfd);
        }
    }
    if (mode == ADD_START)
        return err;
    const char *p = rel_path(parent, name, nlen, st->path, sizeof st->path);
    return emit(st, VIGIL_FS_ERROR, VIGIL_FS_ISDIR, p ? p : "", NULL, err) ? 1 : 0;
}

/* ------------------------------------------------------- setup and teardown */

static void io_cb(vigil_loop *loop, vigil_io *io, int revents);

static void watches_drop(struct fsw_state *st)
{
    if (st->root)
        node_free(st, st->root, false);
    st->root = NULL;
    win_drop_all(st);
    st->mv.on = false;
    for (size_t i = 0; i < st->nmiss; i++)
        free(st->miss[i].name);
    st->nmiss = 0;
    if (st->fd >= 0) {
        vigil_io_stop(st->loop, &st->io);
        close(st->fd);
        st->fd = -1;
    }
}

/* A fresh inotify instance watching the tree as it is now. */
static int watches_make(struct fsw_state *st, enum add_mode mode)
{
    st->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (st->fd < 0)
        return -errno;
    int wd = inotify_add_watch(st->fd, st->rootpath, FSW_MASK);
    if (wd < 0)
        return -errno;
    struct fsw_node *root = node_new(st, NULL, "", 0, wd);
    if (!root)
        return -ENOMEM;
    st->root = root;
    struct stat sb;
    if (stat(st->rootpath, &sb) < 0)
        return -errno;
    st->root_dir = S_ISDIR(sb.st_mode);
    if (st->root_dir && (st->flags & VIGIL_FSWATCH_RECURSIVE)) {
        /* The root may be a symbolic link: followed, as inotify_add_watch did. */
        int dfd = open(st->rootpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
            return -errno;
        int rc = scan_fd(st, root, dfd, mode);
        if (rc)
            return rc < 0 ? rc : 0;
    }
    if (st->dead)
        return 0;
    st->io.data = st;
    return vigil_io_start(st->loop, &st->io, st->fd, VIGIL_READ, io_cb);
}

static void state_free(struct fsw_state *st)
{
    free(st->bucket);
    free(st->miss);
    free(st->rootpath);
    free(st->buf);
    free(st);
}

/* ------------------------------------------------------------------ events */

/* Stops the watcher from inside the dispatch (root gone). */
static void self_stop(struct fsw_state *st)
{
    if (!st->dead)
        vigil_fswatch_stop(st->loop, st->pub);
}

/* The first half of a move found no second half: the entry left the tree. */
static bool flush_moved_out(struct fsw_state *st)
{
    if (!st->mv.on)
        return false;
    st->mv.on = false;
    const char *p = rel_path(st->mv.parent, st->mv.name, st->mv.nlen, st->path, sizeof st->path);
    if (st->mv.isdir && (st->flags & VIGIL_FSWATCH_RECURSIVE)) {
        struct fsw_node *c = child_find(st->mv.parent, st->mv.name, st->mv.nlen);
        if (c)
            node_free(st, c, true);
    }
    if (!p)
        return emit(st, VIGIL_FS_ERROR, 0, "", NULL, -ENAMETOOLONG);
    return emit(st, VIGIL_FS_MOVED_OUT, st->mv.isdir ? VIGIL_FS_ISDIR : 0, p, NULL, 0);
}

/* After IN_Q_OVERFLOW: a new instance, the tree walked afresh, RESCAN. */
static bool overflow(struct fsw_state *st)
{
    watches_drop(st);
    st->rebuilt = true;
    int rc = watches_make(st, ADD_QUIET);
    if (st->dead)
        return true;
    if (rc < 0) {
        /* The root is gone (or cannot be watched any more). */
        if (emit(st, VIGIL_FS_RESCAN, 0, NULL, NULL, 0))
            return true;
        self_stop(st); /* stopped when its callback runs */
        emit(st, VIGIL_FS_ROOT_GONE, st->root_dir ? VIGIL_FS_ISDIR : 0, "", NULL, 0);
        return true;
    }
    return emit(st, VIGIL_FS_RESCAN, 0, NULL, NULL, 0);
}

/* A directory was renamed: paths under it are current again, retry the directories
 * that could not be watched (see struct fsw_miss). True if a callback stopped the
 * watcher. */
static bool miss_retry(struct fsw_state *st)
{
    struct fsw_miss *list = st->miss;
    size_t n = st->nmiss;
    st->miss = NULL;
    st->nmiss = st->capmiss = 0;
    bool stopped = false;
    for (size_t i = 0; i < n; i++) {
        if (!stopped && add_dir(st, list[i].parent, list[i].name, strlen(list[i].name), ADD_FOLLOW) == 1)
            stopped = true;
        free(list[i].name);
    }
    free(list);
    return stopped;
}

/* One inotify event; true when the rest of the buffer must be dropped (stopped, or
 * the instance rebuilt). */
static bool handle(struct fsw_state *st, const struct inotify_event *ie, uint64_t offset)
{
    uint32_t m = ie->mask;
    if (m & IN_Q_OVERFLOW) {
        flush_moved_out(st);
        return st->dead || overflow(st);
    }
    if (st->win_head)
        win_expire(st, offset);
    if (st->mv.on && !((m & IN_MOVED_TO) && ie->cookie == st->mv.cookie)) {
        if (flush_moved_out(st))
            return true;
    }
    struct fsw_node *node = node_find(st, ie->wd);
    if (!node)
        return false; /* a watch dropped since (moved out, deleted) */
    if (!attached(st, node)) {
        if (m & IN_IGNORED)
            node_free(st, node, false);
        return false; /* in limbo: where it is now, the program was not told */
    }
    uint32_t isdir = (m & IN_ISDIR) ? VIGIL_FS_ISDIR : 0;
    if (node == st->root && (m & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT))) {
        self_stop(st); /* stopped when its callback runs */
        emit(st, VIGIL_FS_ROOT_GONE, st->root_dir ? VIGIL_FS_ISDIR : 0, "", NULL, 0);
        return true;
    }
    if (m & IN_IGNORED) {
        node_free(st, node, false); /* a directory of the tree was deleted */
        return false;
    }
    if (!ie->len) {
        /* An event on the watched object itself; a subdirectory's are reported by its
         * parent, with its name. */
        if (node != st->root || !(m & (IN_MODIFY | IN_ATTRIB)))
            return false;
        return emit(st, (m & IN_MODIFY) ? VIGIL_FS_MODIFIED : VIGIL_FS_ATTRIB, st->root_dir ? VIGIL_FS_ISDIR : 0, "",
                    NULL, 0);
    }
    const char *name = ie->name;
    size_t nlen = strnlen(name, ie->len);
    if (node->win) {
        int f = win_filter(node->win, m, name, nlen);
        if (f == WIN_DROP_MOVE && st->mv.on) /* its first half was the pending move */
            return flush_moved_out(st);
        if (f != WIN_PASS)
            return false;
    }
    bool rec = (st->flags & VIGIL_FSWATCH_RECURSIVE) != 0;

    if (m & IN_CREATE) {
        if (emit_at(st, VIGIL_FS_CREATED, isdir, node, name, nlen))
            return true;
        if (isdir && rec)
            return add_dir(st, node, name, nlen, ADD_REPORT) == 1;
        return false;
    }
    bool missed = isdir && st->nmiss && (m & (IN_DELETE | IN_MOVED_FROM)) && miss_del(st, node, name, nlen);
    if (m & IN_DELETE) {
        if (isdir && rec) {
            struct fsw_node *c = child_find(node, name, nlen);
            if (c)
                node_free(st, c, false);
        }
        return emit_at(st, VIGIL_FS_DELETED, isdir, node, name, nlen);
    }
    if (m & IN_MOVED_FROM) {
        st->mv.on = true;
        st->mv.missed = missed;
        st->mv.isdir = isdir != 0;
        st->mv.cookie = ie->cookie;
        st->mv.parent = node;
        st->mv.nlen = (uint32_t)nlen;
        memcpy(st->mv.name, name, nlen);
        st->mv.name[nlen] = '\0';
        return false;
    }
    if (m & IN_MOVED_TO) {
        if (st->mv.on) { /* its cookie matched: one move inside the tree */
            st->mv.on = false;
            const char *from = rel_path(st->mv.parent, st->mv.name, st->mv.nlen, st->path, sizeof st->path);
            const char *to = rel_path(node, name, nlen, st->path2, sizeof st->path2);
            if (isdir && rec) {
                struct fsw_node *c = child_find(st->mv.parent, st->mv.name, st->mv.nlen);
                struct fsw_node *old = child_find(node, name, nlen);
                if (old && old != c)
                    node_free(st, old, false); /* the empty directory it replaced */
                if (c)
                    node_rename(c, node, name, nlen);
            }
            if (!from || !to) {
                if (emit(st, VIGIL_FS_ERROR, isdir, "", NULL, -ENAMETOOLONG))
                    return true;
            } else if (emit(st, VIGIL_FS_MOVED, isdir, from, to, 0)) {
                return true;
            }
            /* The directory's node follows it (add_dir finds its watch and renames it),
             * or, if it was never watched (renamed before its creation was read), it is
             * watched and scanned now. By the watch, not by the old name: a new
             * directory may have taken the old name since. */
            if (isdir && rec) {
                /* A directory whose watch could not be added where it was reported:
                 * what is under it was never reported, so it is now. */
                if (add_dir(st, node, name, nlen, st->mv.missed ? ADD_REPORT : ADD_FOLLOW) == 1)
                    return true;
                return st->nmiss && miss_retry(st);
            }
            return false;
        }
        if (emit_at(st, VIGIL_FS_MOVED_IN, isdir, node, name, nlen))
            return true;
        if (isdir && rec)
            return add_dir(st, node, name, nlen, ADD_REPORT) == 1;
        return false;
    }
    if (m & IN_MODIFY)
        return emit_at(st, VIGIL_FS_MODIFIED, isdir, node, name, nlen);
    if (m & IN_ATTRIB)
        return emit_at(st, VIGIL_FS_ATTRIB, isdir, node, name, nlen);
    return false;
}

static void io_cb(vigil_loop *loop, vigil_io *io, int revents)
{
    (void)loop;
    struct fsw_state *st = io->data;
    if (revents < 0) {
        /* The loop could not watch the inotify fd (it cannot happen unless the program
         * closed an fd it does not own): nothing more will come. */
        st->dispatching++;
        if (!emit(st, VIGIL_FS_ERROR, 0, "", NULL, revents))
            self_stop(st);
        st->dispatching--;
        if (st->dead && !st->dispatching)
            state_free(st);
        return;
    }
    st->dispatching++;
    st->rebuilt = false;
    bool retried = false;
    for (;;) {
        ssize_t n = read(st->fd, st->buf, FSW_BUF);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                emit(st, VIGIL_FS_ERROR, 0, "", NULL, -errno);
            break;
        }
        uint64_t base = st->rd_total;
        st->rd_total += (uint64_t)n;
        bool drop = false;
        for (ssize_t pos = 0; pos + (ssize_t)sizeof(struct inotify_event) <= n;) {
            const struct inotify_event *ie = (const struct inotify_event *)(void *)(st->buf + pos);
            if (handle(st, ie, base + (uint64_t)pos)) {
                drop = true;
                break;
            }
            pos += (ssize_t)(sizeof *ie + ie->len);
        }
        if (drop)
            break;
        if (st->win_head) /* every event read is handled: close the windows it ends */
            win_expire(st, st->rd_total);
        if ((size_t)n + FSW_EVMAX > FSW_BUF)
            continue; /* the buffer was nearly full: more is queued */
        if (st->mv.on && !retried) {
            retried = true; /* a move's second half may be on its way */
            continue;
        }
        break;
    }
    if (!st->dead && !st->rebuilt)
        flush_moved_out(st);
    st->dispatching--;
    if (st->dead && !st->dispatching)
        state_free(st);
}

/* --------------------------------------------------------------------- API */

int vigil_fswatch_start(vigil_loop *loop, vigil_fswatch *w, const char *path, uint32_t flags, vigil_fswatch_cb cb)
{
    if (!loop || !w || !path || !cb || (flags & ~VIGIL_FSWATCH_RECURSIVE))
        return -EINVAL;
    if (state_of(w))
        return -EBUSY;
    if (!*path)
        return -ENOENT;
    size_t plen = strlen(path);
    while (plen > 1 && path[plen - 1] == '/')
        plen--;
    if (plen >= PATH_MAX)
        return -ENAMETOOLONG;
    struct fsw_mod *m = mod_get(loop);
    struct fsw_state *st = calloc(1, sizeof *st);
    if (!m || !st) {
        free(st);
        return -ENOMEM;
    }
    st->loop = loop;
    st->pub = w;
    st->cb = cb;
    st->flags = flags;
    st->fd = -1;
    st->rootpath = malloc(plen + 1);
    st->buf = malloc(FSW_BUF);
    int rc = -ENOMEM;
    if (st->rootpath && st->buf) {
        memcpy(st->rootpath, path, plen);
        st->rootpath[plen] = '\0';
        st->rootlen = plen;
        rc = watches_make(st, ADD_START);
    }
    if (rc < 0) {
        watches_drop(st);
        state_free(st);
        return rc;
    }
    w->private_[0] = (uint64_t)(uintptr_t)st;
    watcher_list_add(&m->head, st);
    return 0;
}

int vigil_fswatch_stop(vigil_loop *loop, vigil_fswatch *w)
{
    if (!loop || !w)
        return -EINVAL;
    struct fsw_state *st = state_of(w);
    if (!st)
        return 0;
    w->private_[0] = 0;
    struct fsw_mod *m = loop->mod[VIGIL__MOD_FSWATCH];
    if (m) {
        watcher_list_del(&m->head, st);
    }
    st->dead = true;
    watches_drop(st);
    if (!st->dispatching)
        state_free(st);
    return 0;
}

int vigil_fswatch_active(const vigil_fswatch *w)
{
    return w && state_of(w) ? 1 : 0;
}

int vigil_fswatch_count(const vigil_fswatch *w)
{
    const struct fsw_state *st = w ? state_of(w) : NULL;
    return st ? (int)st->nnode : 0;
}

/* For the tests: calls fn with the path of every watched directory (a node in limbo:
 * "?" and its name). Not exported. */
void vigil__fswatch_each(const vigil_fswatch *w, void (*fn)(const char *path, void *arg), void *arg);
void vigil__fswatch_each(const vigil_fswatch *w, void (*fn)(const char *path, void *arg), void *arg)
{
    struct fsw_state *st = w ? state_of(w) : NULL;
    if (!st)
        return;
    for (size_t i = 0; i < st->nbucket; i++) {
        for (struct fsw_node *n = st->bucket[i]; n; n = n->hnext) {
            char buf[PATH_MAX];
            if (attached(st, n)) {
                const char *p = rel_path(n, NULL, 0, buf, sizeof buf);
                fn(p ? p : "(too long)", arg);
            } else {
                snprintf(buf, sizeof buf, "?%s", n->name);
                fn(buf, arg);
            }
        }
    }
}
