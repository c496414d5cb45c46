/* EMSGSIZE both ways: a send longer than mq_msgsize, a receive buffer shorter than
 * mq_msgsize (even when the waiting message would fit). Zero-length messages work. */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/size", 4, 100);
    char big[101] = {0}, buf[100];
    errno = 0;
    CHECK_EQ(vigil_mq_send(q, big, 101, 0), -1);
    CHECK_EQ(errno, EMSGSIZE);
    CHECK_SYS(vigil_mq_send(q, big, 100, 0));
    CHECK_SYS(vigil_mq_send(q, "x", 1, 0));
    CHECK_SYS(vigil_mq_send(q, "", 0, 0));
    CHECK_EQ(vigil_mq_receive(q, buf, 100, NULL), 100);
    errno = 0;
    CHECK_EQ(vigil_mq_receive(q, buf, 99, NULL), -1);
    CHECK_EQ(errno, EMSGSIZE);
    CHECK_EQ(vigil_mq_receive(q, buf, 100, NULL), 1);
    CHECK_EQ(buf[0], 'x');
    CHECK_EQ(vigil_mq_receive(q, buf, 100, NULL), 0);
    CHECK_SYS(vigil_mq_close(q));
    return 0;
}
