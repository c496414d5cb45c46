/* The kernel's POSIX queues (mq_* system calls) behind the lab's queue adapter
 * (sys_posix.h lists its calls). The queues live in a private IPC namespace with raised
 * limits (mqlab_kernel_setup). */
#ifndef VIGIL_MQLAB_SYS_KERNEL_H
#define VIGIL_MQLAB_SYS_KERNEL_H

#include <mqueue.h>

#define SYS_NAME "kernel"
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

static inline void sys_open_failed(const struct sysq *q, long maxmsg, long msgsize)
{
    (void)q;
    mqlab_kernel_open_failed(maxmsg, msgsize);
}

#endif
