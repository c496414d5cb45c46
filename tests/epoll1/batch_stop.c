/* epoll_ctl_batch: the first failing entry stops processing; the return is its index,
 * its result holds the negative errno, done entries hold 0, later entries are not run
 * and their result is untouched. A non-zero reserved flags field fails that entry with
 * -EINVAL. A failure in the first entry returns 0. */
#include "e1.h"

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int a = eventfd(0, EFD_CLOEXEC), b = eventfd(0, EFD_CLOEXEC), c = eventfd(0, EFD_CLOEXEC);
    int closed = eventfd(0, EFD_CLOEXEC);
    CHECK_SYS(epfd);
    CHECK_SYS(closed);
    close(closed);
    /* c starts registered with data 5: a MOD or DEL after the failure must not reach it. */
    struct epoll_event e5 = {.events = EPOLLIN, .data.u64 = 5};
    CHECK_SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, c, &e5));

    struct vigil_epoll_ctl_cmd k[] = {
        e1_cmd(EPOLL_CTL_ADD, a, EPOLLIN, 1),
        e1_cmd(EPOLL_CTL_ADD, closed, EPOLLIN, 2), /* EBADF */
        e1_cmd(EPOLL_CTL_ADD, b, EPOLLIN, 3),
        e1_cmd(EPOLL_CTL_MOD, c, EPOLLIN | EPOLLOUT, 4),
        e1_cmd(EPOLL_CTL_DEL, c, 0, 0),
    };
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 5, k), 1);
    CHECK_EQ(k[0].result, 0);
    CHECK_EQ(k[1].result, -EBADF);
    CHECK_EQ(k[2].result, 12345);
    CHECK_EQ(k[3].result, 12345);
    CHECK_EQ(k[4].result, 12345);
    CHECK_EQ(e1_registered(epfd, a), 1);
    CHECK_EQ(e1_registered(epfd, b), 0);
    CHECK_EQ(e1_registered(epfd, c), 1);
    /* c still has its old mask and data: EPOLLOUT would report now, EPOLLIN does not. */
    uint64_t data = 0;
    uint32_t ev = 0;
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 0);
    uint64_t one = 1;
    CHECK_EQ(write(c, &one, 8), 8);
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 1);
    CHECK_EQ(data, 5);

    /* Failure in the first entry: returns 0. */
    struct vigil_epoll_ctl_cmd f[] = {e1_cmd(EPOLL_CTL_ADD, a, EPOLLIN, 9), e1_cmd(EPOLL_CTL_ADD, b, EPOLLIN, 9)};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, f), 0);
    CHECK_EQ(f[0].result, -EEXIST);
    CHECK_EQ(f[1].result, 12345);
    CHECK_EQ(e1_registered(epfd, b), 0);

    /* Reserved flags in an entry: that entry fails with -EINVAL, the ones before ran. */
    struct vigil_epoll_ctl_cmd g[] = {e1_cmd(EPOLL_CTL_ADD, b, EPOLLIN, 1), e1_cmd(EPOLL_CTL_DEL, a, 0, 0),
                                e1_cmd(EPOLL_CTL_DEL, b, 0, 0)};
    g[1].flags = 1;
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 3, g), 1);
    CHECK_EQ(g[0].result, 0);
    CHECK_EQ(g[1].result, -EINVAL);
    CHECK_EQ(g[2].result, 12345);
    CHECK_EQ(e1_registered(epfd, a), 1);
    CHECK_EQ(e1_registered(epfd, b), 1);

    /* The last entry failing: index n-1, all others done. */
    struct vigil_epoll_ctl_cmd h[] = {e1_cmd(EPOLL_CTL_DEL, a, 0, 0), e1_cmd(EPOLL_CTL_DEL, a, 0, 0)};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, h), 1);
    CHECK_EQ(h[0].result, 0);
    CHECK_EQ(h[1].result, -ENOENT);
    return 0;
}
