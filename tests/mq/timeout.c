/* Absolute CLOCK_REALTIME timeouts: ETIMEDOUT when the queue stays empty/full past the
 * deadline; a bad timespec is EINVAL whether or not the call would block, as the
 * kernel's queues answer (POSIX's text asks it only of a call that blocks). */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/to", 1, 8);
    char buf[8];
    struct timespec past = mqt_in(-1000000), bad = {.tv_sec = 1, .tv_nsec = 1000000000L},
                    neg = {.tv_sec = -1, .tv_nsec = 0};
    errno = 0;
    CHECK_EQ(vigil_mq_timedreceive(q, buf, 8, NULL, &past), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    errno = 0;
    CHECK_EQ(vigil_mq_timedreceive(q, buf, 8, NULL, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    errno = 0;
    CHECK_EQ(vigil_mq_timedreceive(q, buf, 8, NULL, &neg), -1);
    CHECK_EQ(errno, EINVAL);
    /* Room: the bad timespec is still EINVAL (the kernel checks it first), and nothing
     * is sent. */
    errno = 0;
    CHECK_EQ(vigil_mq_timedsend(q, "a", 1, 0, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_SYS(vigil_mq_timedsend(q, "a", 1, 0, NULL));
    errno = 0;
    CHECK_EQ(vigil_mq_timedsend(q, "b", 1, 0, &past), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    errno = 0;
    CHECK_EQ(vigil_mq_timedsend(q, "b", 1, 0, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    /* A message waiting: EINVAL all the same, and the message stays. */
    errno = 0;
    CHECK_EQ(vigil_mq_timedreceive(q, buf, 8, NULL, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(vigil_mq_timedreceive(q, buf, 8, NULL, NULL), 1);
    /* A real wait: returns ETIMEDOUT, and not before the deadline. */
    struct timespec soon = mqt_in(30 * 1000000LL), after;
    errno = 0;
    CHECK_EQ(vigil_mq_timedreceive(q, buf, 8, NULL, &soon), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    clock_gettime(CLOCK_REALTIME, &after);
    CHECK(after.tv_sec > soon.tv_sec || (after.tv_sec == soon.tv_sec && after.tv_nsec >= soon.tv_nsec));
    /* The waiter record was given back: the queue is consistent and usable. */
    CHECK_SYS(vigil_mq_send(q, "c", 1, 0));
    soon = mqt_in(30 * 1000000LL);
    errno = 0;
    CHECK_EQ(vigil_mq_timedsend(q, "d", 1, 0, &soon), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    CHECK_EQ(buf[0], 'c');
    return 0;
}
