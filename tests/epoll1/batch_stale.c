/* epoll_ctl_batch: a failure anywhere in a batch, then more batches at once. On the
 * io_uring path the entries after a failure complete as cancelled by the link; whatever
 * completions a batch leaves (cancellations, or a kernel posting them late) must never be
 * taken for a later batch's outcome. Every position of the failure, batch sizes from 2
 * to past one chunk (256), each failed batch followed at once by batches that succeed
 * and one whose last entry fails; the registrations are checked with epoll_ctl. */
#include "e1.h"

#define NFD 300

static int fds[NFD];

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    CHECK_SYS(epfd);
    for (int i = 0; i < NFD; i++) {
        fds[i] = eventfd(0, EFD_CLOEXEC);
        CHECK_SYS(fds[i]);
    }
    int dup = eventfd(0, EFD_CLOEXEC); /* registered: an ADD of it fails with EEXIST */
    CHECK_SYS(dup);
    struct epoll_event e = {.events = EPOLLIN};
    CHECK_SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, dup, &e));

    static struct vigil_epoll_ctl_cmd c[NFD];
    static const int sizes[] = {2, 3, 8, 33, 257, 300};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int k = sizes[s];
        for (int j = 0; j < k; j += k > 40 ? 37 : 1) {
            /* ADD fds[0..k) with entry j an ADD of dup: stops at j */
            for (int i = 0; i < k; i++)
                c[i] = e1_cmd(EPOLL_CTL_ADD, i == j ? dup : fds[i], EPOLLIN, (uint64_t)i);
            CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, k, c), j);
            for (int i = 0; i < k; i++) {
                CHECK_EQ(c[i].result, i < j ? 0 : i == j ? -EEXIST : 12345);
                if (i != j)
                    CHECK_EQ(e1_registered(epfd, fds[i]), i < j ? 1 : 0);
            }
            /* at once, a batch that succeeds: DEL what the failed one added, and the
             * ADD of one more fd, as its last entry */
            for (int i = 0; i < j; i++)
                c[i] = e1_cmd(EPOLL_CTL_DEL, fds[i], 0, 0);
            c[j] = e1_cmd(EPOLL_CTL_ADD, fds[j], EPOLLIN, 7);
            CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, j + 1, c), j + 1);
            for (int i = 0; i <= j; i++) {
                CHECK_EQ(c[i].result, 0);
                CHECK_EQ(e1_registered(epfd, fds[i]), i == j ? 1 : 0);
            }
            /* a single command, then a two-entry batch whose last entry fails */
            c[0] = e1_cmd(EPOLL_CTL_DEL, fds[j], 0, 0);
            CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 1, c), 1);
            CHECK_EQ(c[0].result, 0);
            c[0] = e1_cmd(EPOLL_CTL_MOD, dup, EPOLLIN | EPOLLOUT, 1);
            c[1] = e1_cmd(EPOLL_CTL_DEL, fds[j], 0, 0); /* not registered: ENOENT */
            CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, c), 1);
            CHECK_EQ(c[0].result, 0);
            CHECK_EQ(c[1].result, -ENOENT);
            CHECK_EQ(e1_registered(epfd, fds[j]), 0);
        }
    }
    /* dup still has the mask of the last MOD that ran: EPOLLOUT is ready on an eventfd */
    uint64_t data = 0;
    uint32_t ev = 0;
    CHECK_EQ(e1_ready_data(epfd, &data, &ev), 1);
    CHECK_EQ(data, 1);
    return 0;
}
