/* Hostile memory: scribbles on a queue's shared memory make calls fail with EBADMSG
 * (never a crash or an out-of-bounds access, which ASan would report); a non-queue
 * file is refused at open. Each case starts from a fresh queue. */
#include "mqt.h"
#include "mq/mq_int.h"
#include <sys/wait.h>

static mqd_t fresh(const char *name)
{
    mqd_t q = mqt_create(name, 8, 32);
    for (unsigned i = 0; i < 5; i++)
        CHECK_SYS(vigil_mq_send(q, "abcdefgh", 8, i % 2));
    char buf[32];
    CHECK_EQ(vigil_mq_receive(q, buf, 32, NULL), 8); /* a free list of one */
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = O_NONBLOCK}, NULL));
    return q;
}

/* The id of a thread that no longer exists: a child that exited and was reaped. */
static uint32_t dead_tid(void)
{
    pid_t p = fork();
    CHECK_SYS(p);
    if (p == 0)
        _exit(0);
    CHECK_SYS(waitpid(p, NULL, 0));
    return (uint32_t)p;
}

static void expect_badmsg_recv(mqd_t q)
{
    char buf[32];
    errno = 0;
    CHECK_EQ(vigil_mq_receive(q, buf, 32, NULL), -1);
    CHECK_EQ(errno, EBADMSG);
}

static void expect_badmsg_send(mqd_t q)
{
    errno = 0;
    CHECK_EQ(vigil_mq_send(q, "x", 1, 0), -1);
    CHECK_EQ(errno, EBADMSG);
}

int main(void)
{
    mqt_setup();
    struct vigil__mq *m;
    mqd_t q;

    /* A head index past the slots. */
    q = fresh("/c1");
    m = vigil__mq_get(q);
    m->heads[1].head = 1000;
    expect_badmsg_recv(q);

    /* A message length larger than mq_msgsize (the receive buffer holds msgsize). */
    q = fresh("/c2");
    m = vigil__mq_get(q);
    ((struct vigil__mq_slot *)(m->slots + (size_t)(m->heads[1].head - 1) * m->stride))->len = 1u << 30;
    expect_badmsg_recv(q);

    /* A free list pointing outside. */
    q = fresh("/c3");
    m = vigil__mq_get(q);
    m->h->free_head = 0xffffffffu;
    expect_badmsg_send(q);

    /* A count larger than the queue. */
    q = fresh("/c4");
    m = vigil__mq_get(q);
    m->h->curmsgs = 9;
    expect_badmsg_send(q);
    expect_badmsg_recv(q);
    struct mq_attr a;
    errno = 0;
    CHECK_EQ(vigil_mq_getattr(q, &a), -1);
    CHECK_EQ(errno, EBADMSG);

    /* The shortcut to the first message points at a slot that is not a list head. */
    q = fresh("/c5");
    m = vigil__mq_get(q);
    m->h->top_ref = m->h->free_head;
    expect_badmsg_recv(q);

    /* The shortcut names a priority past MQ_PRIO_MAX. */
    q = fresh("/c6");
    m = vigil__mq_get(q);
    m->h->top_prio = 40000;
    expect_badmsg_recv(q);

    /* The bitmap says an empty priority has messages: seen when the first list
     * empties and the next priority is looked up. */
    q = fresh("/c6b");
    m = vigil__mq_get(q);
    m->h->lvl[0] |= 1ull << 5;
    m->h->k2_valid = 0; /* else the runner-up names prio 0 without the bitmap */
    char b6[32];
    CHECK_EQ(vigil_mq_receive(q, b6, 32, NULL), 8); /* prio 1 empties; "5" is next */
    expect_badmsg_recv(q);

    /* The lock word names this very thread, which does not hold it. */
    q = fresh("/c7");
    m = vigil__mq_get(q);
    m->h->lockw = (uint32_t)gettid();
    expect_badmsg_send(q);
    expect_badmsg_recv(q);

    /* A cycle found by recovery (the lock's owner is dead): the queue stays refused. */
    q = fresh("/c8");
    m = vigil__mq_get(q);
    struct vigil__mq_slot *s = (struct vigil__mq_slot *)(m->slots + (size_t)(m->heads[0].head - 1) * m->stride);
    s->next = m->heads[0].head;
    m->h->lockw = dead_tid();
    expect_badmsg_send(q);
    expect_badmsg_recv(q);
    expect_badmsg_send(q);

    /* Recovery after a "dead owner" on a sound queue works and keeps every message. */
    q = fresh("/c9");
    m = vigil__mq_get(q);
    m->h->lockw = dead_tid();
    m->h->curmsgs = 0; /* derived state is rebuilt */
    m->h->free_head = 0;
    char buf[32];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(vigil_mq_receive(q, buf, 32, NULL), 8);
    errno = 0;
    CHECK_EQ(vigil_mq_receive(q, buf, 32, NULL), -1);
    CHECK_EQ(errno, EAGAIN);
    char why[128];
    if (vigil__mq_check(m, why, sizeof why) < 0) {
        fprintf(stderr, "after recovery: %s\n", why);
        return 1;
    }

    /* A scribbled identity is refused at open. */
    q = fresh("/c10");
    m = vigil__mq_get(q);
    m->h->msgsize = 1u << 31;
    errno = 0;
    CHECK_EQ(vigil_mq_open("/c10", O_RDWR), -1);
    CHECK_EQ(errno, EBADMSG);
    m->h->msgsize = 32;
    m->h->magic ^= 1;
    errno = 0;
    CHECK_EQ(vigil_mq_open("/c10", O_RDWR), -1);
    CHECK_EQ(errno, EBADMSG);
    return 0;
}
