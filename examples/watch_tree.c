/* watch_tree: prints what happens in a directory tree, recursively, until SIGINT or
 * until the tree itself goes away.
 *
 *   ./watch_tree DIR          (then, elsewhere: mkdir -p DIR/a/b && touch DIR/a/b/f)
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <vigil.h>

static void on_event(vigil_loop *loop, vigil_fswatch *w, const struct vigil_fswatch_event *ev)
{
    (void)w;
    const char *dir = (ev->flags & VIGIL_FS_ISDIR) ? "/" : "";
    switch (ev->kind) {
    case VIGIL_FS_CREATED:
        printf("created   %s%s%s\n", ev->path, dir, (ev->flags & VIGIL_FS_SCANNED) ? " (found in a new directory)" : "");
        break;
    case VIGIL_FS_DELETED:
        printf("deleted   %s%s\n", ev->path, dir);
        break;
    case VIGIL_FS_MOVED:
        printf("moved     %s%s -> %s%s\n", ev->path, dir, ev->path2, dir);
        break;
    case VIGIL_FS_MOVED_OUT:
        printf("moved out %s%s\n", ev->path, dir);
        break;
    case VIGIL_FS_MOVED_IN:
        printf("moved in  %s%s\n", ev->path, dir);
        break;
    case VIGIL_FS_MODIFIED:
        printf("modified  %s\n", ev->path);
        break;
    case VIGIL_FS_ATTRIB:
        printf("attrib    %s%s\n", ev->path, dir);
        break;
    case VIGIL_FS_RESCAN:
        printf("the kernel's queue overflowed: events were lost, rescan the tree\n");
        break;
    case VIGIL_FS_ERROR:
        printf("cannot watch %s: %s\n", ev->path, strerror(-ev->err));
        break;
    case VIGIL_FS_ROOT_GONE:
        printf("the watched directory is gone\n");
        vigil_loop_stop(loop); /* the watcher has stopped itself */
        break;
    }
    fflush(stdout);
}

static void on_sigint(vigil_loop *loop, vigil_signal *s, const struct signalfd_siginfo *si)
{
    (void)s, (void)si;
    vigil_loop_stop(loop);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    vigil_loop *loop;
    int r = vigil_loop_new(&loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    vigil_fswatch w = {0};
    r = vigil_fswatch_start(loop, &w, argv[1], VIGIL_FSWATCH_RECURSIVE, on_event);
    if (r < 0) {
        fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
        vigil_loop_free(loop);
        return 1;
    }
    vigil_signal sig = {0};
    vigil_signal_start(loop, &sig, SIGINT, on_sigint);
    printf("watching %s (%d directories, backend %s); ^C ends\n", argv[1], vigil_fswatch_count(&w),
           vigil_loop_backend(loop));
    fflush(stdout);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_fswatch_stop(loop, &w);
    vigil_loop_free(loop);
    return 0;
}
