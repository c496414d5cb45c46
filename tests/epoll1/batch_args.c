/* epoll_ctl_batch argument errors (man page): flags must be 0; ncmds > 0 and
 * <= INT_MAX / sizeof(struct vigil_epoll_ctl_cmd); cmds NULL: -1/EINVAL, nothing processed. */
#include <limits.h>

#include "e1.h"

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int efd = eventfd(0, EFD_CLOEXEC);
    CHECK_SYS(epfd);
    CHECK_SYS(efd);
    struct vigil_epoll_ctl_cmd c[1] = {e1_cmd(EPOLL_CTL_ADD, efd, EPOLLIN, 7)};

    errno = 0;
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 1, 1, c), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(c[0].result, 12345);        /* nothing processed */
    CHECK_EQ(e1_registered(epfd, efd), 0);

    errno = 0;
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 0, c), -1);
    CHECK_EQ(errno, EINVAL);
    errno = 0;
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, -1, c), -1);
    CHECK_EQ(errno, EINVAL);
    /* Too many: refused before any entry is read (only c[0] exists). */
    errno = 0;
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, (int)(INT_MAX / sizeof(struct vigil_epoll_ctl_cmd)) + 1, c), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(c[0].result, 12345);
    errno = 0;
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 1, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(e1_registered(epfd, efd), 0);

    /* And the valid call after all that works. */
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 1, c), 1);
    CHECK_EQ(c[0].result, 0);
    CHECK_EQ(e1_registered(epfd, efd), 1);
    return 0;
}
