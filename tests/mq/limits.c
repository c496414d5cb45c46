/* Limits come from struct mq_attr alone: a queue far deeper than the kernel's msg_max
 * (10) and messages larger than its msgsize_max (8192) need no privilege; the library
 * maxima hold; at most VIGIL_MQ_OPEN_MAX descriptors (EMFILE). */
#include "mqt.h"

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/deep", 100000, 16);
    char buf[16] = {0};
    for (int i = 0; i < 100000; i++)
        CHECK_SYS(vigil_mq_send(q, buf, 16, (unsigned)i % 7));
    struct mq_attr a;
    CHECK_SYS(vigil_mq_getattr(q, &a));
    CHECK_EQ(a.mq_curmsgs, 100000);
    CHECK_SYS(vigil_mq_close(q));
    CHECK_SYS(vigil_mq_unlink("/deep"));

    mqd_t big = mqt_create("/big", 2, 1 << 20);
    char *m = calloc(1, 1 << 20);
    CHECK(m);
    m[(1 << 20) - 1] = 'z';
    CHECK_SYS(vigil_mq_send(big, m, 1 << 20, 0));
    memset(m, 0, 1 << 20);
    CHECK_EQ(vigil_mq_receive(big, m, 1 << 20, NULL), 1 << 20);
    CHECK_EQ(m[(1 << 20) - 1], 'z');
    free(m);
    CHECK_SYS(vigil_mq_close(big));

    /* The descriptor table. */
    static mqd_t d[VIGIL_MQ_OPEN_MAX];
    mqt_create("/many", 1, 1);
    int n = 0;
    for (; n < VIGIL_MQ_OPEN_MAX; n++) {
        d[n] = vigil_mq_open("/many", O_RDWR);
        if (d[n] == (mqd_t)-1)
            break;
    }
    CHECK(n >= VIGIL_MQ_OPEN_MAX - 1);
    errno = 0;
    CHECK_EQ(vigil_mq_open("/many", O_RDWR), -1);
    CHECK_EQ(errno, EMFILE);
    for (int i = 0; i < n; i++)
        CHECK_SYS(vigil_mq_close(d[i]));
    return 0;
}
