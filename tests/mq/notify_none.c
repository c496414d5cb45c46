/* SIGEV_NONE: registers (others get EBUSY), delivers nothing, and is removed when it
 * would have fired; closing a descriptor removes the process's registration. */
#include "mqt.h"
#include <sys/wait.h>

static int child_register(mqd_t q)
{
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        struct sigevent ev = {0};
        ev.sigev_notify = SIGEV_NONE;
        if (vigil_mq_notify(q, &ev) == 0)
            _exit(0);
        _exit(errno == EBUSY ? 1 : 2);
    }
    int st;
    CHECK_SYS(waitpid(pid, &st, 0));
    CHECK(WIFEXITED(st));
    return WEXITSTATUS(st);
}

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/nn", 4, 8);
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_NONE;
    CHECK_SYS(vigil_mq_notify(q, &ev));
    CHECK_EQ(child_register(q), 1); /* EBUSY */
    CHECK_SYS(vigil_mq_send(q, "a", 1, 0));
    /* Fired (silently) and removed: another process may register now. */
    CHECK_EQ(child_register(q), 0);
    /* That child exited while registered: its registration does not block us. */
    CHECK_SYS(vigil_mq_notify(q, &ev));
    /* Closing any of our descriptors of the queue removes our registration. */
    mqd_t q2 = vigil_mq_open("/nn", O_RDWR);
    CHECK(q2 != (mqd_t)-1);
    CHECK_SYS(vigil_mq_close(q2));
    CHECK_SYS(vigil_mq_notify(q, &ev));
    return 0;
}
