/* Descriptors stay valid in a child after fork: both processes use the same queue,
 * blocking on each other (cross-process futex waits and hand-off). */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqd_t a = mqt_create("/ping", 2, 16), b = mqt_create("/pong", 2, 16);
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        char buf[16];
        for (int i = 0; i < 2000; i++) {
            unsigned prio;
            if (vigil_mq_receive(a, buf, 16, &prio) != 4 || prio != 3)
                _exit(1);
            if (vigil_mq_send(b, buf, 4, 5) != 0)
                _exit(2);
        }
        _exit(0);
    }
    char buf[16];
    for (int i = 0; i < 2000; i++) {
        CHECK_SYS(vigil_mq_send(a, (char *)&i, 4, 3));
        unsigned prio;
        CHECK_EQ(vigil_mq_receive(b, buf, 16, &prio), 4);
        int got;
        memcpy(&got, buf, 4);
        CHECK_EQ(got, i);
        CHECK_EQ(prio, 5);
    }
    CHECK_EQ(vt_child_exit(pid), 0);
    return 0;
}
