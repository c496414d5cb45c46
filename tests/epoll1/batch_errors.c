/* Each entry fails exactly as epoll_ctl fails for the same arguments (the result holds
 * the same errno, negated): EBADF, EEXIST, ENOENT, EPERM, EINVAL (own epfd, bad op,
 * EPOLLEXCLUSIVE with MOD), and a bad epfd. */
#include <fcntl.h>

#include "e1.h"

static void same(int epfd, int op, int fd, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u64 = 1};
    int r = epoll_ctl(epfd, op, fd, &ev);
    int want = r < 0 ? -errno : 0;
    if (r == 0) { /* undo, so the batch meets the same state */
        if (op == EPOLL_CTL_ADD)
            epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
    }
    struct vigil_epoll_ctl_cmd c = e1_cmd(op, fd, events, 1);
    int n = vigil_epoll_ctl_batch(epfd, 0, 1, &c);
    if (want == 0) {
        CHECK_EQ(n, 1);
        CHECK_EQ(c.result, 0);
    } else {
        CHECK_EQ(n, 0);
        CHECK_EQ(c.result, want);
    }
    printf("op %d fd %d events %#x: %s\n", op, fd, events, want ? strerror(-want) : "ok");
}

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int efd = eventfd(0, EFD_CLOEXEC);
    int reg = open("/proc/self/exe", O_RDONLY | O_CLOEXEC); /* a regular file */
    CHECK_SYS(epfd);
    CHECK_SYS(reg);
    struct epoll_event ev = {.events = EPOLLIN};
    CHECK_SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev));

    same(epfd, EPOLL_CTL_ADD, 100000, EPOLLIN);       /* EBADF */
    same(epfd, EPOLL_CTL_ADD, efd, EPOLLIN);          /* EEXIST */
    same(epfd, EPOLL_CTL_MOD, reg, EPOLLIN);          /* EPERM or ENOENT, as the kernel says */
    same(epfd, EPOLL_CTL_ADD, reg, EPOLLIN);          /* EPERM */
    same(epfd, EPOLL_CTL_ADD, epfd, EPOLLIN);         /* EINVAL: itself */
    same(epfd, 42, efd, EPOLLIN);                     /* EINVAL: op */
    same(epfd, EPOLL_CTL_MOD, efd, EPOLLIN | EPOLLEXCLUSIVE); /* EINVAL */
    int other = eventfd(0, EFD_CLOEXEC);
    same(epfd, EPOLL_CTL_DEL, other, 0);              /* ENOENT */
    same(efd, EPOLL_CTL_ADD, other, EPOLLIN);         /* EINVAL: not an epoll fd */
    same(-1, EPOLL_CTL_ADD, other, EPOLLIN);          /* EBADF: bad epfd */
    same(epfd, EPOLL_CTL_MOD, efd, EPOLLOUT);         /* success */
    return 0;
}
