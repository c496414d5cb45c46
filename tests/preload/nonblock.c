/* O_NONBLOCK at open and through mq_setattr (per descriptor), getattr's mq_flags and
 * mq_curmsgs, EAGAIN on an empty and a full queue, EINVAL for other flag bits. */
#include "pt.h"

int main(void)
{
    pt_setup();
    struct mq_attr a = {.mq_maxmsg = 2, .mq_msgsize = 8}, old;
    mqd_t q = mq_open("/nb", O_RDWR | O_CREAT | O_NONBLOCK, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil("/nb"));
    mqd_t b = mq_open("/nb", O_RDWR); /* a second, blocking descriptor of the same queue */
    CHECK(b != (mqd_t)-1);
    char buf[8];

    CHECK_ERR(mq_receive(q, buf, sizeof buf, NULL), EAGAIN);
    CHECK_EQ(mq_send(q, "1", 1, 0), 0);
    CHECK_EQ(mq_send(q, "2", 1, 0), 0);
    CHECK_ERR(mq_send(q, "3", 1, 0), EAGAIN);
    CHECK_EQ(mq_getattr(q, &a), 0);
    CHECK_EQ(a.mq_flags, O_NONBLOCK);
    CHECK_EQ(a.mq_curmsgs, 2);
    CHECK_EQ(mq_getattr(b, &a), 0);
    CHECK_EQ(a.mq_flags, 0);

    /* setattr: returns the old attributes, changes only this descriptor's flag. */
    struct mq_attr nb = {.mq_flags = 0};
    CHECK_EQ(mq_setattr(q, &nb, &old), 0);
    CHECK_EQ(old.mq_flags, O_NONBLOCK);
    CHECK_EQ(old.mq_curmsgs, 2);
    CHECK_EQ(old.mq_maxmsg, 2);
    CHECK_EQ(old.mq_msgsize, 8);
    CHECK_EQ(mq_getattr(q, &a), 0);
    CHECK_EQ(a.mq_flags, 0);
    nb.mq_flags = O_NONBLOCK;
    CHECK_EQ(mq_setattr(b, &nb, NULL), 0);
    CHECK_ERR(mq_send(b, "3", 1, 0), EAGAIN);
    CHECK_EQ(mq_receive(b, buf, sizeof buf, NULL), 1);
    CHECK_EQ(mq_receive(b, buf, sizeof buf, NULL), 1);
    CHECK_ERR(mq_receive(b, buf, sizeof buf, NULL), EAGAIN);
    nb.mq_flags = O_NONBLOCK | O_APPEND;
    CHECK_ERR(mq_setattr(b, &nb, NULL), EINVAL);
    CHECK_ERR(mq_getattr(12345, &a), EBADF); /* not a queue descriptor */
    CHECK_EQ(mq_close(q), 0);
    CHECK_EQ(mq_close(b), 0);
    CHECK_EQ(mq_unlink("/nb"), 0);
    return 0;
}
