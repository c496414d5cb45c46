/* A batch larger than one io_uring submission (the private ring holds 256 entries):
 * 1000 ADDs then 1000 DELs, all done, in order, results 0; a failure in a later chunk
 * still stops at the right index. */
#include "e1.h"

#define N 1000

int main(void)
{
    e1_path_or_skip();
    vt_nofile_at_least(N + 64);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    CHECK_SYS(epfd);
    static int fds[N];
    static struct vigil_epoll_ctl_cmd c[N];
    for (int i = 0; i < N; i++) {
        fds[i] = eventfd(1, EFD_CLOEXEC);
        CHECK_SYS(fds[i]);
        c[i] = e1_cmd(EPOLL_CTL_ADD, fds[i], EPOLLIN, (uint64_t)i);
    }
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, N, c), N);
    for (int i = 0; i < N; i++)
        CHECK_EQ(c[i].result, 0);
    static struct epoll_event ev[N];
    CHECK_EQ(epoll_wait(epfd, ev, N, 0), N);

    /* DEL all but make entry 700 fail (a DEL of an fd never added). */
    int stray = eventfd(0, EFD_CLOEXEC);
    for (int i = 0; i < N; i++)
        c[i] = e1_cmd(EPOLL_CTL_DEL, i == 700 ? stray : fds[i], 0, 0);
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, N, c), 700);
    for (int i = 0; i < 700; i++)
        CHECK_EQ(c[i].result, 0);
    CHECK_EQ(c[700].result, -ENOENT);
    for (int i = 701; i < N; i++)
        CHECK_EQ(c[i].result, 12345);
    CHECK_EQ(epoll_wait(epfd, ev, N, 0), N - 700);
    CHECK_EQ(e1_registered(epfd, fds[699]), 0);
    CHECK_EQ(e1_registered(epfd, fds[700]), 1);
    CHECK_EQ(e1_registered(epfd, fds[999]), 1);
    return 0;
}
