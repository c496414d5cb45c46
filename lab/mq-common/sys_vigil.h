/* vigil's queue (<vigil/mq.h>, shared memory, no system call when uncontended) behind
 * the lab's queue adapter (the set of calls is listed in sys_kernel.h). The queue lives
 * where vigil puts it by default (/dev/shm, or VIGIL_MQ_DIR), as a user's would. */
#ifndef VIGIL_MQLAB_SYS_VIGIL_H
#define VIGIL_MQLAB_SYS_VIGIL_H

#include <vigil/mq.h>

#include "mqlab.h"

#define SYS_NAME "vigil"

struct sysq {
    mqd_t q;
    char name[64];
};

/* Files to remove if the run is interrupted (a shared-memory queue outlives us). */
static char sys_vigil_paths[4][4096];

static void sys_vigil_on_signal(int sig)
{
    for (int i = 0; i < 4; i++)
        if (sys_vigil_paths[i][0])
            unlink(sys_vigil_paths[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void sys_setup(long maxmsg, long msgsize, int queues)
{
    (void)maxmsg;
    (void)msgsize;
    (void)queues;
    signal(SIGINT, sys_vigil_on_signal);
    signal(SIGTERM, sys_vigil_on_signal);
}

static inline void sys_create(struct sysq *q, const char *tag, long maxmsg, long msgsize)
{
    struct mq_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mq_maxmsg = maxmsg;
    attr.mq_msgsize = msgsize;
    snprintf(q->name, sizeof q->name, "/mqlab.%d.%s", (int)getpid(), tag);
    const char *dir = getenv("VIGIL_MQ_DIR");
    for (int i = 0; i < 4; i++)
        if (!sys_vigil_paths[i][0]) {
            snprintf(sys_vigil_paths[i], sizeof sys_vigil_paths[i], "%s/vigil.mq.%s", dir && *dir ? dir : "/dev/shm",
                     q->name + 1);
            break;
        }
    vigil_mq_unlink(q->name);
    q->q = vigil_mq_open(q->name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    if (q->q == (mqd_t)-1) {
        fprintf(stderr, "vigil_mq_open(%ld x %ld): %s\n", maxmsg, msgsize, strerror(errno));
        exit(1);
    }
}

static inline void sys_child(struct sysq *q)
{
    (void)q; /* vigil descriptors stay valid in a child after fork (vigil/mq.h) */
}

static inline int sys_send(struct sysq *q, const char *buf, size_t len, unsigned prio)
{
    return vigil_mq_send(q->q, buf, len, prio);
}

static inline long sys_receive(struct sysq *q, char *buf, size_t cap, unsigned *prio)
{
    return (long)vigil_mq_receive(q->q, buf, cap, prio);
}

static inline void sys_destroy(struct sysq *q)
{
    vigil_mq_close(q->q);
    vigil_mq_unlink(q->name);
}

#endif
