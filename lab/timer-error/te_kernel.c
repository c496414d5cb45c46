/* timer-error, system "kernel": the raw waits, no loop.
 *   --case select               select(0, ...) with a us timeval (the thread's slack)
 *   --case poll                 poll(NULL, 0, ms): asked for the delay rounded up to ms
 *   --case "pwait2 slack default"  epoll_pwait2 on an empty set, ns timespec, slack as inherited
 *   --case "pwait2 slack 1ns"      the same with PR_SET_TIMERSLACK 1 ns
 * Error = the call's return minus (clock read before the call + delay). */
#include "te.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

int main(int argc, char **argv)
{
    const char *cas = te_opt(argc, argv, "--case");
    if (!cas)
        cas = "select";
    struct te t;
    te_init(&t, argc, argv, "kernel", cas);
    int ep = -1;
    bool pw = strncmp(cas, "pwait2", 6) == 0;
    if (pw) {
        ep = epoll_create1(EPOLL_CLOEXEC);
        struct epoll_event ev;
        struct timespec z = {0, 0};
        if (ep < 0 || (syscall(SYS_epoll_pwait2, ep, &ev, 1, &z, NULL, 0) < 0 && errno == ENOSYS)) {
            fprintf(stderr, "epoll_pwait2 not offered by this kernel\n");
            return 77;
        }
        if (strstr(cas, "1ns") && prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) < 0) {
            perror("PR_SET_TIMERSLACK");
            return 1;
        }
    } else if (strcmp(cas, "select") != 0 && strcmp(cas, "poll") != 0) {
        fprintf(stderr, "unknown case %s\n", cas);
        return 2;
    }
    int poll_ms = (int)te_ceil_ms(t.delay_ns);
    for (;;) {
        int64_t t0 = bench_now_ns();
        if (pw) {
            struct epoll_event ev;
            struct timespec ts = {(time_t)(t.delay_ns / 1000000000), (long)(t.delay_ns % 1000000000)};
            syscall(SYS_epoll_pwait2, ep, &ev, 1, &ts, NULL, 0);
        } else if (cas[0] == 's') {
            struct timeval tv = {(time_t)(t.delay_us / 1000000), (suseconds_t)(t.delay_us % 1000000)};
            select(0, NULL, NULL, NULL, &tv);
        } else {
            poll(NULL, 0, poll_ms);
        }
        int64_t t1 = bench_now_ns();
        if (te_record(&t, t1 - (t0 + t.delay_ns)))
            break;
    }
    te_finish(&t);
    return 0;
}
