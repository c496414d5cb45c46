/* The kernel's POSIX queues (mq_* system calls) behind the lab's queue adapter
 * (sys_posix.h lists its calls). The queues live in a private IPC namespace with raised
 * limits (mqlab_kernel_setup). */
#ifndef VIGIL_MQLAB_SYS_KERNEL_H
#define VIGIL_MQLAB_SYS_KERNEL_H

#include <mqueue.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* The records' system: "kernel", or MQLAB_SYSTEM when set. bench.py runs these very
 * programs, unchanged, under LD_PRELOAD=libvigil-mq.so (src/preload/) as "vigil-preload";
 * sys_named then makes sure the queue is not the kernel's. */
static inline const char *sys_kernel_name(void)
{
    const char *s = getenv("MQLAB_SYSTEM");
    return s && *s ? s : "kernel";
}
#define SYS_NAME sys_kernel_name()
#define MQ(call) mq_##call

#include "sys_posix.h"

static inline void sys_setup(long maxmsg, long msgsize, int queues)
{
    mqlab_kernel_setup(maxmsg, msgsize, queues);
}

static inline void sys_named(const struct sysq *q)
{
    (void)q; /* the private namespace's queues vanish with it */
}

static inline void sys_opened(const struct sysq *q)
{
    /* Under the preload, a queue the kernel can see means the preload is not in effect:
     * never record it as vigil's. */
    if (strcmp(SYS_NAME, "kernel") && syscall(SYS_mq_open, q->name + 1, O_RDONLY | O_CLOEXEC, 0, NULL) >= 0)
        mqlab_skip("MQLAB_SYSTEM is set but the queue is the kernel's: was libvigil-mq.so preloaded?");
}

static inline void sys_open_failed(const struct sysq *q, long maxmsg, long msgsize)
{
    (void)q;
    mqlab_kernel_open_failed(maxmsg, msgsize);
}

#endif
