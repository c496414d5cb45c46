/* Shared by the epoll1 conformance tests: the path this run checks, and fd helpers. */
#ifndef E1_H
#define E1_H

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vigil/epoll1.h"
#include "vt.h"

int vigil__epoll1_path(void); /* 1 io_uring, 2 epoll, < 0 forced io_uring refused */

/* Skips when this run's path (VIGIL_EPOLL1_PATH) is not available; prints it. */
static inline void e1_path_or_skip(void)
{
    int p = vigil__epoll1_path();
    if (p < 0)
        vt_skip("VIGIL_EPOLL1_PATH=uring but io_uring is refused here");
    const char *want = getenv("VIGIL_EPOLL1_PATH");
    if (want && strcmp(want, "uring") == 0)
        CHECK_EQ(p, 1);
    if (want && strcmp(want, "epoll") == 0)
        CHECK_EQ(p, 2);
    printf("path: %s\n", p == 1 ? "io_uring" : "epoll");
}

static inline struct vigil_epoll_ctl_cmd e1_cmd(int op, int fd, uint32_t events, uint64_t data)
{
    struct vigil_epoll_ctl_cmd c = {.flags = 0, .op = op, .fd = fd, .events = events, .data = data, .result = 12345};
    return c;
}

/* The registration of fd in epfd as epoll_ctl sees it: 1 registered, 0 not. */
static inline int e1_registered(int epfd, int fd)
{
    struct epoll_event ev = {0};
    /* MOD to the same thing would change it; ADD fails with EEXIST iff registered. */
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0) {
        epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    CHECK_EQ(errno, EEXIST);
    return 1;
}

/* The data an fd reports when ready (it is made readable by the caller). */
static inline int e1_ready_data(int epfd, uint64_t *data, uint32_t *events)
{
    struct epoll_event ev[8];
    int n = epoll_wait(epfd, ev, 8, 0);
    if (n == 1) {
        *data = ev[0].data.u64;
        *events = ev[0].events;
    }
    return n;
}

#endif
