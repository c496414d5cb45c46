/* A wait that follows a late resumption counts the lateness back in (wait.c, WAITING
 * THAT PAYS FOR ITSELF): a receiver that took L to run again after its message was
 * ready next waits G - L for a producer on its own clock, and must not learn "short"
 * from that. Here a helper thread sends each message when the receiver's wait asks for
 * it (through the test's wait hook), and the receiver resumes late on purpose: at its
 * sleep it has the message sent and then sleeps 2 ms itself before the futex call,
 * which finds the word changed (lateness 2 ms, counted as at most WAIT_CAP_NS, 64 us).
 * The next receive, made to look short (the queue's average forced to 0), spins and
 * gets its message at once: the sample it learns must carry the 64 us, so the average
 * is at least 64 us / 8. Without the rule that sample is the helper's hand-over alone,
 * under 64 us unless the machine stalls it, four times in a row.
 * Then the untimed waits (a thread that sleeps at once times one wait in
 * VIGIL__MQ_SLEEP_TIMED): of 2 x VIGIL__MQ_SLEEP_TIMED sleeping waits after a spin, exactly
 * two (the first of each run) move the average; and a late untimed wait just before a
 * timed one still hands its lateness to that sample. */
#include "mqt.h"
#include "mq/mq_int.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

static mqd_t q;
static sem_t ask, sent;
static int late_next; /* the sleep hook's 2 ms, in the first receive of each pair */

static void *helper(void *arg)
{
    (void)arg;
    for (;;) {
        while (sem_wait(&ask) != 0)
            ;
        CHECK_SYS(vigil_mq_send(q, "m", 1, 0));
        CHECK_SYS(sem_post(&sent));
    }
    return NULL;
}

static void bring_message(void)
{
    CHECK_SYS(sem_post(&ask));
    while (sem_wait(&sent) != 0)
        ;
}

static void hook(int phase, struct vigil__mq_rec *r)
{
    (void)r;
    if (phase != VIGIL__MQ_PHASE_SPIN && phase != VIGIL__MQ_PHASE_SLEEP)
        return;
    bring_message();
    if (phase == VIGIL__MQ_PHASE_SLEEP && late_next)
        nanosleep(&(struct timespec){0, 2000000}, NULL);
}

int main(void)
{
    mqt_setup();
    q = mqt_create("/late_wait", 4, 8);
    struct vigil__mq *m = vigil__mq_get(q);
    CHECK(m != NULL);
    CHECK_SYS(sem_init(&ask, 0, 0));
    CHECK_SYS(sem_init(&sent, 0, 0));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, helper, NULL) == 0);
    atomic_store(&vigil__mq_wait_hook, hook);
    char buf[8];
    for (int i = 0; i < 4; i++) {
        atomic_store(&m->wait_est_ns[0], 1000000000u); /* long: sleeps at once */
        late_next = 1;
        CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, NULL), 1);
        late_next = 0;
        atomic_store(&m->wait_est_ns[0], 0); /* short: spins */
        CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, NULL), 1);
        CHECK(atomic_load(&m->wait_est_ns[0]) >= 64000 / 8);
    }
    /* The loop ended with a spin: the next sleeping wait is timed, then
     * VIGIL__MQ_SLEEP_TIMED - 1 are not, and so on. */
    int moved = 0;
    for (int i = 0; i < 2 * VIGIL__MQ_SLEEP_TIMED; i++) {
        atomic_store(&m->wait_est_ns[0], 1000000000u);
        CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, NULL), 1);
        uint32_t est = atomic_load(&m->wait_est_ns[0]);
        CHECK(i % VIGIL__MQ_SLEEP_TIMED == 0 ? est != 1000000000u : est == 1000000000u);
        moved += est != 1000000000u;
    }
    CHECK_EQ(moved, 2);
    /* Timed, untimed ..., and the last untimed one late: the spin after it must learn
     * that lateness (without it, the previous run's on-time wake-up). */
    for (int i = 0; i < VIGIL__MQ_SLEEP_TIMED; i++) {
        atomic_store(&m->wait_est_ns[0], 1000000000u);
        late_next = i == VIGIL__MQ_SLEEP_TIMED - 1;
        CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, NULL), 1);
    }
    late_next = 0;
    atomic_store(&m->wait_est_ns[0], 0);
    CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, NULL), 1);
    CHECK(atomic_load(&m->wait_est_ns[0]) >= 64000 / 8);
    atomic_store(&vigil__mq_wait_hook, NULL);
    CHECK_SYS(vigil_mq_close(q));
    return 0;
}
