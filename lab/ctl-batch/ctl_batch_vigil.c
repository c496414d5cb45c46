/* ctl-batch, system "vigil": one vigil_epoll_ctl_batch() per batch. The environment
 * variable VIGIL_EPOLL1_PATH=uring|epoll selects its path (one io_uring_enter for the
 * batch, or one epoll_ctl per command); the record's "backend" says which was asked. */
#include <sys/epoll.h>
#include <vigil/epoll1.h>

#include "ctlb.h"

static int epfd = -1;
static struct vigil_epoll_ctl_cmd cmds[CTLB_MAXK];
static char json[128];

static int sys_init(int n, const int *rfd)
{
    const char *path = getenv("VIGIL_EPOLL1_PATH");
    /* The path goes in the case too: the lab's tables append "backend" only when the
     * case does not already contain it, and "epoll" is in "epoll_ctl_batch". */
    snprintf(json, sizeof json, "\"system\":\"vigil\",\"case\":\"epoll_ctl_batch, %s path\",\"backend\":\"%s\"",
             path && *path ? path : "auto", path && *path ? path : "auto");
    epfd = frame_epoll_watch(n, rfd);
    if (epfd < 0)
        return 1;
    /* One batch outside the timing: it reports a path the kernel refuses (skip). */
    for (int i = 0; i < n; i++)
        cmds[i] = (struct vigil_epoll_ctl_cmd){.op = EPOLL_CTL_MOD, .fd = rfd[i], .events = EPOLLIN, .data = (uint64_t)i};
    int r = vigil_epoll_ctl_batch(epfd, 0, n, cmds);
    if (r != n) {
        fprintf(stderr, "skip: vigil_epoll_ctl_batch (path %s): %d, %s\n", path ? path : "auto", r,
                r < 0 ? strerror(errno) : strerror(-cmds[r].result));
        return 77;
    }
    return 0;
}

static int sys_batch(const int *rfd, int k, int on)
{
    for (int i = 0; i < k; i++) {
        cmds[i].flags = 0;
        cmds[i].op = EPOLL_CTL_MOD;
        cmds[i].fd = rfd[i];
        cmds[i].events = on ? EPOLLIN | EPOLLOUT : EPOLLIN;
        cmds[i].data = (uint64_t)i;
        cmds[i].result = 0;
    }
    int r = vigil_epoll_ctl_batch(epfd, 0, k, cmds);
    if (r < 0)
        return -errno;
    return r == k ? 0 : cmds[r].result;
}

static void sys_fini(void)
{
    close(epfd);
}

static const char *sys_json(void)
{
    return json;
}
