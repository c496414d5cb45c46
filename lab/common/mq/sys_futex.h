/* A hand-written floor behind the lab's queue adapter (sys_posix.h lists its calls): the
 * least any queue in shared memory pays to hand a message from one process to another
 * that waits for it. One sender and one receiver, a ring of fixed slots in a shared
 * anonymous mapping made before fork(), and one shared futex (no FUTEX_PRIVATE_FLAG:
 * the two sides are different processes, as with vigil's queue in /dev/shm):
 *
 *   receiver: ring empty -> say it waits (seq_cst) -> look again -> FUTEX_WAIT on head
 *   sender:   fill the slot -> publish head (seq_cst) -> if the receiver waits, FUTEX_WAKE
 *
 * No priorities, no second receiver, no dead-peer recovery, no timeouts, no
 * notification: everything a POSIX queue owes its callers and this one skips. What is
 * left is the kernel's share of a user-space queue's blocking receive (one futex wait
 * and its wake-up), which is what mq-lowrate compares with the kernel's mq_receive.
 * Records as system "futex" so that no check mistakes it for the kernel's queue. */
#ifndef VIGIL_MQLAB_SYS_FUTEX_H
#define VIGIL_MQLAB_SYS_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "mqlab.h"

#define SYS_NAME "futex"
#define FQ_SLOTS 64
#define FQ_BYTES 64

struct fq_shared {
    _Alignas(64) _Atomic uint32_t head; /* messages published (sender) */
    _Atomic uint32_t waiting;           /* the receiver sleeps, or is about to */
    _Alignas(64) _Atomic uint32_t tail; /* messages taken (receiver) */
    _Atomic uint32_t room_waiting;      /* the sender waits for a free slot */
    _Alignas(64) uint32_t len[FQ_SLOTS];
    char slot[FQ_SLOTS][FQ_BYTES];
};

struct sysq {
    struct fq_shared *s;
    long maxmsg;
    char name[64];
};

static inline long fq_futex(_Atomic uint32_t *w, int op, uint32_t val)
{
    return syscall(SYS_futex, (uint32_t *)w, op, val, NULL, NULL, 0);
}

/* Sleeps while *w still holds v, after telling the other side through *flag. */
static inline void fq_wait(_Atomic uint32_t *w, uint32_t v, _Atomic uint32_t *flag)
{
    atomic_store(flag, 1);
    if (atomic_load(w) == v)
        fq_futex(w, FUTEX_WAIT, v);
    atomic_store_explicit(flag, 0, memory_order_relaxed);
}

static inline void fq_wake(_Atomic uint32_t *w, _Atomic uint32_t *flag)
{
    if (atomic_load(flag))
        fq_futex(w, FUTEX_WAKE, INT_MAX);
}

static inline void sys_setup(long maxmsg, long msgsize, int queues)
{
    (void)queues;
    if (maxmsg > FQ_SLOTS || msgsize > FQ_BYTES) {
        fprintf(stderr, "futex floor: at most %d messages of %d bytes\n", FQ_SLOTS, FQ_BYTES);
        exit(2);
    }
}

static inline void sys_create(struct sysq *q, const char *tag, long maxmsg, long msgsize)
{
    (void)msgsize;
    snprintf(q->name, sizeof q->name, "futex.%d.%s", (int)getpid(), tag);
    q->maxmsg = maxmsg;
    q->s = (struct fq_shared *)mmap(NULL, sizeof *q->s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (q->s == MAP_FAILED)
        mqlab_die("mmap");
}

static inline void sys_child(struct sysq *q)
{
    (void)q; /* the mapping is inherited */
}

static inline int sys_send(struct sysq *q, const char *buf, size_t len, unsigned prio)
{
    (void)prio;
    struct fq_shared *s = q->s;
    uint32_t h = atomic_load_explicit(&s->head, memory_order_relaxed);
    uint32_t t;
    while (h - (t = atomic_load(&s->tail)) >= (uint32_t)q->maxmsg)
        fq_wait(&s->tail, t, &s->room_waiting);
    memcpy(s->slot[h % FQ_SLOTS], buf, len);
    s->len[h % FQ_SLOTS] = (uint32_t)len;
    atomic_store(&s->head, h + 1);
    fq_wake(&s->head, &s->waiting);
    return 0;
}

static inline long sys_receive(struct sysq *q, char *buf, size_t cap, unsigned *prio)
{
    struct fq_shared *s = q->s;
    uint32_t t = atomic_load_explicit(&s->tail, memory_order_relaxed);
    uint32_t h;
    while ((h = atomic_load(&s->head)) == t)
        fq_wait(&s->head, h, &s->waiting);
    uint32_t len = s->len[t % FQ_SLOTS];
    if (len > cap)
        return -1;
    memcpy(buf, s->slot[t % FQ_SLOTS], len);
    atomic_store(&s->tail, t + 1);
    fq_wake(&s->tail, &s->room_waiting);
    *prio = 0;
    return (long)len;
}

static inline void sys_destroy(struct sysq *q)
{
    munmap(q->s, sizeof *q->s);
}

#endif
