/* A sender that may not signal the registered process (another user, unprivileged):
 * the send succeeds, the notification is dropped and the registration removed, as
 * vigil/mq.h documents. Needs root to make the other user (skips otherwise). */
#include "mqt.h"
#include <signal.h>
#include <sys/wait.h>

int main(void)
{
    mqt_setup();
    if (geteuid() != 0)
        vt_skip("needs root to run a sender as another user");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK_SYS(sigprocmask(SIG_BLOCK, &set, NULL));
    CHECK_SYS(chmod(mqt_dir, 0711));
    mode_t old = umask(0);
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 8};
    mqd_t q = vigil_mq_open("/perm", O_RDWR | O_CREAT | O_EXCL, 0666, &a);
    umask(old);
    CHECK(q != (mqd_t)-1);
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    CHECK_SYS(vigil_mq_notify(q, &ev)); /* registered: root's process */
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
            _exit(77);
        mqd_t s = vigil_mq_open("/perm", O_WRONLY);
        if (s == (mqd_t)-1)
            _exit(2);
        _exit(vigil_mq_send(s, "x", 1, 0) == 0 ? 0 : 3);
    }
    int st;
    CHECK_SYS(waitpid(pid, &st, 0));
    CHECK(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77)
        vt_skip("cannot drop to uid 65534 here (setresuid refused)");
    CHECK_EQ(WEXITSTATUS(st), 0);
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
