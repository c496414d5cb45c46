/* Out of descriptors while accepting: with this process's RLIMIT_NOFILE lowered so the
 * next descriptor cannot be had, a client connects: the accept callback gets -EMFILE
 * exactly once, and accepting pauses without a busy loop (few turns in 200 ms); with
 * the limit raised back, the waiting connection is accepted within
 * 4 * VIGIL_NET_ACCEPT_BACKOFF_MS. Only this process's limit changes. */
#include "nt.h"

static int emfiles, others, accepted_fd = -1;
static int64_t accepted_at;

static void on_accept(vigil_loop *l, vigil_sock *s, int fd)
{
    (void)l, (void)s;
    if (fd == -EMFILE) {
        emfiles++;
    } else if (fd >= 0) {
        accepted_fd = fd;
        accepted_at = nt_ms();
    } else {
        fprintf(stderr, "accept: %s\n", strerror(-fd));
        others++;
    }
}

static struct rlimit old;
static void restore(void) { setrlimit(RLIMIT_NOFILE, &old); } /* for the sanitizers' exit */

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    int port;
    int lfd = nt_listener(8, 0, &port);
    vigil_sock l = {0};
    CHECK_EQ(vigil_sock_open(loop, &l, lfd), 0);
    nt_run_for(loop, 10); /* the loop's timers set up before the limit drops */
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    CHECK_SYS(c);

    struct rlimit low;
    CHECK_SYS(getrlimit(RLIMIT_NOFILE, &old));
    atexit(restore);
    int probe = dup(0);
    CHECK_SYS(probe);
    close(probe);
    low = old;
    low.rlim_cur = (rlim_t)probe; /* the lowest free descriptor is the first refused */
    CHECK_SYS(setrlimit(RLIMIT_NOFILE, &low));
    /* Accepting starts after the limit dropped: io_uring reads the limit when the
     * multishot accept is armed, so one armed before would still accept. */
    CHECK_EQ(vigil_sock_accept_start(loop, &l, on_accept), 0);
    struct sockaddr_in sa = nt_loopback(port);
    CHECK(connect(c, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EINPROGRESS);

    NT_RUN_UNTIL(loop, emfiles >= 1 || others || accepted_fd >= 0, 3000);
    CHECK_EQ(accepted_fd, -1);
    struct vigil_loop_stats st0, st1;
    CHECK_EQ(vigil_loop_stats_get(loop, &st0), 0);
    nt_run_for(loop, 200);
    CHECK_EQ(vigil_loop_stats_get(loop, &st1), 0);
    uint64_t turns = st1.turns - st0.turns;
    printf("%llu turns in 200 ms while out of descriptors, %d -EMFILE\n", (unsigned long long)turns, emfiles);
    CHECK(turns < 50);
    CHECK_EQ(emfiles, 1);
    CHECK_EQ(accepted_fd, -1);
    CHECK_EQ(vigil_sock_accepting(&l), 1);

    CHECK_SYS(setrlimit(RLIMIT_NOFILE, &old));
    int64_t t0 = nt_ms();
    NT_RUN_UNTIL(loop, accepted_fd >= 0, 3000);
    printf("accepted %lld ms after the limit was raised on %s\n", (long long)(accepted_at - t0), nt_backend());
    CHECK(accepted_at - t0 <= 4 * VIGIL_NET_ACCEPT_BACKOFF_MS);
    CHECK_EQ(emfiles, 1);
    CHECK_EQ(others, 0);
    close(accepted_fd);
    CHECK_EQ(vigil_sock_close(loop, &l, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(c);
    return 0;
}
