/* The program's own waitpid(-1) reaps a child vigil started: the exit callback still
 * runs, once, with -ECHILD. SIGCHLD set to SIG_IGN (the kernel reaps): the same. */
#include "pt.h"

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    static vigil_proc p;
    static struct pt_exit e;
    char *const argv[] = {"sh", "-c", "exit 9", NULL};
    struct vigil_proc_options o = pt_opts(argv);
    p.data = &e;

    /* waitpid(-1) first */
    CHECK_EQ(vigil_proc_start(loop, &p, &o, pt_on_exit), 0);
    pid_t pid = p.pid;
    int st;
    CHECK_EQ(waitpid(-1, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(e.calls, 1);
    CHECK_EQ(e.status, -ECHILD);
    CHECK_EQ(e.sig, 0);
    for (int i = 0; i < 3; i++) /* and never again */
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(e.calls, 1);

    /* SIGCHLD ignored: the kernel reaps at exit */
    memset(&e, 0, sizeof e);
    signal(SIGCHLD, SIG_IGN);
    CHECK_EQ(vigil_proc_start(loop, &p, &o, pt_on_exit), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(e.calls, 1);
    CHECK_EQ(e.status, -ECHILD);

    signal(SIGCHLD, SIG_DFL);
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
