/* A signal handler installed without SA_RESTART interrupts a blocked receive or send
 * with EINTR. */
#include "mqt.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

static atomic_int done;
static pthread_t main_thread;

static void on_sig(int s)
{
    (void)s;
}

static void *pester(void *arg)
{
    (void)arg;
    /* Keep signalling until the blocked call returned: no timing assumption. */
    while (!atomic_load(&done)) {
        pthread_kill(main_thread, SIGUSR1);
        usleep(2000);
    }
    return NULL;
}

int main(void)
{
    mqt_setup();
    struct sigaction sa = {0};
    sa.sa_handler = on_sig;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART */
    CHECK_SYS(sigaction(SIGUSR1, &sa, NULL));
    mqd_t q = mqt_create("/intr", 1, 8);
    char buf[8];
    main_thread = pthread_self();
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, pester, NULL), 0);
    errno = 0;
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), -1);
    CHECK_EQ(errno, EINTR);
    CHECK_SYS(vigil_mq_send(q, "x", 1, 0));
    errno = 0;
    CHECK_EQ(vigil_mq_send(q, "y", 1, 0), -1);
    CHECK_EQ(errno, EINTR);
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    CHECK_EQ(vigil_mq_receive(q, buf, 8, NULL), 1);
    CHECK_EQ(buf[0], 'x');
    return 0;
}
