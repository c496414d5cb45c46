/* No notification when a receiver is blocked on the queue: the message goes to that
 * receiver (the kernel's rule, and vigil's pipelined send). */
#include "mqt.h"
#include "mq/mq_int.h"
#include <pthread.h>
#include <signal.h>

static mqd_t q;

static void *recv_one(void *arg)
{
    char buf[8];
    (void)arg;
    if (vigil_mq_receive(q, buf, 8, NULL) != 1)
        abort();
    return NULL;
}

static int waiter_recorded(struct vigil__mq *m)
{
    for (unsigned i = 0; i < VIGIL__MQ_NREC; i++)
        if (atomic_load_explicit(&m->recs[i].state, memory_order_acquire) == VIGIL__REC_WAITING)
            return 1;
    return 0;
}

int main(void)
{
    mqt_setup();
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    CHECK_SYS(sigprocmask(SIG_BLOCK, &set, NULL));
    q = mqt_create("/nw", 4, 8);
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR2;
    CHECK_SYS(vigil_mq_notify(q, &ev));
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, recv_one, NULL), 0);
    /* Wait until the receiver holds a waiter record (a condition, not a delay). Its
     * state word is the one field of a record read without the lock (lock.c, LOCKING);
     * nrec_busy is guarded by the lock, so reading it here would be a data race. */
    struct vigil__mq *m = vigil__mq_get(q);
    while (!waiter_recorded(m))
        usleep(1000);
    CHECK_SYS(vigil_mq_send(q, "a", 1, 0));
    pthread_join(t, NULL);
    struct timespec zero = {0, 0};
    siginfo_t si;
    CHECK_EQ(sigtimedwait(&set, &si, &zero), -1);
    /* Still registered: the next arrival on the empty queue fires. */
    CHECK_SYS(vigil_mq_send(q, "b", 1, 0));
    CHECK_EQ(sigwaitinfo(&set, &si), SIGUSR2);
    CHECK_EQ(si.si_code, SI_MESGQ);
    return 0;
}
