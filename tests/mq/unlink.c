/* Unlink removes the name; open descriptors keep working; a new queue of the same
 * name is a different queue. */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/u", 4, 8);
    CHECK_SYS(vigil_mq_send(q, "old", 3, 0));
    CHECK_SYS(vigil_mq_unlink("/u"));
    errno = 0;
    CHECK_EQ(vigil_mq_open("/u", O_RDWR), -1);
    CHECK_EQ(errno, ENOENT);
    errno = 0;
    CHECK_EQ(vigil_mq_unlink("/u"), -1);
    CHECK_EQ(errno, ENOENT);
    char buf[8];
    CHECK_SYS(vigil_mq_send(q, "two", 3, 0));
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 3);
    CHECK(!memcmp(buf, "old", 3));
    mqd_t n = mqt_create("/u", 4, 8);
    struct mq_attr a;
    CHECK_SYS(vigil_mq_getattr(n, &a));
    CHECK_EQ(a.mq_curmsgs, 0);
    CHECK_SYS(vigil_mq_getattr(q, &a));
    CHECK_EQ(a.mq_curmsgs, 1);
    CHECK_SYS(vigil_mq_close(q));
    CHECK_SYS(vigil_mq_close(n));
    CHECK_SYS(vigil_mq_unlink("/u"));
    return 0;
}
