/* The kernel's POSIX queues (mq_* system calls) behind the lab's queue adapter.
 * Every adapter (sys_kernel.h, sys_boost.h, sys_vigil.h) offers the same small set:
 *   sys_setup(maxmsg, msgsize, queues)  once, before any queue (kernel: namespace)
 *   sys_create(q, tag, maxmsg, msgsize) a fresh queue under a name unique to this run
 *   sys_child(q)                        in a fork()ed child, before using q
 *   sys_send(q, buf, len, prio)         blocking; 0 or -1
 *   sys_receive(q, buf, cap, &prio)     blocking; length or -1
 *   sys_destroy(q)                      close and remove (creator only)
 * so each benchmark's driver (a header) is written once and compiled per system. */
#ifndef VIGIL_MQLAB_SYS_KERNEL_H
#define VIGIL_MQLAB_SYS_KERNEL_H

#include <mqueue.h>
#include <sys/syscall.h>

#include "mqlab.h"

/* The records' system: "kernel", or MQLAB_SYSTEM when set. bench.py runs these very
 * programs, unchanged, under LD_PRELOAD=libvigil-mq.so (src/preload/) as "vigil-preload";
 * sys_create then makes sure the queue is not the kernel's. */
static inline const char *sys_kernel_name(void)
{
    const char *s = getenv("MQLAB_SYSTEM");
    return s && *s ? s : "kernel";
}
#define SYS_NAME sys_kernel_name()

struct sysq {
    mqd_t q;
    char name[64];
};

static inline void sys_setup(long maxmsg, long msgsize, int queues)
{
    mqlab_kernel_setup(maxmsg, msgsize, queues);
}

static inline void sys_create(struct sysq *q, const char *tag, long maxmsg, long msgsize)
{
    struct mq_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mq_maxmsg = maxmsg;
    attr.mq_msgsize = msgsize;
    snprintf(q->name, sizeof q->name, "/mqlab.%d.%s", (int)getpid(), tag);
    mq_unlink(q->name);
    q->q = mq_open(q->name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    if (q->q == (mqd_t)-1)
        mqlab_kernel_open_failed(maxmsg, msgsize);
    if (strcmp(SYS_NAME, "kernel") && syscall(SYS_mq_open, q->name + 1, O_RDONLY | O_CLOEXEC, 0, NULL) >= 0)
        mqlab_skip("MQLAB_SYSTEM is set but the queue is the kernel's: was libvigil-mq.so preloaded?");
}

static inline void sys_child(struct sysq *q)
{
    (void)q; /* an mqd_t is a file descriptor: inherited as it is */
}

static inline int sys_send(struct sysq *q, const char *buf, size_t len, unsigned prio)
{
    return mq_send(q->q, buf, len, prio);
}

static inline long sys_receive(struct sysq *q, char *buf, size_t cap, unsigned *prio)
{
    return (long)mq_receive(q->q, buf, cap, prio);
}

static inline void sys_destroy(struct sysq *q)
{
    mq_close(q->q);
    mq_unlink(q->name);
}

#endif
