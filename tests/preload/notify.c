/* mq_notify: SIGEV_SIGNAL (si_code SI_MESGQ, si_value, sent by another process's send)
 * and SIGEV_THREAD (the function runs with its value), EBUSY for a second process,
 * removal with NULL. */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "pt.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int thread_value;

static void on_thread(union sigval v)
{
    pthread_mutex_lock(&mu);
    thread_value = v.sival_int;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

int main(void)
{
    pt_setup();
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 16};
    mqd_t q = mq_open("/nt", O_RDWR | O_CREAT, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil("/nt"));
    char buf[16];

    /* SIGEV_SIGNAL, fired by a send from a child process. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    ev.sigev_value.sival_int = 4242;
    CHECK_EQ(mq_notify(q, &ev), 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        /* Another process may not register while we are: EBUSY. */
        if (mq_notify(q, &ev) != -1 || errno != EBUSY)
            _exit(2);
        _exit(mq_send(q, "sig", 3, 0) == 0 ? 0 : 3);
    }
    int st;
    CHECK_EQ(waitpid(child, &st, 0), child);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    siginfo_t si;
    struct timespec ten = {.tv_sec = 10};
    CHECK_EQ(sigtimedwait(&set, &si, &ten), SIGUSR1);
    CHECK_EQ(si.si_code, SI_MESGQ);
    CHECK_EQ(si.si_pid, child);
    CHECK_EQ(si.si_value.sival_int, 4242);
    CHECK_EQ(mq_receive(q, buf, sizeof buf, NULL), 3);

    /* Registered then removed: a send raises nothing. */
    CHECK_EQ(mq_notify(q, &ev), 0);
    CHECK_EQ(mq_notify(q, NULL), 0);
    CHECK_EQ(mq_send(q, "none", 4, 0), 0);
    struct timespec zero = {0, 0};
    CHECK_ERR(sigtimedwait(&set, &si, &zero), EAGAIN);
    CHECK_EQ(mq_receive(q, buf, sizeof buf, NULL), 4);

    /* SIGEV_THREAD. */
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_notify_function = on_thread;
    ev.sigev_value.sival_int = 77;
    CHECK_EQ(mq_notify(q, &ev), 0);
    CHECK_EQ(mq_send(q, "thr", 3, 0), 0);
    pthread_mutex_lock(&mu);
    struct timespec dl = pt_in_ms(10000);
    while (thread_value == 0)
        if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT)
            break;
    pthread_mutex_unlock(&mu);
    CHECK_EQ(thread_value, 77);
    CHECK_EQ(mq_receive(q, buf, sizeof buf, NULL), 3);

    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = 12345;
    CHECK_ERR(mq_notify(q, &ev), EINVAL);
    CHECK_EQ(mq_close(q), 0);
    CHECK_EQ(mq_unlink("/nt"), 0);
    return 0;
}
