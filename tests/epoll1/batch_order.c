/* epoll_ctl_batch runs entries in order, each as epoll_ctl would; result is 0 for each
 * done entry; the return is ncmds when all succeeded. Several entries on one fd show the
 * order: ADD, MOD, DEL, ADD again with other data, MOD twice (the last wins). */
#include "e1.h"

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int a = eventfd(1, EFD_CLOEXEC); /* readable */
    int b = eventfd(1, EFD_CLOEXEC);
    CHECK_SYS(epfd);
    CHECK_SYS(a);
    CHECK_SYS(b);

    struct vigil_epoll_ctl_cmd c[] = {
        e1_cmd(EPOLL_CTL_ADD, a, EPOLLIN, 1),
        e1_cmd(EPOLL_CTL_MOD, a, EPOLLIN, 2),
        e1_cmd(EPOLL_CTL_DEL, a, 0, 0),
        e1_cmd(EPOLL_CTL_ADD, a, EPOLLIN, 3),   /* would fail with EEXIST if run before the DEL */
        e1_cmd(EPOLL_CTL_ADD, b, EPOLLOUT, 10),
        e1_cmd(EPOLL_CTL_MOD, b, EPOLLIN, 11),
        e1_cmd(EPOLL_CTL_MOD, b, EPOLLIN, 12),
        e1_cmd(EPOLL_CTL_DEL, b, 0, 0),
    };
    int n = (int)(sizeof c / sizeof c[0]);
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, n, c), n);
    for (int i = 0; i < n; i++)
        CHECK_EQ(c[i].result, 0);
    CHECK_EQ(e1_registered(epfd, b), 0);
    uint64_t data = 0;
    uint32_t ev = 0;
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 1);
    CHECK_EQ(data, 3);
    CHECK(ev & EPOLLIN);

    /* The last of two MODs wins. */
    struct vigil_epoll_ctl_cmd m[] = {e1_cmd(EPOLL_CTL_MOD, a, EPOLLIN, 20), e1_cmd(EPOLL_CTL_MOD, a, EPOLLIN, 21)};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, m), 2);
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 1);
    CHECK_EQ(data, 21);

    /* events and data reach the kernel as given: EPOLLOUT only on a readable+writable fd. */
    struct vigil_epoll_ctl_cmd o[] = {e1_cmd(EPOLL_CTL_MOD, a, EPOLLOUT, 0xfeedbeefcafe1234ull)};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 1, o), 1);
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 1);
    CHECK_EQ(data, 0xfeedbeefcafe1234ull);
    CHECK_EQ(ev, EPOLLOUT);
    return 0;
}
