/* O_CREAT, O_EXCL (EEXIST), missing queue (ENOENT), bad access mode and attributes
 * (EINVAL), O_CREAT on an existing queue opens it with its own attributes. */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    struct mq_attr a = {.mq_maxmsg = 5, .mq_msgsize = 64}, g;
    errno = 0;
    CHECK_EQ(vigil_mq_open("/f", O_RDWR), -1);
    CHECK_EQ(errno, ENOENT);
    mqd_t q = vigil_mq_open("/f", O_RDWR | O_CREAT | O_EXCL, 0600, &a);
    CHECK(q != (mqd_t)-1);
    errno = 0;
    CHECK_EQ(vigil_mq_open("/f", O_RDWR | O_CREAT | O_EXCL, 0600, &a), -1);
    CHECK_EQ(errno, EEXIST);
    struct mq_attr other = {.mq_maxmsg = 99, .mq_msgsize = 7};
    mqd_t q2 = vigil_mq_open("/f", O_WRONLY | O_CREAT, 0600, &other);
    CHECK(q2 != (mqd_t)-1 && q2 != q);
    CHECK_SYS(vigil_mq_getattr(q2, &g));
    CHECK_EQ(g.mq_maxmsg, 5);
    CHECK_EQ(g.mq_msgsize, 64);
    CHECK_EQ(g.mq_flags, 0);
    mqd_t q3 = vigil_mq_open("/f", O_RDONLY | O_NONBLOCK);
    CHECK(q3 != (mqd_t)-1);
    CHECK_SYS(vigil_mq_getattr(q3, &g));
    CHECK_EQ(g.mq_flags, O_NONBLOCK);
    /* The descriptors share the queue. */
    CHECK_SYS(vigil_mq_send(q2, "abc", 3, 1));
    char buf[64];
    CHECK_EQ(vigil_mq_receive(q3, buf, sizeof buf, NULL), 3);
    errno = 0;
    CHECK_EQ(vigil_mq_open("/f", O_RDWR | O_WRONLY), -1);
    CHECK_EQ(errno, EINVAL);
    /* Bad attributes at creation. */
    struct mq_attr bad[] = {{.mq_maxmsg = 0, .mq_msgsize = 8},
                            {.mq_maxmsg = 8, .mq_msgsize = 0},
                            {.mq_maxmsg = -1, .mq_msgsize = 8},
                            {.mq_maxmsg = VIGIL_MQ_MAXMSG_MAX + 1, .mq_msgsize = 8},
                            {.mq_maxmsg = 8, .mq_msgsize = VIGIL_MQ_MSGSIZE_MAX + 1},
                            {.mq_maxmsg = VIGIL_MQ_MAXMSG_MAX, .mq_msgsize = VIGIL_MQ_MSGSIZE_MAX}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        CHECK_EQ(vigil_mq_open("/g", O_RDWR | O_CREAT, 0600, &bad[i]), -1);
        CHECK_EQ(errno, EINVAL);
    }
    /* NULL attr: the kernel's defaults. */
    mqd_t d = vigil_mq_open("/g", O_RDWR | O_CREAT, 0600, NULL);
    CHECK(d != (mqd_t)-1);
    CHECK_SYS(vigil_mq_getattr(d, &g));
    CHECK_EQ(g.mq_maxmsg, 10);
    CHECK_EQ(g.mq_msgsize, 8192);
    /* A file that is not a queue. */
    char p[256];
    snprintf(p, sizeof p, "%s/vigil.mq.junk", privdir);
    int fd = open(p, O_RDWR | O_CREAT, 0600);
    CHECK_SYS(fd);
    CHECK_SYS(ftruncate(fd, 1 << 20));
    close(fd);
    errno = 0;
    CHECK_EQ(vigil_mq_open("/junk", O_RDWR), -1);
    CHECK_EQ(errno, EBADMSG);
    CHECK_SYS(vigil_mq_close(q));
    CHECK_SYS(vigil_mq_close(q2));
    CHECK_SYS(vigil_mq_close(q3));
    CHECK_SYS(vigil_mq_close(d));
    return 0;
}
