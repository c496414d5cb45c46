/* VIGIL_WRITE: the watcher calls back when a full queue gets room (another process
 * receives); bad arguments are refused; stopping from the callback is safe. */
#include "mqt.h"

static mqd_t q;
static int sent;

static void on_room(vigil_loop *loop, vigil_mq_watch *w, int revents)
{
    CHECK(revents > 0);
    CHECK_EQ(revents, VIGIL_WRITE);
    CHECK_SYS(vigil_mq_send(q, "r", 1, 0));
    if (++sent == 5) {
        CHECK_EQ(vigil_mq_watch_stop(loop, w), 0);
        CHECK_EQ(vigil_mq_watch_stop(loop, w), 0);
    }
}

/* Takes seven messages: the two queued and five the watcher sends. */
static int receiver(void)
{
    mqd_t r = vigil_mq_open("/room", O_RDONLY);
    char buf[8];
    for (int i = 0; i < 7; i++)
        if (vigil_mq_receive(r, buf, 8, NULL) != 1)
            return 1;
    return 0;
}

int main(void)
{
    mqt_setup();
    q = mqt_create("/room", 2, 8);
    CHECK_SYS(vigil_mq_send(q, "a", 1, 0));
    CHECK_SYS(vigil_mq_send(q, "b", 1, 0));
    vigil_loop *loop = vt_loop();
    vigil_mq_watch w = {0};
    CHECK_EQ(vigil_mq_watch_start(loop, &w, q, 0, on_room), -EINVAL);
    CHECK_EQ(vigil_mq_watch_start(loop, &w, q, 0x100, on_room), -EINVAL);
    CHECK_EQ(vigil_mq_watch_start(loop, &w, q, VIGIL_WRITE, NULL), -EINVAL);
    CHECK_EQ(vigil_mq_watch_start(loop, &w, (mqd_t)-1, VIGIL_WRITE, on_room), -EBADF);
    CHECK_EQ(vigil_mq_watch_start(loop, &w, q, VIGIL_WRITE, on_room), 0);
    /* Full: nothing to do yet. */
    CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK_EQ(sent, 0);
    pid_t pid = vt_spawn(receiver);
    /* Runs until the watcher stops itself after 5 sends (the loop then has nothing). */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(sent, 5);
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
