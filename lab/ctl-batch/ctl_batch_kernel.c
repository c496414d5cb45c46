/* ctl-batch, system "kernel": one epoll_ctl(EPOLL_CTL_MOD) per change, as a program
 * without a batching call must do. */
#include <sys/epoll.h>

#include "ctlb.h"

static int epfd = -1;

static int sys_init(int n, const int *rfd)
{
    epfd = frame_epoll_watch(n, rfd);
    if (epfd < 0)
        return 1;
    return 0;
}

static int sys_batch(const int *rfd, int k, int on)
{
    for (int i = 0; i < k; i++) {
        struct epoll_event ev = {.events = on ? EPOLLIN | EPOLLOUT : EPOLLIN, .data.u64 = (uint64_t)i};
        if (epoll_ctl(epfd, EPOLL_CTL_MOD, rfd[i], &ev) < 0)
            return -errno;
    }
    return 0;
}

static void sys_fini(void)
{
    close(epfd);
}

static const char *sys_json(void)
{
    return "\"system\":\"kernel\",\"case\":\"epoll_ctl\"";
}
