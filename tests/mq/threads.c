/* Many threads at once: 4 senders and 4 receivers hammer a 4-deep queue (blocking on
 * both sides, lock contention), then 150 receivers block on an empty queue (more than
 * the 128 waiter records: the rest wait without one) and each gets one message. Every
 * message arrives exactly once; the queue's invariants hold afterwards. */
#include "mqt.h"
#include "mq/mq_int.h"
#include <pthread.h>
#include <stdatomic.h>

#define PER 20000
#define NS 4
#define NR 4
#define MANY 150

static mqd_t q;
static atomic_uchar seen[NS * PER];
static atomic_int dups, received;

static void *sender(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    for (unsigned i = 0; i < PER; i++) {
        unsigned v = id * PER + i;
        if (vigil_mq_send(q, (char *)&v, sizeof v, i % 3) != 0)
            abort();
    }
    return NULL;
}

static void *receiver(void *arg)
{
    int n = (int)(uintptr_t)arg;
    for (int i = 0; i < n; i++) {
        unsigned v;
        char buf[16];
        if (vigil_mq_receive(q, buf, sizeof buf, NULL) != sizeof v)
            abort();
        memcpy(&v, buf, sizeof v);
        if (v >= NS * PER || atomic_fetch_add(&seen[v], 1))
            atomic_fetch_add(&dups, 1);
        atomic_fetch_add(&received, 1);
    }
    return NULL;
}

int main(void)
{
    mqt_setup();
    q = mqt_create("/threads", 4, 16);
    pthread_t s[NS], r[NR];
    for (int i = 0; i < NR; i++)
        CHECK_EQ(pthread_create(&r[i], NULL, receiver, (void *)(uintptr_t)(NS * PER / NR)), 0);
    for (int i = 0; i < NS; i++)
        CHECK_EQ(pthread_create(&s[i], NULL, sender, (void *)(uintptr_t)i), 0);
    for (int i = 0; i < NS; i++)
        pthread_join(s[i], NULL);
    for (int i = 0; i < NR; i++)
        pthread_join(r[i], NULL);
    CHECK_EQ(atomic_load(&dups), 0);
    CHECK_EQ(atomic_load(&received), NS * PER);
    for (int i = 0; i < NS * PER; i++)
        CHECK_EQ(atomic_load(&seen[i]), 1);

    /* More blocked receivers than waiter records. */
    memset(seen, 0, sizeof seen);
    atomic_store(&received, 0);
    static pthread_t many[MANY];
    for (int i = 0; i < MANY; i++)
        CHECK_EQ(pthread_create(&many[i], NULL, receiver, (void *)(uintptr_t)1), 0);
    struct vigil__mq *m = vigil__mq_get(q);
    /* Wait until the records are all taken and some wait without one. */
    while (__atomic_load_n(&m->h->spare_waiters, __ATOMIC_RELAXED) == 0)
        usleep(1000);
    for (unsigned i = 0; i < MANY; i++)
        CHECK_SYS(vigil_mq_send(q, (char *)&i, sizeof i, 0));
    for (int i = 0; i < MANY; i++)
        pthread_join(many[i], NULL);
    CHECK_EQ(atomic_load(&received), MANY);
    CHECK_EQ(atomic_load(&dups), 0);
    char why[160];
    if (vigil__mq_check(m, why, sizeof why) < 0) {
        fprintf(stderr, "invariant: %s\n", why);
        return 1;
    }
    return 0;
}
