/* mq_timedreceive on an empty queue and mq_timedsend on a full one give up at their
 * deadline with ETIMEDOUT (not before it); a deadline already past gives up at once; a
 * bad timespec where the call would block is EINVAL; a message that arrives in time is
 * taken. */
#include <pthread.h>

#include "pt.h"

static mqd_t q;

static void *late_sender(void *arg)
{
    (void)arg;
    usleep(50000);
    CHECK_EQ(mq_send(q, "late", 4, 7), 0);
    return NULL;
}

int main(void)
{
    pt_setup();
    struct mq_attr a = {.mq_maxmsg = 1, .mq_msgsize = 8};
    q = mq_open("/to", O_RDWR | O_CREAT, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil("/to"));
    char buf[8];
    unsigned prio;

    double t0 = pt_now_s();
    struct timespec dl = pt_in_ms(100);
    CHECK_ERR(mq_timedreceive(q, buf, sizeof buf, NULL, &dl), ETIMEDOUT);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    CHECK(now.tv_sec > dl.tv_sec || (now.tv_sec == dl.tv_sec && now.tv_nsec >= dl.tv_nsec));
    CHECK(pt_now_s() - t0 < 30); /* gave up, did not hang */

    struct timespec past = {.tv_sec = 1, .tv_nsec = 0};
    CHECK_ERR(mq_timedreceive(q, buf, sizeof buf, NULL, &past), ETIMEDOUT);
    struct timespec bad = {.tv_sec = 0, .tv_nsec = 1000000000L};
    CHECK_ERR(mq_timedreceive(q, buf, sizeof buf, NULL, &bad), EINVAL);

    CHECK_EQ(mq_send(q, "full", 4, 0), 0);
    dl = pt_in_ms(100);
    CHECK_ERR(mq_timedsend(q, "more", 4, 0, &dl), ETIMEDOUT);
    clock_gettime(CLOCK_REALTIME, &now);
    CHECK(now.tv_sec > dl.tv_sec || (now.tv_sec == dl.tv_sec && now.tv_nsec >= dl.tv_nsec));
    CHECK_ERR(mq_timedsend(q, "more", 4, 0, &past), ETIMEDOUT);
    CHECK_ERR(mq_timedsend(q, "more", 4, 0, &bad), EINVAL);
    CHECK_EQ(mq_receive(q, buf, sizeof buf, NULL), 4);

    /* In time: a thread sends 50 ms into a 10 s wait. */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, late_sender, NULL), 0);
    dl = pt_in_ms(10000);
    CHECK_EQ(mq_timedreceive(q, buf, sizeof buf, &prio, &dl), 4);
    CHECK(!memcmp(buf, "late", 4));
    CHECK_EQ(prio, 7);
    CHECK_EQ(pthread_join(t, NULL), 0);
    dl = pt_in_ms(1000);
    CHECK_EQ(mq_timedsend(q, "ok", 2, 1, &dl), 0);
    CHECK_EQ(mq_timedreceive(q, buf, sizeof buf, &prio, &dl), 2);
    CHECK_EQ(mq_close(q), 0);
    CHECK_EQ(mq_unlink("/to"), 0);
    return 0;
}
