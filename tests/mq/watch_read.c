/* An mq watcher calls back when a message arrives, sent by another process; on io_uring
 * with futex waits (Linux 6.7+) it needs no helper thread, elsewhere it uses one.
 * Level-triggered: a callback that leaves messages queued runs again next turn. */
#include "mqt.h"

static mqd_t q;
static int calls, got;

static void on_msg(vigil_loop *loop, vigil_mq_watch *w, int revents)
{
    CHECK(revents > 0);
    CHECK(revents & VIGIL_READ);
    CHECK(!(revents & VIGIL_WRITE));
    calls++;
    /* Take one message per callback: the rest must come back in later turns. */
    char buf[16];
    ssize_t n = vigil_mq_receive(q, buf, sizeof buf, NULL);
    CHECK_EQ(n, 1);
    if (++got == 6) {
        vigil_mq_watch_stop(loop, w);
        vigil_loop_stop(loop);
    }
}

/* Three messages, then three more once the parent has taken the first. */
static int sender(void)
{
    mqd_t s = vigil_mq_open("/w", O_WRONLY);
    for (int i = 0; i < 6; i++) {
        if (vigil_mq_send(s, "m", 1, 0) != 0)
            return 1;
        if (i == 2) {
            /* Wait until the parent drained (a condition, not a delay). */
            struct mq_attr a;
            do {
                usleep(1000);
                vigil_mq_getattr(s, &a);
            } while (a.mq_curmsgs > 0);
        }
    }
    return 0;
}

int main(void)
{
    mqt_setup();
    q = mqt_create("/w", 8, 16);
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = O_NONBLOCK}, NULL));
    vigil_loop *loop = vt_loop();
    vigil_mq_watch w = {0};
    CHECK_EQ(vigil_mq_watch_start(loop, &w, q, VIGIL_READ, on_msg), 0);
    CHECK_EQ(vigil_mq_watch_start(loop, &w, q, VIGIL_READ, on_msg), -EBUSY);
    CHECK(vigil_mq_watch_active(&w));
    const char *b = vigil_loop_backend(loop);
    printf("backend %s, %s\n", b, vigil_mq_watch_threaded(&w) ? "helper thread" : "no thread");
    if (strcmp(b, "uring") != 0)
        CHECK(vigil_mq_watch_threaded(&w));
    /* Nothing queued: a non-blocking turn dispatches nothing. */
    CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK_EQ(calls, 0);
    pid_t pid = vt_spawn(sender);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(got, 6);
    CHECK_EQ(calls, 6);
    CHECK(!vigil_mq_watch_active(&w));
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
