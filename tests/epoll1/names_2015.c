/* The 2015 spellings are opt-in (VIGIL_EPOLL1_NAMES) and name the same calls and types:
 * a program written against the patch series' man pages builds and runs unchanged. */
#define VIGIL_EPOLL1_NAMES
#include "vigil/epoll1.h"
#include "vt.h"

#include <sys/epoll.h>
#include <unistd.h>

int main(void)
{
    int epfd = epoll_create1(EPOLL_CLOEXEC), p[2];
    CHECK(epfd >= 0);
    CHECK_SYS(pipe(p));
    struct epoll_ctl_cmd cmds[2] = {
        {.op = EPOLL_CTL_ADD, .fd = p[0], .events = EPOLLIN, .data = 7},
        {.op = EPOLL_CTL_ADD, .fd = p[1], .events = EPOLLOUT, .data = 8},
    };
    CHECK_EQ(epoll_ctl_batch(epfd, 0, 2, cmds), 2);
    CHECK_EQ(cmds[0].result, 0);
    CHECK_EQ(cmds[1].result, 0);
    struct timespec ts = {1, 0};
    struct epoll_wait_params params = {.clockid = CLOCK_MONOTONIC, .timeout = &ts};
    struct epoll_event ev[2];
    CHECK_EQ(epoll_pwait1(epfd, 0, ev, 2, &params), 1); /* the write end is writable */
    CHECK_EQ(ev[0].data.u64, 8);
    CHECK(sizeof(struct epoll_ctl_cmd) == sizeof(struct vigil_epoll_ctl_cmd));
    close(p[0]);
    close(p[1]);
    close(epfd);
    return 0;
}
