/* Several threads batch at once on one epoll instance (each thread has its own private
 * ring on the io_uring path): every batch is done in full and the set ends as expected. */
#include <pthread.h>

#include "e1.h"

#define T 4
#define PER 64
#define ROUNDS 200

static int epfd;
static int fds[T][PER];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct vigil_epoll_ctl_cmd c[PER];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < PER; i++)
            c[i] = e1_cmd(r % 2 ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, fds[t][i], EPOLLIN, (uint64_t)(t * PER + i));
        int n = vigil_epoll_ctl_batch(epfd, 0, PER, c);
        if (n != PER) {
            fprintf(stderr, "thread %d round %d: %d (%d)\n", t, r, n, n >= 0 && n < PER ? c[n].result : errno);
            exit(1);
        }
    }
    /* Leave one registration per thread: ADD the first fd. */
    c[0] = e1_cmd(EPOLL_CTL_ADD, fds[t][0], EPOLLIN, (uint64_t)t);
    if (vigil_epoll_ctl_batch(epfd, 0, 1, c) != 1)
        exit(1);
    return NULL;
}

int main(void)
{
    e1_path_or_skip();
    epfd = epoll_create1(EPOLL_CLOEXEC);
    CHECK_SYS(epfd);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < PER; i++) {
            fds[t][i] = eventfd(1, EFD_CLOEXEC);
            CHECK_SYS(fds[t][i]);
        }
    pthread_t th[T];
    for (int t = 0; t < T; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < T; t++)
        CHECK_EQ(pthread_join(th[t], NULL), 0);
    struct epoll_event ev[T * PER];
    CHECK_EQ(epoll_wait(epfd, ev, T * PER, 0), T);
    return 0;
}
