/* A signal watcher runs as an ordinary callback in the loop thread; several watchers
 * may watch one signal; a stopped one hears nothing. */
#include "vt.h"

#include <signal.h>
#include <unistd.h>

static int n1, n2;
static void cb1(vigil_loop *l, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)l;
    CHECK_EQ(si->ssi_signo, SIGUSR1);
    CHECK(w->data == &n1); /* the watcher of SIGUSR1 */
    CHECK_EQ(si->ssi_pid, getpid());
    n1++;
}
static void cb2(vigil_loop *l, vigil_signal *w, const struct signalfd_siginfo *si) { (void)l; (void)w; CHECK_EQ(si->ssi_signo, SIGUSR1); n2++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_signal a = {.data = &n1}, b = {0}, bad = {0};
    CHECK_EQ(vigil_signal_start(loop, &bad, SIGKILL, cb1), -EINVAL);
    CHECK_EQ(vigil_signal_start(loop, &bad, 0, cb1), -EINVAL);
    CHECK_EQ(vigil_signal_start(loop, &bad, 1000, cb1), -EINVAL);
    CHECK_EQ(vigil_signal_start(loop, &bad, SIGUSR1, NULL), -EINVAL);
    CHECK(!vigil_signal_active(&bad));

    CHECK_EQ(vigil_signal_start(loop, &a, SIGUSR1, cb1), 0);
    CHECK_EQ(vigil_signal_start(loop, &a, SIGUSR1, cb1), -EBUSY);
    CHECK_EQ(vigil_signal_start(loop, &b, SIGUSR1, cb2), 0);
    CHECK(vigil_signal_active(&a) && vigil_signal_active(&b));
    CHECK_SYS(kill(getpid(), SIGUSR1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(n1, 1);
    CHECK_EQ(n2, 1);

    CHECK_EQ(vigil_signal_stop(loop, &b), 0);
    CHECK(vigil_signal_active(&a) && !vigil_signal_active(&b));
    CHECK_EQ(vigil_signal_stop(loop, &b), 0); /* stopping a stopped watcher is 0 */
    CHECK_SYS(kill(getpid(), SIGUSR1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(n1, 2);
    CHECK_EQ(n2, 1);
    CHECK_EQ(vigil_signal_stop(loop, &a), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
