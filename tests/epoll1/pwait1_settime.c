/* epoll_pwait1 with CLOCK_REALTIME: the relative timeout becomes an absolute REALTIME
 * deadline when the call starts, so setting the clock forward during the wait ends it
 * early (in monotonic time). This sets the machine's clock: it runs only with
 * VIGIL_TEST_SETTIME=1 (and CAP_SYS_TIME), and puts the clock back afterwards. */
#include <pthread.h>

#include "e1.h"

#define JUMP_S 100

static void *jumper(void *arg)
{
    (void)arg;
    struct timespec d = {0, 200 * 1000000};
    nanosleep(&d, NULL);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    now.tv_sec += JUMP_S;
    if (clock_settime(CLOCK_REALTIME, &now) < 0) {
        perror("clock_settime");
        exit(1);
    }
    return NULL;
}

int main(void)
{
    if (!getenv("VIGIL_TEST_SETTIME") || strcmp(getenv("VIGIL_TEST_SETTIME"), "1") != 0)
        vt_skip("sets the machine's clock: run with VIGIL_TEST_SETTIME=1 (needs CAP_SYS_TIME)");
    e1_path_or_skip();
    struct timespec probe;
    clock_gettime(CLOCK_REALTIME, &probe);
    if (clock_settime(CLOCK_REALTIME, &probe) < 0)
        vt_skip("clock_settime refused (no CAP_SYS_TIME)");
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    CHECK_SYS(epfd);
    struct epoll_event ev[1];
    struct timespec t = {JUMP_S / 2, 0}; /* ends when the clock jumps past it */
    struct vigil_epoll_wait_params p = {.clockid = CLOCK_REALTIME, .timeout = &t};
    struct timespec m0, m1;
    clock_gettime(CLOCK_MONOTONIC, &m0);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, jumper, NULL), 0);
    int n = vigil_epoll_pwait1(epfd, 0, ev, 1, &p);
    clock_gettime(CLOCK_MONOTONIC, &m1);
    pthread_join(th, NULL);
    /* Put the clock back by the jump. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    now.tv_sec -= JUMP_S;
    CHECK_SYS(clock_settime(CLOCK_REALTIME, &now));
    CHECK_EQ(n, 0);
    double waited = (double)(m1.tv_sec - m0.tv_sec) + (double)(m1.tv_nsec - m0.tv_nsec) / 1e9;
    printf("waited %.3f s of monotonic time for a %d s REALTIME timeout\n", waited, JUMP_S / 2);
    CHECK(waited < JUMP_S / 2);
    return 0;
}
