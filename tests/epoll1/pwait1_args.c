/* epoll_pwait1 argument errors (man page): flags must be 0 (EINVAL); clockid
 * CLOCK_REALTIME or CLOCK_MONOTONIC, else EINVAL; an invalid timespec is EINVAL;
 * maxevents <= 0 is EINVAL; a bad sigsetsize with a sigmask is EINVAL; NULL params or
 * events is EFAULT; a bad epfd is EBADF, a non-epoll fd EINVAL. Nothing is consumed. */
#include "e1.h"

static int call(int epfd, int flags, struct epoll_event *ev, int max, struct vigil_epoll_wait_params *p)
{
    errno = 0;
    return vigil_epoll_pwait1(epfd, flags, ev, max, p);
}

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    int efd = eventfd(1, EFD_CLOEXEC); /* ready: an accepted call returns it */
    CHECK_SYS(epfd);
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = 9};
    CHECK_SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &e));
    struct epoll_event ev[4];
    struct timespec zero = {0, 0}, bad_ns = {0, 1000000000}, neg_ns = {0, -1}, neg_s = {-1, 0};
    sigset_t set;
    sigemptyset(&set);
    struct vigil_epoll_wait_params p = {.clockid = CLOCK_MONOTONIC, .timeout = &zero};

    CHECK_EQ(call(epfd, 1, ev, 4, &p), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(call(epfd, 0, ev, 4, NULL), -1);
    CHECK_EQ(errno, EFAULT);
    const clockid_t bad_clocks[] = {CLOCK_BOOTTIME, CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC_RAW, -1, 1000};
    for (unsigned i = 0; i < sizeof bad_clocks / sizeof bad_clocks[0]; i++) {
        p.clockid = bad_clocks[i];
        CHECK_EQ(call(epfd, 0, ev, 4, &p), -1);
        CHECK_EQ(errno, EINVAL);
    }
    p.clockid = CLOCK_REALTIME;
    struct timespec *bad_ts[] = {&bad_ns, &neg_ns, &neg_s};
    for (int i = 0; i < 3; i++) {
        p.timeout = bad_ts[i];
        CHECK_EQ(call(epfd, 0, ev, 4, &p), -1);
        CHECK_EQ(errno, EINVAL);
        p.clockid = CLOCK_MONOTONIC;
        CHECK_EQ(call(epfd, 0, ev, 4, &p), -1);
        CHECK_EQ(errno, EINVAL);
        p.clockid = CLOCK_REALTIME;
    }
    p.timeout = &zero;
    CHECK_EQ(call(epfd, 0, ev, 0, &p), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(call(epfd, 0, ev, -1, &p), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(call(epfd, 0, NULL, 4, &p), -1);
    CHECK_EQ(errno, EFAULT);
    p.sigmask = &set;
    p.sigsetsize = 3;
    CHECK_EQ(call(epfd, 0, ev, 4, &p), -1);
    CHECK_EQ(errno, EINVAL);
    p.sigsetsize = _NSIG / 8;
    CHECK_EQ(call(epfd, 0, ev, 4, &p), 1); /* the kernel's size */
    p.sigsetsize = sizeof(sigset_t);
    CHECK_EQ(call(epfd, 0, ev, 4, &p), 1); /* the C library's size */
    p.sigmask = NULL;
    p.sigsetsize = 3;                      /* ignored without a sigmask */
    CHECK_EQ(call(epfd, 0, ev, 4, &p), 1);
    CHECK_EQ(ev[0].data.u64, 9);

    /* Bad epfd, and an fd that is not an epoll instance, with each kind of timeout. */
    struct timespec ms = {0, 1000000};
    struct timespec *tos[] = {&zero, &ms};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 2; i++) {
            p.clockid = c ? CLOCK_REALTIME : CLOCK_MONOTONIC;
            p.timeout = tos[i];
            CHECK_EQ(call(-1, 0, ev, 4, &p), -1);
            CHECK_EQ(errno, EBADF);
            CHECK_EQ(call(efd, 0, ev, 4, &p), -1);
            CHECK_EQ(errno, EINVAL);
        }
    return 0;
}
