/* A message handed straight to a blocked receiver (pipelined send) is not lost when that
 * receiver dies before taking it: the receiver is stopped (SIGSTOP) while blocked, gets
 * the hand-off, is killed, and the message comes out of the next receive. A blocked
 * receiver killed before any send leaves no trace either. */
#include "mqt.h"
#include "mq/mq_int.h"
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

static pid_t blocked_child(mqd_t q, struct vigil__mq *m)
{
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        char buf[16];
        vigil_mq_receive(q, buf, sizeof buf, NULL);
        _exit(3); /* never reached in this test */
    }
    /* Until the child sleeps in the kernel on its record (a condition, not a delay). */
    for (;;) {
        for (unsigned i = 0; i < VIGIL__MQ_NREC; i++)
            if (__atomic_load_n(&m->recs[i].owner_tid, __ATOMIC_RELAXED) == (uint32_t)pid &&
                atomic_load_explicit(&m->recs[i].sleeping, memory_order_relaxed))
                return pid;
        usleep(1000);
    }
}

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/dead", 4, 16);
    struct vigil__mq *m = vigil__mq_get(q);
    char buf[16], why[160];
    unsigned prio;

    pid_t pid = blocked_child(q, m);
    CHECK_SYS(kill(pid, SIGSTOP));
    int st;
    CHECK_SYS(waitpid(pid, &st, WUNTRACED));
    CHECK_SYS(vigil_mq_send(q, "handed", 6, 7)); /* alive (stopped): handed to it */
    CHECK_EQ(vigil_mq_getattr(q, &(struct mq_attr){0}), 0);
    CHECK_EQ(vigil__mq_curmsgs(m), 0);
    CHECK_SYS(kill(pid, SIGKILL));
    CHECK_SYS(waitpid(pid, &st, 0));
    CHECK(WIFSIGNALED(st));
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = O_NONBLOCK}, NULL));
    CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, &prio), 6);
    CHECK(!memcmp(buf, "handed", 6));
    CHECK_EQ(prio, 7);
    if (vigil__mq_check(m, why, sizeof why) < 0) {
        fprintf(stderr, "invariant: %s\n", why);
        return 1;
    }

    /* Killed while blocked, before any send: the next send is queued, not handed to
     * the dead receiver's record. */
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = 0}, NULL));
    pid = blocked_child(q, m);
    CHECK_SYS(kill(pid, SIGKILL));
    CHECK_SYS(waitpid(pid, &st, 0));
    CHECK_SYS(vigil_mq_send(q, "queued", 6, 1));
    CHECK_EQ(vigil__mq_curmsgs(m), 1);
    CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, &prio), 6);
    CHECK(!memcmp(buf, "queued", 6));
    if (vigil__mq_check(m, why, sizeof why) < 0) {
        fprintf(stderr, "invariant: %s\n", why);
        return 1;
    }
    return 0;
}
