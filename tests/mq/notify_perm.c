/* A sender that may not signal the registered process (another user, unprivileged):
 * the send succeeds, the notification is dropped and the registration removed, as
 * vigil/mq.h documents. Needs root to make the other user (skips otherwise). */
#include "mqt.h"
#include <signal.h>

int main(void)
{
    mqt_setup();
    if (geteuid() != 0)
        vt_skip("needs root to run a sender as another user");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK_SYS(sigprocmask(SIG_BLOCK, &set, NULL));
    mqd_t q = mqt_create_mode("/perm", 4, 8, 0666);
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    CHECK_SYS(vigil_mq_notify(q, &ev)); /* registered: root's process */
    pid_t pid = mqt_fork_unprivileged();
    if (pid == 0) {
        mqd_t s = vigil_mq_open("/perm", O_WRONLY);
        if (s == (mqd_t)-1)
            _exit(2);
        _exit(vigil_mq_send(s, "x", 1, 0) == 0 ? 0 : 3);
    }
    CHECK_EQ(mqt_wait_unprivileged(pid), 0);
    /* The message is there, no signal came, and the registration is gone. */
    struct mq_attr g;
    CHECK_SYS(vigil_mq_getattr(q, &g));
    CHECK_EQ(g.mq_curmsgs, 1);
    struct timespec zero = {0, 0};
    siginfo_t si;
    CHECK_EQ(sigtimedwait(&set, &si, &zero), -1);
    CHECK_SYS(vigil_mq_notify(q, &ev)); /* not EBUSY: free again */
    return 0;
}
