/* Send and receive a few messages; the queue's invariants hold afterwards. */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/smoke", 8, 32);
    char buf[32];
    unsigned prio;
    CHECK_SYS(vigil_mq_send(q, "hello", 5, 3));
    CHECK_SYS(vigil_mq_send(q, "world", 5, 7));
    CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, &prio), 5);
    CHECK(!memcmp(buf, "world", 5));
    CHECK_EQ(prio, 7);
    CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, &prio), 5);
    CHECK(!memcmp(buf, "hello", 5));
    CHECK_EQ(prio, 3);
    struct mq_attr a;
    CHECK_SYS(vigil_mq_getattr(q, &a));
    CHECK_EQ(a.mq_curmsgs, 0);
    CHECK_EQ(a.mq_maxmsg, 8);
    CHECK_EQ(a.mq_msgsize, 32);
    CHECK_SYS(vigil_mq_close(q));
    CHECK_SYS(vigil_mq_unlink("/smoke"));
    return 0;
}
