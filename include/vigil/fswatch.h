/* vigil/fswatch.h: file-system events (inotify) in the loop.
 *
 * A file-system watcher reports what happens to a file, a directory, or a whole
 * directory tree (VIGIL_FSWATCH_RECURSIVE, which libuv does not offer on Linux):
 *
 *   vigil_fswatch w = {0};
 *   vigil_fswatch_start(loop, &w, "/srv/data", VIGIL_FSWATCH_RECURSIVE, on_event);
 *   ... on_event(loop, &w, ev): ev->kind, ev->path ("sub/dir/file", relative to the
 *       root), ev->path2 (a move's new path)
 *   vigil_fswatch_stop(loop, &w);
 *
 * How it waits: each watcher owns one inotify instance, read through an ordinary fd
 * watcher of the loop, so it works on every backend (on io_uring the readiness rides
 * the turn's one io_uring_enter). One instance per watcher, not per loop: the kernel's
 * event queue (max_queued_events, 16384 by default) is then per watcher, so a busy tree
 * that overflows its queue makes only its own watcher rescan; stopping a watcher drops
 * all its watches with one close(2) instead of one inotify_rm_watch(2) per directory;
 * and two watchers of one directory each get their own watch descriptor, where one
 * shared instance would hand both the same one. The cost is one fd per watcher
 * (and max_user_instances, 128 by default, per user).
 *
 * Events (enum vigil_fswatch_kind), one callback each, in the kernel's order:
 *   CREATED    an entry appeared (creat, mkdir, link, symlink, mknod, bind)
 *   DELETED    an entry was removed (unlink, rmdir)
 *   MOVED      an entry was renamed inside the watched tree: path -> path2
 *   MOVED_OUT  an entry left the tree (renamed to a place not watched)
 *   MOVED_IN   an entry came into the tree from a place not watched
 *   MODIFIED   a file's data was written (one event per write(2), the kernel merging
 *              identical consecutive ones)
 *   ATTRIB     metadata changed (chmod, chown, utimes, link count, xattrs)
 *   ROOT_GONE  the watched root itself was deleted, moved away, or its file system
 *              unmounted; the watcher is stopped when the callback runs
 *   RESCAN     the kernel's queue overflowed (IN_Q_OVERFLOW): events were lost. The
 *              watcher has already rebuilt its watches on the tree as it is now; the
 *              program must rescan what it keeps about the tree
 *   ERROR      a directory of the tree could not be watched (err: -ENOSPC when the
 *              max_user_watches limit is reached, -EACCES, -ENAMETOOLONG): events
 *              under path are not reported
 * Paths are relative to the watched root, without a leading '/'; the root itself is "".
 * They point into the watcher's own buffers, valid during the callback only.
 *
 * Recursive watching. Directories that appear in the tree (created, or moved in) are
 * watched as their event is handled: the watcher adds the watch, then reads the new
 * directory and reports every entry it finds as CREATED with VIGIL_FS_SCANNED (and
 * so on down, for directories found there). An entry made after the watch was added is
 * seen both by that scan and by the kernel's event; the watcher reports it once. The
 * guarantee, for every directory that appears in the tree while the watcher runs:
 *   - each entry in it is reported CREATED exactly once, by the scan or by its own
 *     event, whatever the order of the program making them (mkdir -p a/b/c && touch
 *     a/b/c/f reports a, a/b, a/b/c and a/b/c/f once each);
 *   - events for an entry that came and went before the scan saw it, and that the
 *     program was never told of, are not reported (no DELETED for an entry never
 *     CREATED);
 *   - how: the kernel queues an entry's event before the entry's creating call
 *     returns (fsnotify runs under the directory's lock, which readdir also takes), so
 *     once the scan ends, every event of an entry it saw is queued. The watcher notes
 *     the queue's length then (FIONREAD) and, until it has read that far, drops a
 *     CREATED for a name the scan already reported and events for names it never
 *     reported. Past that point, events pass unfiltered.
 *   An entry renamed into a new directory before the scan read it is reported as the
 *   scan found it: CREATED there (with what is under it), and MOVED_OUT from its old
 *   path (not as one MOVED).
 *   A limit: directories renamed inside the tree while a new directory's scan races
 *   with them can, rarely, still yield an event under a path the program was not told
 *   of (tests/fswatch/random.c renames only files in its concurrent phase for this).
 * Directories moved out of the tree lose their watches (MOVED_OUT); directories moved
 * inside it keep them, under their new path (MOVED). Entries inside a directory
 * moved in are reported CREATED (VIGIL_FS_SCANNED), as for a new directory. Symbolic
 * links to directories are reported, not followed.
 *
 * Moves. A rename inside the tree reaches inotify as two events (IN_MOVED_FROM, then
 * IN_MOVED_TO with the same cookie). The watcher pairs them into one MOVED. If the
 * second half is not queued by the time the watcher has read everything (the renaming
 * thread was preempted between the two), the first half is reported as MOVED_OUT and
 * the second as MOVED_IN: a program that handles both sees the same tree.
 *
 * Memory: the watcher's state (its read buffer, one node per watched directory) is
 * allocated by vigil_fswatch_start and as directories appear; an event allocates
 * nothing (paths are built in the watcher's buffers), except where a directory is
 * added. Callbacks run in the loop thread; any vigil call but vigil_loop_free and
 * vigil_loop_run may be made from one, vigil_fswatch_stop on the same watcher included
 * (no further callback of it runs). vigil_loop_free stops a watcher still started.
 */
