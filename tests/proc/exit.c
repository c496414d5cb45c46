/* Children that exit with codes 0, 1, 42 and 255, one that crashes (SIGSEGV), one that
 * aborts (SIGABRT), and one the parent kills through the API: each exit callback runs
 * exactly once with the code or the signal, the loop stays alive while a child runs
 * (RUN_DEFAULT returns only after the last callback), and nothing is left: no zombie,
 * no fd. */
#include "pt.h"

#define N 7

int main(void)
{
    alarm(20);
    /* The crashing children leave no core file (RLIMIT_CORE is inherited). */
    struct rlimit nocore = {0, 0};
    CHECK_SYS(setrlimit(RLIMIT_CORE, &nocore));
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    static vigil_proc p[N];
    static struct pt_exit e[N];
    char *const argv[N][4] = {
        {"sh", "-c", "exit 0", NULL},          {"sh", "-c", "exit 1", NULL},
        {"sh", "-c", "exit 42", NULL},         {"sh", "-c", "exit 255", NULL},
        {"sh", "-c", "kill -SEGV $$", NULL},   {"sh", "-c", "kill -ABRT $$; exit 3", NULL},
        {"sleep", "100", NULL, NULL},
    };
    for (int i = 0; i < N; i++) {
        struct vigil_proc_options o = pt_opts(argv[i]);
        p[i].data = &e[i];
        CHECK_EQ(vigil_proc_start(loop, &p[i], &o, pt_on_exit), 0);
        CHECK(p[i].pid > 0);
        CHECK(vigil_proc_pidfd(&p[i]) >= 0);
        CHECK_EQ(vigil_proc_active(&p[i]), 1);
        /* A second start of an active one is refused. */
        CHECK_EQ(vigil_proc_start(loop, &p[i], &o, pt_on_exit), -EBUSY);
    }
    CHECK_EQ(vigil_proc_kill(loop, &p[6], 0), 0);
    CHECK_EQ(vigil_proc_kill(loop, &p[6], 65), -EINVAL);
    CHECK_EQ(vigil_proc_kill(loop, &p[6], -1), -EINVAL);
    CHECK_EQ(vigil_proc_kill(loop, &p[6], SIGTERM), 0);
    /* Every child keeps RUN_DEFAULT going until its callback has run. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    static const int want_status[N] = {0, 1, 42, 255, 0, 0, 0};
    static const int want_sig[N] = {0, 0, 0, 0, SIGSEGV, SIGABRT, SIGTERM};
    for (int i = 0; i < N; i++) {
        CHECK_EQ(e[i].calls, 1);
        CHECK_EQ(e[i].status, want_status[i]);
        CHECK_EQ(e[i].sig, want_sig[i]);
        CHECK_EQ(vigil_proc_kill(loop, &p[i], SIGTERM), -ESRCH);
    }
    /* A struct whose callback ran can be started again. */
    e[0].calls = 0;
    struct vigil_proc_options o = pt_opts(argv[2]);
    CHECK_EQ(vigil_proc_start(loop, &p[0], &o, pt_on_exit), 0);
    pt_run_until(loop, &e[0].calls);
    CHECK_EQ(e[0].status, 42);
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vt_count_fds(), fds0);
    return 0;
}
