/* vigil_loop_free with children running: each is killed (SIGKILL), reaped, and its
 * exit callback runs once inside vigil_loop_free with term_signal SIGKILL; one that had
 * already exited (its callback not yet run) is reported with its own status. A start
 * from a callback there is refused (-ECANCELED). After it no child is left, the pids are
 * gone, and no fd stays open. */
#include "pt.h"

#define N 4

static int restart_r = 1;
static vigil_proc extra;

static void on_exit_restart(vigil_loop *l, vigil_proc *p, int status, int sig)
{
    pt_on_exit(l, p, status, sig);
    char *const argv[] = {"/bin/true", NULL};
    struct vigil_proc_options o = pt_opts(argv);
    restart_r = vigil_proc_start(l, &extra, &o, pt_on_exit);
}

int main(void)
{
    alarm(20);
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    static vigil_proc p[N + 1];
    static struct pt_exit e[N + 1];
    pid_t pids[N + 1];
    char *const sleeper[] = {"sleep", "100", NULL};
    for (int i = 0; i < N; i++) {
        struct vigil_proc_options o = pt_opts(sleeper);
        o.stdio[1].mode = VIGIL_PROC_SOCKET;
        p[i].data = &e[i];
        CHECK_EQ(vigil_proc_start(loop, &p[i], &o, i == 0 ? on_exit_restart : pt_on_exit), 0);
        pids[i] = p[i].pid;
        close(p[i].stdio_fd[1]);
    }
    /* One that has exited already, its callback not run yet (no turn since). */
    char *const quick[] = {"sh", "-c", "exit 6", NULL};
    struct vigil_proc_options o = pt_opts(quick);
    p[N].data = &e[N];
    CHECK_EQ(vigil_proc_start(loop, &p[N], &o, pt_on_exit), 0);
    pids[N] = p[N].pid;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    CHECK_SYS(waitid(P_PID, (id_t)pids[N], &si, WEXITED | WNOWAIT)); /* exited, not reaped */
    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(e[i].calls, 1);
        CHECK_EQ(e[i].sig, SIGKILL);
        CHECK_EQ(e[i].status, 0);
        CHECK_EQ(kill(pids[i], 0), -1);
        CHECK_EQ(errno, ESRCH);
    }
    CHECK_EQ(e[N].calls, 1);
    CHECK_EQ(e[N].status, 6);
    CHECK_EQ(restart_r, -ECANCELED);
    CHECK(!vigil_proc_active(&extra));
    pt_no_children();
    CHECK_EQ(vt_count_fds(), fds0);
    return 0;
}
