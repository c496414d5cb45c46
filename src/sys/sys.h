/* src/sys/: system-call wrappers, kernel constants, run-time probes (probe.h), time and
 * spin helpers (clock.h), the intrusive FIFO (list.h), the version. Calls nothing else of vigil's.
 *
 * System calls the loop makes on every turn, issued directly.
 *
 * glibc's wrappers for the waiting calls (epoll_wait, epoll_pwait2, ppoll) are
 * cancellation points: each call switches the thread's cancellation state on and off
 * around the system call. Measured on the lab machine (6.18, EPYC, 2 cores) that costs
 * ~37 ns on top of a ~118 ns epoll_wait(..., 0): a quarter of an idle turn. vigil's
 * waits are therefore not pthread cancellation points (documented in vigil/loop.h); cancel a
 * loop thread with vigil_loop_wakeup and a flag instead.
 *
 * Each returns the kernel's result: >= 0, or a negative errno (never touches errno).
 */
#ifndef VIGIL_SYS_H
#define VIGIL_SYS_H

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
static inline long vigil__syscall4(long n, long a, long b, long c, long d)
{
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return r;
}
static inline long vigil__syscall6(long n, long a, long b, long c, long d, long e, long f)
{
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return r;
}
#else
#include <errno.h>
static inline long vigil__syscall4(long n, long a, long b, long c, long d)
{
    long r = syscall(n, a, b, c, d);
    return r < 0 ? -errno : r;
}
static inline long vigil__syscall6(long n, long a, long b, long c, long d, long e, long f)
{
    long r = syscall(n, a, b, c, d, e, f);
    return r < 0 ? -errno : r;
}
#endif

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

static inline int vigil__epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout_ms)
{
#ifdef SYS_epoll_wait
    return (int)vigil__syscall4(SYS_epoll_wait, epfd, (long)ev, max, timeout_ms);
#else
    return (int)vigil__syscall6(SYS_epoll_pwait, epfd, (long)ev, max, timeout_ms, 0, 0);
#endif
}

static inline int vigil__epoll_pwait2(int epfd, struct epoll_event *ev, int max, const struct timespec *ts)
{
    return (int)vigil__syscall6(SYS_epoll_pwait2, epfd, (long)ev, max, (long)ts, 0, 0);
}

static inline int vigil__epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
    return (int)vigil__syscall4(SYS_epoll_ctl, epfd, op, fd, (long)ev);
}

static inline int vigil__ppoll(struct pollfd *fds, unsigned long n, const struct timespec *ts)
{
    /* The kernel may write the remaining time back: give it a copy. */
    struct timespec t, *tp = NULL;
    if (ts) {
        t = *ts;
        tp = &t;
    }
    return (int)vigil__syscall6(SYS_ppoll, (long)fds, (long)n, (long)tp, 0, _NSIG / 8, 0);
}

#endif
