/* EBADF: an invalid, a closed and a wrong-mode descriptor. */
#include "mqt.h"

#define EXPECT_EBADF(call)                \
    do {                                  \
        errno = 0;                        \
        CHECK_EQ((call), -1);             \
        CHECK_EQ(errno, EBADF);           \
    } while (0)

int main(void)
{
    mqt_setup();
    mqt_create("/bad", 2, 8);
    mqd_t ro = vigil_mq_open("/bad", O_RDONLY), wo = vigil_mq_open("/bad", O_WRONLY);
    CHECK(ro != (mqd_t)-1 && wo != (mqd_t)-1);
    char buf[8];
    struct mq_attr a;
    EXPECT_EBADF(vigil_mq_send(ro, "x", 1, 0));
    EXPECT_EBADF(vigil_mq_receive(wo, buf, 8, NULL));
    CHECK_SYS(vigil_mq_send(wo, "x", 1, 0));
    CHECK_EQ(vigil_mq_receive(ro, buf, 8, NULL), 1);
    mqd_t bad[] = {(mqd_t)-1, (mqd_t)VIGIL_MQ_OPEN_MAX, (mqd_t)1000000, (mqd_t)-12345};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_EBADF(vigil_mq_send(bad[i], "x", 1, 0));
        EXPECT_EBADF(vigil_mq_receive(bad[i], buf, 8, NULL));
        EXPECT_EBADF(vigil_mq_getattr(bad[i], &a));
        EXPECT_EBADF(vigil_mq_setattr(bad[i], &a, NULL));
        EXPECT_EBADF(vigil_mq_notify(bad[i], NULL));
        EXPECT_EBADF(vigil_mq_close(bad[i]));
    }
    CHECK_SYS(vigil_mq_close(ro));
    EXPECT_EBADF(vigil_mq_receive(ro, buf, 8, NULL));
    EXPECT_EBADF(vigil_mq_getattr(ro, &a));
    EXPECT_EBADF(vigil_mq_close(ro));
    CHECK_SYS(vigil_mq_close(wo));
    EXPECT_EBADF(vigil_mq_send(wo, "x", 1, 0));
    return 0;
}
