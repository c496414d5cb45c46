/* epoll_ctl_batch and epoll_pwait1, as the 2015 patch series "epoll: Introduce new
 * syscalls, epoll_ctl_batch and epoll_pwait1" (v4) documented them, usable on today's
 * kernels. These two calls follow their man pages: they return -1 and set errno on
 * failure (the only vigil calls that do, besides the POSIX mq front).
 *
 *   #include <vigil/epoll1.h>
 *
 * How they reach the kernel: vigil_epoll_ctl_batch sends the whole batch through one
 * io_uring_enter (one IORING_OP_EPOLL_CTL entry per command, on a small io_uring private
 * to the calling thread, created on first use and kept) where the kernel and its seccomp
 * policy allow io_uring, else it makes one epoll_ctl per command; the results are the
 * same either way. A batch of one command is one epoll_ctl (also one system call, and a
 * cheaper one). The environment variable VIGIL_EPOLL1_PATH=uring|epoll, read once per
 * process, forces a path (uring where it is refused: every call fails with ENOSYS).
 * To keep the documented order and the stop at the first failure, the io_uring entries
 * are linked, which makes the kernel run them one after another: a batch then costs
 * about what the same epoll_ctl calls cost (measured in lab/ctl-batch), in one call.
 */
#ifndef VIGIL_EPOLL1_H
#define VIGIL_EPOLL1_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <time.h>

#include "vigil/loop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One command of a batch (the 2015 series' struct epoll_ctl_cmd; see VIGIL_EPOLL1_NAMES
 * below for that spelling). */
struct vigil_epoll_ctl_cmd {
    int flags;       /* reserved, must be 0 (else this entry fails with -EINVAL) */
    int op;          /* EPOLL_CTL_ADD, EPOLL_CTL_MOD or EPOLL_CTL_DEL, as epoll_ctl's op */
    int fd;          /* as epoll_ctl's fd */
    uint32_t events; /* as struct epoll_event's events */
    uint64_t data;   /* as struct epoll_event's data */
    int result;      /* out: 0 when done, the negative errno when this entry failed */
};

/* Applies cmds[0..ncmds) to the epoll instance epfd, in order, as epoll_ctl would.
 * Processing stops at the first entry that fails: its result holds the negative errno,
 * each entry before it has result 0, entries after it are left untouched.
 * Returns the number of entries done (ncmds when all succeeded; else the index of the
 * failing entry), or -1 with errno EINVAL when flags is not 0, ncmds <= 0 or
 * ncmds > INT_MAX / sizeof(struct vigil_epoll_ctl_cmd), or cmds is NULL (nothing processed);
 * ENOMEM when no memory; ENOSYS when VIGIL_EPOLL1_PATH=uring and io_uring is refused. */
VIGIL_EXPORT int vigil_epoll_ctl_batch(int epfd, int flags, int ncmds, struct vigil_epoll_ctl_cmd *cmds);

struct vigil_epoll_wait_params {
    int clockid;              /* CLOCK_MONOTONIC or CLOCK_REALTIME: the timeout's clock */
    struct timespec *timeout; /* NULL: block; {0, 0}: return at once; else relative */
    sigset_t *sigmask;        /* NULL: like epoll_wait; else installed for the wait */
    size_t sigsetsize;        /* size of *sigmask: _NSIG / 8 (the kernel's), or
                                 sizeof(sigset_t) (the C library's) */
};

/* Waits like epoll_pwait for events on epfd, at most maxevents of them, with a
 * nanosecond timeout measured on params->clockid. The relative timeout becomes an
 * absolute deadline on that clock when the call starts: with CLOCK_REALTIME, a clock
 * set during the wait moves the deadline. When sigmask is not NULL it replaces the
 * thread's signal mask atomically for the wait, as with epoll_pwait.
 * Returns the number of events stored in events (0 when the timeout expired), or -1 with
 * errno: EINVAL for flags not 0, a clockid other than CLOCK_REALTIME/CLOCK_MONOTONIC, an
 * invalid timespec (negative, or tv_nsec >= 1e9), maxevents <= 0 or too large, a bad
 * sigsetsize, or an epfd that is not an epoll instance; EFAULT for a NULL params or
 * events; EBADF for a bad epfd; EINTR when a signal handler ran. */
VIGIL_EXPORT int vigil_epoll_pwait1(int epfd, int flags, struct epoll_event *events, int maxevents,
                                    struct vigil_epoll_wait_params *params);

/* The 2015 spellings, opt-in: define VIGIL_EPOLL1_NAMES before including this header to
 * write struct epoll_ctl_cmd, struct epoll_wait_params, epoll_ctl_batch() and
 * epoll_pwait1() as the patch series did. Off by default: a future <sys/epoll.h> may
 * declare these names itself, and a program that opts in must not also get them from
 * there. */
#ifdef VIGIL_EPOLL1_NAMES
#define epoll_ctl_cmd vigil_epoll_ctl_cmd
#define epoll_wait_params vigil_epoll_wait_params
#define epoll_ctl_batch vigil_epoll_ctl_batch
#define epoll_pwait1 vigil_epoll_pwait1
#endif

#ifdef __cplusplus
}
#endif
#endif
