/* epoll_pwait1 timeouts (man page): NULL blocks until an event; {0, 0} returns at once;
 * otherwise a relative ns timeout on the chosen clock; the return is the number of ready
 * events (at most maxevents), 0 on timeout. Checked without timing limits: a timeout
 * never returns before its deadline, on its own clock. */
#include <pthread.h>

#include "e1.h"

static int wfd;

static void *late_writer(void *arg)
{
    (void)arg;
    struct timespec d = {0, 50 * 1000000};
    nanosleep(&d, NULL);
    uint64_t one = 1;
    if (write(wfd, &one, 8) != 8)
        exit(1);
    return NULL;
}

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    wfd = eventfd(0, EFD_CLOEXEC);
    CHECK_SYS(epfd);
    CHECK_SYS(wfd);
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = 77};
    CHECK_SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, wfd, &e));
    struct epoll_event ev[4];
    struct timespec zero = {0, 0};
    const clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME};

    for (int c = 0; c < 2; c++) {
        struct vigil_epoll_wait_params p = {.clockid = clocks[c], .timeout = &zero};
        /* zero: at once, 0 with nothing ready */
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 0);
        /* a timeout: 0, never before the deadline on that clock */
        struct timespec t = {0, 20 * 1000000 + 123};
        p.timeout = &t;
        int64_t t0 = now_ns(clocks[c]);
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 0);
        CHECK(now_ns(clocks[c]) - t0 >= 20 * 1000000 + 123);
        /* NULL: blocks until the other thread writes */
        p.timeout = NULL;
        pthread_t th;
        CHECK_EQ(pthread_create(&th, NULL, late_writer, NULL), 0);
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 1);
        CHECK_EQ(ev[0].data.u64, 77);
        CHECK_EQ(pthread_join(th, NULL), 0);
        /* ready now: each kind of timeout returns the event count */
        p.timeout = &zero;
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 1);
        p.timeout = &t;
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 1);
        /* an event that arrives during a long timeout ends the wait with it */
        uint64_t v;
        CHECK_EQ(read(wfd, &v, 8), 8);
        struct timespec longt = {30, 0};
        p.timeout = &longt;
        CHECK_EQ(pthread_create(&th, NULL, late_writer, NULL), 0);
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 1);
        CHECK_EQ(pthread_join(th, NULL), 0);
        CHECK_EQ(read(wfd, &v, 8), 8);
    }

    /* At most maxevents: three ready fds, maxevents 2. */
    for (int i = 0; i < 3; i++) {
        int f = eventfd(1, EFD_CLOEXEC);
        struct epoll_event x = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
        CHECK_SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, f, &x));
    }
    struct timespec ms = {0, 1000000};
    struct vigil_epoll_wait_params p = {.clockid = CLOCK_REALTIME, .timeout = &ms};
    CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 2, &p), 2);
    p.clockid = CLOCK_MONOTONIC;
    CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 4, &p), 3);
    return 0;
}
