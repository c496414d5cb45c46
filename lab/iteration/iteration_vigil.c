/* iteration, system "vigil": one vigil_io per fd, vigil_loop_run(VIGIL_RUN_ONCE) per
 * turn, on the backend given by --backend (uring|epoll|poll). */
#include "iter_frame.h"
#include "vigil_open.h"

static vigil_loop *loop;

static void cb(vigil_loop *l, vigil_io *w, int revents)
{
    iter_ready((int)(intptr_t)w->data);
}

static int setup(int n, const int *fds, const char *backend)
{
    vigil_io *w = calloc((size_t)n, sizeof *w);
    if (!w)
        return 1;
    for (int i = 0; i < n; i++) {
        w[i].data = (void *)(intptr_t)fds[i];
        int rc = vigil_io_start(loop, &w[i], fds[i], VIGIL_READ, cb);
        if (rc < 0) {
            fprintf(stderr, "vigil_io_start(fd %d): %s\n", fds[i], strerror(-rc));
            return 1;
        }
    }
    return 0;
}

static void turn(void)
{
    vigil_loop_run(loop, VIGIL_RUN_ONCE);
}

int main(int argc, char **argv)
{
    struct turns_opt o = turns_parse(argc, argv);
    loop = lab_vigil_open(o.backend ? o.backend : "auto");
    const char *b = vigil_loop_backend(loop);
    static char cas[32];
    snprintf(cas, sizeof cas, "vigil %s", b);
    struct iter_sys sys = {"vigil", cas, "", setup, turn};
    snprintf(sys.extra, sizeof sys.extra, "\"backend\":\"%s\"", b);
    int rc = iter_main(argc, argv, &sys);
    vigil_loop_free(loop);
    return rc;
}
