/* epoll_ctl_batch and epoll_pwait1 (the 2015 calls, <vigil/epoll1.h>): register three
 * pipes in one call, change two of them in another, then wait with a nanosecond
 * timeout on CLOCK_MONOTONIC. Both calls return -1 and set errno on failure, as their
 * man pages say; a batch that fails part-way returns the index of the failing command.
 *
 *   ./epoll1_batch
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vigil/epoll1.h>

int main(void)
{
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int p[3][2];
    for (int i = 0; i < 3; i++)
        if (pipe(p[i]) < 0)
            return 1;

    /* Three registrations, one call (one io_uring_enter where io_uring is allowed). */
    struct vigil_epoll_ctl_cmd add[3];
    for (int i = 0; i < 3; i++)
        add[i] = (struct vigil_epoll_ctl_cmd){.op = EPOLL_CTL_ADD, .fd = p[i][0], .events = EPOLLIN, .data = (uint64_t)i};
    int n = vigil_epoll_ctl_batch(epfd, 0, 3, add);
    if (n < 0) {
        perror("vigil_epoll_ctl_batch");
        return 1;
    }
    if (n < 3) { /* add[n] failed, add[n+1..] were not run */
        fprintf(stderr, "command %d: %s\n", n, strerror(-add[n].result));
        return 1;
    }

    /* Change the data of two, drop the third: entries run in order. */
    struct vigil_epoll_ctl_cmd mod[3] = {
        {.op = EPOLL_CTL_MOD, .fd = p[0][0], .events = EPOLLIN, .data = 100},
        {.op = EPOLL_CTL_MOD, .fd = p[1][0], .events = EPOLLIN, .data = 101},
        {.op = EPOLL_CTL_DEL, .fd = p[2][0]},
    };
    if (vigil_epoll_ctl_batch(epfd, 0, 3, mod) != 3)
        return 1;

    if (write(p[1][1], "x", 1) != 1)
        return 1;
    struct timespec timeout = {.tv_sec = 0, .tv_nsec = 250 * 1000}; /* 250 us */
    struct vigil_epoll_wait_params params = {.clockid = CLOCK_MONOTONIC, .timeout = &timeout};
    struct epoll_event ev[4];
    n = vigil_epoll_pwait1(epfd, 0, ev, 4, &params);
    if (n < 0) {
        perror("vigil_epoll_pwait1");
        return 1;
    }
    for (int i = 0; i < n; i++)
        printf("ready: data %llu events %#x\n", (unsigned long long)ev[i].data.u64, ev[i].events);

    /* Nothing ready: returns 0 when the timeout (on CLOCK_REALTIME this time) ends. */
    char c;
    if (read(p[1][0], &c, 1) != 1)
        return 1;
    params.clockid = CLOCK_REALTIME;
    n = vigil_epoll_pwait1(epfd, 0, ev, 4, &params);
    printf("after the timeout: %d event(s)\n", n);
    return 0;
}
