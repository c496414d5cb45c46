/* O_NONBLOCK: EAGAIN on a full queue (send) and an empty one (receive); the flag is
 * per descriptor and mq_setattr changes only it. */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqt_create("/nb", 3, 8);
    mqd_t q = vigil_mq_open("/nb", O_RDWR | O_NONBLOCK);
    mqd_t b = vigil_mq_open("/nb", O_RDWR);
    CHECK(q != (mqd_t)-1 && b != (mqd_t)-1);
    char buf[8];
    errno = 0;
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), -1);
    CHECK_EQ(errno, EAGAIN);
    for (int i = 0; i < 3; i++)
        CHECK_SYS(vigil_mq_send(q, "m", 1, 0));
    errno = 0;
    CHECK_EQ(vigil_mq_send(q, "m", 1, 0), -1);
    CHECK_EQ(errno, EAGAIN);
    struct mq_attr a, old;
    CHECK_SYS(vigil_mq_getattr(q, &a));
    CHECK_EQ(a.mq_curmsgs, 3);
    CHECK_EQ(a.mq_flags, O_NONBLOCK);
    CHECK_SYS(vigil_mq_getattr(b, &a));
    CHECK_EQ(a.mq_flags, 0);
    /* Make b non-blocking; q's flag is its own. */
    struct mq_attr set = {.mq_flags = O_NONBLOCK};
    CHECK_SYS(vigil_mq_setattr(b, &set, &old));
    CHECK_EQ(old.mq_flags, 0);
    CHECK_EQ(old.mq_curmsgs, 3);
    errno = 0;
    CHECK_EQ(vigil_mq_send(b, "m", 1, 0), -1);
    CHECK_EQ(errno, EAGAIN);
    set.mq_flags = 0;
    CHECK_SYS(vigil_mq_setattr(q, &set, NULL));
    CHECK_SYS(vigil_mq_getattr(q, &a));
    CHECK_EQ(a.mq_flags, 0);
    set.mq_flags = O_NONBLOCK | O_APPEND;
    errno = 0;
    CHECK_EQ(vigil_mq_setattr(q, &set, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_mq_receive(b, buf, 8, NULL), 1);
    errno = 0;
    CHECK_EQ(vigil_mq_receive(b, buf, 8, NULL), -1);
    CHECK_EQ(errno, EAGAIN);
    return 0;
}
