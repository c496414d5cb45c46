/* epoll_pwait1 sigmask (man page): NULL behaves like epoll_wait (the thread's mask
 * stays); otherwise the mask is installed atomically for the wait: a pending signal it
 * unblocks interrupts the wait (-1/EINTR, the handler ran) and the thread's old mask is
 * back afterwards. Checked on both clocks and with a zero and a positive timeout. */
#include "e1.h"

static volatile sig_atomic_t hits;

static void on_usr1(int s)
{
    (void)s;
    hits++;
}

int main(void)
{
#if defined(__SANITIZE_THREAD__)
    /* TSan defers a handler to its next intercepted call; the raw wait's EINTR comes first. */
    vt_skip("ThreadSanitizer defers signal handlers: EINTR returns before the handler ran");
#endif
    e1_path_or_skip();
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    CHECK_SYS(epfd);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    CHECK_SYS(sigaction(SIGUSR1, &sa, NULL));
    sigset_t block, unblock, cur;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    CHECK_SYS(sigprocmask(SIG_BLOCK, &block, NULL));
    sigemptyset(&unblock);

    struct epoll_event ev[2];
    struct timespec t = {0, 5 * 1000000};
    const clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME};
    for (int c = 0; c < 2; c++) {
        struct vigil_epoll_wait_params p = {.clockid = clocks[c], .timeout = &t};
        CHECK_SYS(raise(SIGUSR1)); /* pending, blocked */
        /* NULL sigmask: the signal stays blocked, the wait times out. */
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 2, &p), 0);
        CHECK_EQ(hits, 0);
        /* A mask that unblocks it: EINTR, the handler ran, the old mask is back. */
        p.sigmask = &unblock;
        p.sigsetsize = _NSIG / 8;
        errno = 0;
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 2, &p), -1);
        CHECK_EQ(errno, EINTR);
        CHECK_EQ(hits, 1);
        CHECK_SYS(sigprocmask(SIG_BLOCK, NULL, &cur));
        CHECK(sigismember(&cur, SIGUSR1));
        /* With no timeout at all (NULL), the same. */
        CHECK_SYS(raise(SIGUSR1));
        p.timeout = NULL;
        p.sigsetsize = sizeof(sigset_t);
        errno = 0;
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 2, &p), -1);
        CHECK_EQ(errno, EINTR);
        CHECK_EQ(hits, 2);
        hits = 0;
        /* A mask that keeps it blocked: no interruption. */
        CHECK_SYS(raise(SIGUSR1));
        p.timeout = &t;
        p.sigmask = &block;
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 2, &p), 0);
        CHECK_EQ(hits, 0);
        /* Drain the pending signal before the next clock. */
        p.sigmask = &unblock;
        CHECK_EQ(vigil_epoll_pwait1(epfd, 0, ev, 2, &p), -1);
        CHECK_EQ(hits, 1);
        hits = 0;
    }
    return 0;
}
