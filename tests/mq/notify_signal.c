/* SIGEV_SIGNAL: delivered with si_code SI_MESGQ, si_pid, si_uid and the value when a
 * message arrives on an empty queue; one-shot; not when the queue was not empty; EBUSY
 * for a second registration (same process or another). */
#include "mqt.h"
#include <signal.h>

static int poll_sig(siginfo_t *si)
{
    struct timespec zero = {0, 0};
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 1);
    return sigtimedwait(&set, si, &zero);
}

int main(void)
{
    mqt_setup();
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 1);
    CHECK_SYS(sigprocmask(SIG_BLOCK, &set, NULL));
    mqd_t q = mqt_create("/ns", 4, 8);
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGRTMIN + 1;
    ev.sigev_value.sival_int = 4242;
    CHECK_SYS(vigil_mq_notify(q, &ev));
    errno = 0;
    CHECK_EQ(vigil_mq_notify(q, &ev), -1);
    CHECK_EQ(errno, EBUSY);
    /* Another process may not register either. */
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0)
        _exit(vigil_mq_notify(q, &ev) == -1 && errno == EBUSY ? 0 : 1);
    CHECK_EQ(vt_child_exit(pid), 0);

    siginfo_t si;
    CHECK_EQ(poll_sig(&si), -1); /* nothing yet */
    CHECK_SYS(vigil_mq_send(q, "a", 1, 0));
    sigset_t w;
    sigemptyset(&w);
    sigaddset(&w, SIGRTMIN + 1);
    CHECK_EQ(sigwaitinfo(&w, &si), SIGRTMIN + 1);
    CHECK_EQ(si.si_code, SI_MESGQ);
    CHECK_EQ(si.si_pid, getpid());
    CHECK_EQ(si.si_uid, getuid());
    CHECK_EQ(si.si_value.sival_int, 4242);
    /* One-shot: the queue empties and fills again, no second signal. */
    char buf[8];
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    CHECK_SYS(vigil_mq_send(q, "b", 1, 0));
    CHECK_EQ(poll_sig(&si), -1);
    /* Registered on a non-empty queue: the next arrival does not fire. */
    CHECK_SYS(vigil_mq_notify(q, &ev));
    CHECK_SYS(vigil_mq_send(q, "c", 1, 0));
    CHECK_EQ(poll_sig(&si), -1);
    /* Drain: the arrival on the empty queue fires, sent by another process. */
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    pid = fork();
    CHECK_SYS(pid);
    if (pid == 0)
        _exit(vigil_mq_send(q, "d", 1, 0) == 0 ? 0 : 1);
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(sigwaitinfo(&w, &si), SIGRTMIN + 1);
    CHECK_EQ(si.si_code, SI_MESGQ);
    CHECK_EQ(si.si_pid, pid);
    /* Unregister with NULL: no signal afterwards; the queue is free for others. */
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    CHECK_SYS(vigil_mq_notify(q, &ev));
    CHECK_SYS(vigil_mq_notify(q, NULL));
    CHECK_SYS(vigil_mq_send(q, "e", 1, 0));
    CHECK_EQ(poll_sig(&si), -1);
    /* Bad requests. */
    struct sigevent bad = {0};
    bad.sigev_notify = 12345;
    errno = 0;
    CHECK_EQ(vigil_mq_notify(q, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    bad.sigev_notify = SIGEV_SIGNAL;
    bad.sigev_signo = 100000;
    errno = 0;
    CHECK_EQ(vigil_mq_notify(q, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    return 0;
}
