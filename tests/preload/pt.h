/* Helpers for the preload tests. These programs are what a user has: built against
 * <mqueue.h> only (no vigil header, no vigil library), linked with -lrt or not, and run
 * under LD_PRELOAD=libvigil-mq.so by ctest. Each makes its queues in a private
 * directory named by VIGIL_MQ_DIR (as a user would configure vigil) and removes it at
 * exit. pt_is_vigil() proves a queue is vigil's: its file is in that directory and the
 * kernel has no queue of that name. */
#ifndef VIGIL_PT_H
#define VIGIL_PT_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "privdir.h"

/* A call that must fail with this errno. */
#define CHECK_ERR(call, err)                                                                       \
    do {                                                                                           \
        errno = 0;                                                                                 \
        long long r_ = (long long)(call);                                                          \
        if (r_ != -1 || errno != (err)) {                                                          \
            fprintf(stderr, "%s:%d: %s returned %lld errno %d (%s), expected -1 errno %d (%s)\n",  \
                    __FILE__, __LINE__, #call, r_, errno, strerror(errno), err, strerror(err));    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Makes the private queue directory; the process that calls it removes it at exit. */
static inline void pt_setup(void)
{
    privdir_make("vigil-preload", "VIGIL_MQ_DIR");
}

/* Whether the kernel has a queue of this name (asked with the system call itself, which
 * no preload can intercept). */
static inline int pt_kernel_has(const char *name)
{
    long fd = syscall(SYS_mq_open, name + 1, O_RDONLY | O_CLOEXEC, 0, NULL);
    if (fd >= 0)
        syscall(SYS_close, fd);
    return fd >= 0;
}

/* The queue `name` is vigil's: a file in VIGIL_MQ_DIR, and not a kernel queue. */
static inline int pt_is_vigil(const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/vigil.mq.%s", privdir, name + 1);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && !pt_kernel_has(name);
}

/* An absolute CLOCK_REALTIME deadline ms milliseconds from now. */
static inline struct timespec pt_in_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static inline double pt_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
