/* mq_getattr from one thread while others send and receive: the count it reads without
 * the lock (a snapshot, as the kernel's) is always within 0..maxmsg, and the snapshot
 * is no data race (the ThreadSanitizer build runs this test). */
#include "mqt.h"
#include <pthread.h>
#include <stdatomic.h>

#define ROUNDS 20000

static mqd_t q;
static atomic_int done;

static void *traffic(void *arg)
{
    (void)arg;
    char buf[16];
    for (int i = 0; i < ROUNDS; i++) {
        if (vigil_mq_send(q, "abcd", 4, (unsigned)i % 3) != 0)
            abort();
        if (vigil_mq_receive(q, buf, sizeof buf, NULL) != 4)
            abort();
    }
    atomic_store(&done, 1);
    return NULL;
}

int main(void)
{
    mqt_setup();
    q = mqt_create("/getattr", 4, 16);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, traffic, NULL), 0);
    long reads = 0, nonzero = 0;
    while (!atomic_load(&done)) {
        struct mq_attr a;
        CHECK_SYS(vigil_mq_getattr(q, &a));
        CHECK(a.mq_curmsgs >= 0 && a.mq_curmsgs <= 4);
        reads++;
        nonzero += a.mq_curmsgs != 0;
    }
    CHECK_EQ(pthread_join(t, NULL), 0);
    printf("%ld snapshots, %ld non-empty\n", reads, nonzero);
    CHECK_SYS(vigil_mq_close(q));
    return 0;
}
