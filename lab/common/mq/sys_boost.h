/* Boost.Interprocess message_queue (header-only, libboost-dev) behind the lab's queue
 * adapter (sys_posix.h lists its calls). C++ only.
 *
 * Boost 1.74 keeps the queue in a shared-memory object (/dev/shm/<name>): a process-shared
 * pthread mutex and two condition variables, and an index of message pointers kept in
 * priority order as a circular array, so an insert in the middle shifts pointers
 * (O(n)); inserts at either end (constant, rising, falling priorities) are O(1).
 * Errors are exceptions; the adapter turns them into -1 so the drivers stay C. */
#ifndef VIGIL_MQLAB_SYS_BOOST_H
#define VIGIL_MQLAB_SYS_BOOST_H

#include <boost/interprocess/ipc/message_queue.hpp>

#include "mqlab.h"

#define SYS_NAME "boost"

namespace bip = boost::interprocess;

struct sysq {
    bip::message_queue *mq;
    char name[64];
};

static inline void sys_setup(long maxmsg, long msgsize, int queues)
{
    (void)maxmsg;
    (void)msgsize;
    (void)queues;
    mqlab_remove_on_signal();
}

static inline void sys_create(struct sysq *q, const char *tag, long maxmsg, long msgsize)
{
    snprintf(q->name, sizeof q->name, "mqlab.%d.%s", (int)getpid(), tag);
    mqlab_leftover("/dev/shm", "", q->name);
    bip::message_queue::remove(q->name);
    try {
        q->mq = new bip::message_queue(bip::create_only, q->name, (std::size_t)maxmsg, (std::size_t)msgsize);
    } catch (const bip::interprocess_exception &e) {
        fprintf(stderr, "boost message_queue(%ld x %ld): %s\n", maxmsg, msgsize, e.what());
        exit(1);
    }
}

static inline void sys_child(struct sysq *q)
{
    /* The mapping is inherited, but a fresh open keeps Boost's per-process state its own. */
    try {
        q->mq = new bip::message_queue(bip::open_only, q->name);
    } catch (const bip::interprocess_exception &e) {
        fprintf(stderr, "boost message_queue open %s: %s\n", q->name, e.what());
        exit(1);
    }
}

static inline int sys_send(struct sysq *q, const char *buf, size_t len, unsigned prio)
{
    try {
        q->mq->send(buf, len, prio);
        return 0;
    } catch (const bip::interprocess_exception &) {
        return -1;
    }
}

static inline long sys_receive(struct sysq *q, char *buf, size_t cap, unsigned *prio)
{
    bip::message_queue::size_type got = 0;
    unsigned p = 0;
    try {
        q->mq->receive(buf, cap, got, p);
    } catch (const bip::interprocess_exception &) {
        return -1;
    }
    *prio = p;
    return (long)got;
}

static inline void sys_destroy(struct sysq *q)
{
    delete q->mq;
    bip::message_queue::remove(q->name);
}

#endif
