/* The POSIX queue calls behind the lab's queue adapter, for the two systems that offer
 * them with the same semantics: the kernel's mq_* (a system call each, sys_kernel.h) and
 * vigil's vigil_mq_* (<vigil/mq.h>: shared memory, no system call when uncontended,
 * sys_vigil.h). The including header defines SYS_NAME, MQ(call) (the call's name with
 * its prefix), and after this file sys_setup(), sys_named(), sys_opened() and
 * sys_open_failed().
 *
 * Every adapter (this one, sys_boost.h) offers the same small set:
 *   sys_setup(maxmsg, msgsize, queues)  once, before any queue (kernel: namespace)
 *   sys_create(q, tag, maxmsg, msgsize) a fresh queue under a name unique to this run
 *   sys_child(q)                        in a fork()ed child, before using q
 *   sys_send(q, buf, len, prio)         blocking; 0 or -1
 *   sys_receive(q, buf, cap, &prio)     blocking; length or -1
 *   sys_destroy(q)                      close and remove (creator only)
 * so each benchmark's driver (a header) is written once and compiled per system. */
#ifndef VIGIL_MQLAB_SYS_POSIX_H
#define VIGIL_MQLAB_SYS_POSIX_H

#include "mqlab.h"

struct sysq {
    mqd_t q;
    char name[64];
};

/* q's name is set, its queue not yet opened (vigil: remove its file if interrupted). */
static inline void sys_named(const struct sysq *q);
static inline void sys_opened(const struct sysq *q);
static inline void sys_open_failed(const struct sysq *q, long maxmsg, long msgsize);

static inline void sys_create(struct sysq *q, const char *tag, long maxmsg, long msgsize)
{
    struct mq_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mq_maxmsg = maxmsg;
    attr.mq_msgsize = msgsize;
    snprintf(q->name, sizeof q->name, "/mqlab.%d.%s", (int)getpid(), tag);
    sys_named(q);
    MQ(unlink)(q->name);
    q->q = MQ(open)(q->name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    if (q->q == (mqd_t)-1)
        sys_open_failed(q, maxmsg, msgsize);
    sys_opened(q);
}

static inline void sys_child(struct sysq *q)
{
    (void)q; /* a descriptor of either stays valid in a child after fork (vigil/mq.h) */
}

static inline int sys_send(struct sysq *q, const char *buf, size_t len, unsigned prio)
{
    return MQ(send)(q->q, buf, len, prio);
}

static inline long sys_receive(struct sysq *q, char *buf, size_t cap, unsigned *prio)
{
    return (long)MQ(receive)(q->q, buf, cap, prio);
}

static inline void sys_destroy(struct sysq *q)
{
    MQ(close)(q->q);
    MQ(unlink)(q->name);
}

#endif
