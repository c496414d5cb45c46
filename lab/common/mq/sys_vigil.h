/* vigil's queue (<vigil/mq.h>, shared memory, no system call when uncontended) behind
 * the lab's queue adapter (sys_posix.h lists its calls). The queue lives where vigil puts
 * it by default (/dev/shm, or VIGIL_MQ_DIR), as a user's would. */
#ifndef VIGIL_MQLAB_SYS_VIGIL_H
#define VIGIL_MQLAB_SYS_VIGIL_H

#include <vigil/mq.h>

#define SYS_NAME "vigil"
#define MQ(call) vigil_mq_##call

#include "sys_posix.h"

static inline void sys_setup(long maxmsg, long msgsize, int queues)
{
    (void)maxmsg;
    (void)msgsize;
    (void)queues;
    mqlab_remove_on_signal();
}

static inline void sys_opened(const struct sysq *q)
{
    (void)q;
}

static inline void sys_named(const struct sysq *q)
{
    const char *dir = getenv("VIGIL_MQ_DIR");
    mqlab_leftover(dir && *dir ? dir : "/dev/shm", "vigil.mq.", q->name + 1);
}

static inline void sys_open_failed(const struct sysq *q, long maxmsg, long msgsize)
{
    (void)q;
    fprintf(stderr, "vigil_mq_open(%ld x %ld): %s\n", maxmsg, msgsize, strerror(errno));
    exit(1);
}

#endif
