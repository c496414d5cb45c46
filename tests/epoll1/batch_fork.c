/* A child of fork() batches on its own (the parent's private ring is not shared with
 * it), and the parent's ring still works afterwards. */

#include "e1.h"

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int a = eventfd(1, EFD_CLOEXEC), b = eventfd(1, EFD_CLOEXEC);
    CHECK_SYS(epfd);
    struct vigil_epoll_ctl_cmd c[2] = {e1_cmd(EPOLL_CTL_ADD, a, EPOLLIN, 1), e1_cmd(EPOLL_CTL_DEL, a, 0, 0)};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, c), 2); /* the parent's ring exists now */
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        struct vigil_epoll_ctl_cmd k[2] = {e1_cmd(EPOLL_CTL_ADD, b, EPOLLIN, 2), e1_cmd(EPOLL_CTL_ADD, b, EPOLLIN, 3)};
        int n = vigil_epoll_ctl_batch(epfd, 0, 2, k);
        _exit(n == 1 && k[0].result == 0 && k[1].result == -EEXIST ? 0 : 1);
    }
    CHECK_EQ(vt_child_exit(pid), 0);
    /* The child shares the epoll instance: b is registered (data 2). */
    CHECK_EQ(e1_registered(epfd, b), 1);
    struct vigil_epoll_ctl_cmd d[2] = {e1_cmd(EPOLL_CTL_DEL, b, 0, 0), e1_cmd(EPOLL_CTL_ADD, a, EPOLLIN, 4)};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, d), 2);
    uint64_t data;
    uint32_t ev;
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 1);
    CHECK_EQ(data, 4);
    return 0;
}
