/* smallset, system "vigil": vigil_loop_run(VIGIL_RUN_NOWAIT) with one vigil_io watching
 * an idle pty for VIGIL_READ, on the backend given by --backend (uring|epoll|poll). */
#include "smallset_peer.h"
#include "vigil_open.h"

#include <errno.h>

static vigil_loop *loop;
static vigil_io w;

static void cb(vigil_loop *l, vigil_io *io, int revents)
{
    smallset_fired = 1;
}

static int setup(int fd, const char *backend)
{
    loop = lab_vigil_open(backend ? backend : "auto");
    int rc = vigil_io_start(loop, &w, fd, VIGIL_READ, cb);
    if (rc < 0) {
        fprintf(stderr, "vigil_io_start: %s\n", strerror(-rc));
        return 1;
    }
    return 0;
}

static void turn(void)
{
    vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
}

int main(int argc, char **argv)
{
    struct turns_opt o = turns_parse(argc, argv);
    /* the case and backend keys name the backend that runs, known once the loop is open */
    vigil_loop *probe = lab_vigil_open(o.backend ? o.backend : "auto");
    const char *b = vigil_loop_backend(probe);
    char cas[32], extra[64];
    snprintf(cas, sizeof cas, "vigil %s", b);
    snprintf(extra, sizeof extra, "\"fds\":1,\"backend\":\"%s\"", b);
    vigil_loop_free(probe);
    smallset_run(argc, argv, "vigil", cas, extra, setup, turn);
    vigil_loop_free(loop);
    return 0;
}
