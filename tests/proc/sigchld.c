/* The program's own SIGCHLD handler and waitpid keep working next to vigil: with an
 * own handler installed (vigil installs none: the disposition is the program's before
 * and after), vigil's children are reported to vigil, the program's fork()ed child is
 * reaped by its own waitpid(pid) with its status (vigil never took it), and its handler
 * runs. */
#include "pt.h"

static volatile sig_atomic_t chld;

static void on_chld(int sig)
{
    (void)sig;
    chld++;
}

static int exit7(void)
{
    return 7;
}

int main(void)
{
    alarm(20);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sa.sa_flags = SA_RESTART;
    CHECK_SYS(sigaction(SIGCHLD, &sa, NULL));
    vigil_loop *loop = vt_loop();
    static vigil_proc p[4];
    static struct pt_exit e[4];
    char *const argv[] = {"sh", "-c", "exit 4", NULL};

    /* Ordinary children next to one of the program's own. */
    pid_t own = vt_spawn(exit7);
    for (int i = 0; i < 4; i++) {
        struct vigil_proc_options o = pt_opts(argv);
        p[i].data = &e[i];
        CHECK_EQ(vigil_proc_start(loop, &p[i], &o, pt_on_exit), 0);
    }
    CHECK_EQ(vt_child_exit(own), 7);
    /* Its SIGCHLD was sent before the wait returned, and handled on the way out of it. */
    CHECK(chld >= 1);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(e[i].calls, 1);
        CHECK_EQ(e[i].status, 4);
    }
    struct sigaction now;
    CHECK_SYS(sigaction(SIGCHLD, NULL, &now));
    CHECK(now.sa_handler == on_chld);
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
