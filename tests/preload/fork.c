/* Descriptors survive fork: a child echoes what the parent sends over two queues, each
 * side blocking in mq_receive (the pattern of lab/mq-pingpong's kernel program). */
#include <sys/wait.h>

#include "pt.h"

#define ROUNDS 2000

int main(void)
{
    pt_setup();
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 64};
    mqd_t ping = mq_open("/ping", O_RDWR | O_CREAT, 0600, &a);
    mqd_t pong = mq_open("/pong", O_RDWR | O_CREAT, 0600, &a);
    CHECK(ping != (mqd_t)-1 && pong != (mqd_t)-1);
    CHECK(pt_is_vigil("/ping") && pt_is_vigil("/pong"));
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        char b[64];
        for (int i = 0; i < ROUNDS; i++) {
            unsigned prio;
            ssize_t n = mq_receive(ping, b, sizeof b, &prio);
            if (n < 0 || mq_send(pong, b, (size_t)n, prio) != 0)
                _exit(1);
        }
        _exit(0);
    }
    char b[64];
    for (int i = 0; i < ROUNDS; i++) {
        int len = snprintf(b, sizeof b, "round %d", i);
        CHECK_EQ(mq_send(ping, b, (size_t)len, (unsigned)i % 32), 0);
        unsigned prio;
        char r[64];
        CHECK_EQ(mq_receive(pong, r, sizeof r, &prio), len);
        CHECK(!memcmp(r, b, (size_t)len));
        CHECK_EQ(prio, (unsigned)i % 32);
    }
    int st;
    CHECK_EQ(waitpid(child, &st, 0), child);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(mq_close(ping), 0);
    CHECK_EQ(mq_close(pong), 0);
    CHECK_EQ(mq_unlink("/ping"), 0);
    CHECK_EQ(mq_unlink("/pong"), 0);
    return 0;
}
