/* SIGEV_THREAD: the function runs once, in a thread of the registered process, with
 * the value; re-registering from inside the function works; close stops a helper. */
#include "mqt.h"
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>

static sem_t fired;
static mqd_t q;
static int calls;
static pthread_t main_thread;

static void on_msg(union sigval v)
{
    CHECK_EQ(v.sival_int, 77);
    CHECK(!pthread_equal(pthread_self(), main_thread));
    if (++calls == 1) {
        /* Re-arm from the notification, the usual pattern. */
        struct sigevent ev = {0};
        ev.sigev_notify = SIGEV_THREAD;
        ev.sigev_notify_function = on_msg;
        ev.sigev_value.sival_int = 77;
        CHECK_SYS(vigil_mq_notify(q, &ev));
    }
    sem_post(&fired);
}

int main(void)
{
    mqt_setup();
    main_thread = pthread_self();
    sem_init(&fired, 0, 0);
    q = mqt_create("/nt", 4, 8);
    struct sigevent ev = {0};
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_notify_function = on_msg;
    ev.sigev_value.sival_int = 77;
    CHECK_SYS(vigil_mq_notify(q, &ev));
    CHECK_SYS(vigil_mq_send(q, "a", 1, 0));
    CHECK_SYS(sem_wait(&fired));
    char buf[8];
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    /* The re-registration made inside the function fires on the next arrival. */
    CHECK_SYS(vigil_mq_send(q, "b", 1, 0));
    CHECK_SYS(sem_wait(&fired));
    CHECK_EQ(calls, 2);
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    /* One-shot: no third call. Register again and close: the helper stops. */
    CHECK_SYS(vigil_mq_send(q, "c", 1, 0));
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    CHECK_EQ(calls, 2);
    CHECK_SYS(vigil_mq_notify(q, &ev));
    CHECK_SYS(vigil_mq_close(q));
    CHECK_EQ(calls, 2);
    return 0;
}
