/* Helpers for the mq tests: every test makes its queues in a private directory
 * (mkdtemp, exported as VIGIL_MQ_DIR) and removes it at exit, so parallel runs never
 * collide and nothing is left in /dev/shm. */
#ifndef VIGIL_MQT_H
#define VIGIL_MQT_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vigil/mq.h"
#include "privdir.h"
#include "vt.h"

/* Makes the private directory and registers its removal (privdir.h). */
static inline void mqt_setup(void)
{
    privdir_make("vigil-mqtest", "VIGIL_MQ_DIR");
}

/* A new queue whose file has exactly this mode (the umask is set aside meanwhile). */
static inline mqd_t mqt_create_mode(const char *name, long maxmsg, long msgsize, mode_t mode)
{
    struct mq_attr a = {.mq_maxmsg = maxmsg, .mq_msgsize = msgsize};
    mode_t old = umask(0);
    mqd_t q = vigil_mq_open(name, O_RDWR | O_CREAT | O_EXCL, mode, &a);
    int e = errno;
    umask(old);
    if (q == (mqd_t)-1) {
        fprintf(stderr, "vigil_mq_open(%s, %ld, %ld, 0%o): %s\n", name, maxmsg, msgsize, (unsigned)mode,
                strerror(e));
        exit(1);
    }
    return q;
}

static inline mqd_t mqt_create(const char *name, long maxmsg, long msgsize)
{
    return mqt_create_mode(name, maxmsg, msgsize, 0600);
}

/* Forks a child that runs as the unprivileged uid and gid 65534: returns 0 in the child
 * (which exits 77 if it cannot drop to them), the child's pid in the parent. The test
 * directory is opened to others (0711) so that the child reaches the queues in it. */
static inline pid_t mqt_fork_unprivileged(void)
{
    CHECK_SYS(chmod(privdir, 0711));
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0 && (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
        _exit(VT_SKIP);
    return pid;
}

/* Waits for a child of mqt_fork_unprivileged: skips the test (77) if it could not drop
 * its ids, else returns its exit status (vt_child_exit). */
static inline int mqt_wait_unprivileged(pid_t pid)
{
    int st = vt_child_exit(pid);
    if (st == VT_SKIP)
        vt_skip("cannot drop to uid 65534 here (setresuid refused)");
    return st;
}

/* An absolute CLOCK_REALTIME time ns from now. */
static inline struct timespec mqt_in(long long ns)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long long v = (long long)t.tv_sec * 1000000000LL + t.tv_nsec + ns;
    t.tv_sec = (time_t)(v / 1000000000LL);
    t.tv_nsec = (long)(v % 1000000000LL);
    return t;
}

#endif