#ifndef VIGIL_FSWATCH_H
#define VIGIL_FSWATCH_H
/* Included by vigil.h; may also be included on its own. */

#include "vigil/loop.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_fswatch vigil_fswatch;

enum vigil_fswatch_kind {
    VIGIL_FS_CREATED = 1,
    VIGIL_FS_DELETED = 2,
    VIGIL_FS_MOVED = 3,
    VIGIL_FS_MOVED_OUT = 4,
    VIGIL_FS_MOVED_IN = 5,
    VIGIL_FS_MODIFIED = 6,
    VIGIL_FS_ATTRIB = 7,
    VIGIL_FS_ROOT_GONE = 8,
    VIGIL_FS_RESCAN = 9,
    VIGIL_FS_ERROR = 10,
};

/* Event flags. */
#define VIGIL_FS_ISDIR 0x1u   /* the entry is a directory */
#define VIGIL_FS_SCANNED 0x2u /* CREATED found by the scan of a new directory */

struct vigil_fswatch_event {
    uint32_t kind;     /* enum vigil_fswatch_kind */
    uint32_t flags;    /* VIGIL_FS_ISDIR, VIGIL_FS_SCANNED */
    const char *path;  /* relative to the root ("" is the root); NULL for RESCAN */
    const char *path2; /* MOVED: the new path; otherwise NULL */
    int err;           /* ERROR: a negative errno; otherwise 0 */
    uint32_t reserved_;
};

typedef void (*vigil_fswatch_cb)(vigil_loop *loop, vigil_fswatch *w, const struct vigil_fswatch_event *ev);

struct vigil_fswatch {
    void *data;           /* the caller's */
    uint64_t private_[3]; /* the library's */
};

/* Start flags. */
#define VIGIL_FSWATCH_RECURSIVE 0x1u /* watch every directory under path, as they come */

/* Watches path (a file or a directory; a symbolic link is followed for the root only).
 * With VIGIL_FSWATCH_RECURSIVE every directory under a directory path is watched too:
 * the entries there at start are not reported, what happens to them from then on is.
 * -ENOENT if path does not exist, -ENOTDIR if a component is not a directory,
 * -EACCES, -ENAMETOOLONG, -EINVAL for NULL arguments or unknown flags, -EBUSY if w is
 * started already, -ENOSPC when the user's max_user_watches would be passed, -EMFILE
 * (the process's fds, or max_user_instances), -ENOMEM. Zero w before its first start. */
VIGIL_EXPORT int vigil_fswatch_start(vigil_loop *loop, vigil_fswatch *w, const char *path, uint32_t flags,
                                     vigil_fswatch_cb cb);
/* Stops w and frees its state; safe from any callback, its own included. Stopping a
 * stopped watcher is 0. After it returns the caller may free w. */
VIGIL_EXPORT int vigil_fswatch_stop(vigil_loop *loop, vigil_fswatch *w);
/* 1 while started, else 0 (a watcher stops itself after ROOT_GONE). */
VIGIL_EXPORT int vigil_fswatch_active(const vigil_fswatch *w);
/* How many directories (or the one file) w watches now: 0 when stopped. */
VIGIL_EXPORT int vigil_fswatch_count(const vigil_fswatch *w);

#ifdef __cplusplus
}
#endif
#endif
