/* One signal, sent once, at a chosen phase of a blocked call's wait (the spin, the
 * sleep with or without a spin before it, the edge after a wake that found nothing),
 * from another thread or another process, for vigil_mq_receive, vigil_mq_send on a full
 * queue and their timed forms. A test-only hook in wait.c (vigil__mq_wait_hook) tells a
 * driver (the other thread or process) that the waiter reached the phase, and asserts
 * that it did: the driver then signals (at once, or once the waiter sleeps in the
 * kernel: /proc shows it sleeping with its record marked asleep) or wakes the waiter's
 * futex for nothing (to make an edge).
 *   RESTART 0: the handler has no SA_RESTART: the call fails with EINTR; a call that
 *              got its message during the spin before the signal's handler could run
 *              returns the message (the handler runs after).
 *   RESTART 1: SA_RESTART: the call goes on; the driver, once it saw the handler run,
 *              sends the message (or makes room) and the call returns it.
 * Included by eintr.c and restart.c with RESTART defined. */
#include "mqt.h"
#include "mq/mq_int.h"
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum { OP_RECV, OP_SEND };
enum { PH_SPIN, PH_SLEEP, PH_SPIN_SLEEP, PH_EDGE, PH_SPIN_TAKEN, PH_COUNT };
static const char *const ph_name[] = {"spin", "sleep", "spin then sleep", "edge", "spin, message first"};

/* Shared with the driver (thread or forked process). */
struct shared {
    atomic_int handled;   /* the handler ran this many times */
    atomic_int returned;  /* the waiter's call returned */
    atomic_int reached;   /* phases reached (bit per VIGIL__MQ_PHASE_*) */
};
static struct shared *sh;
static mqd_t q;
static int cmd_pipe[2];
static pid_t waiter_tid, waiter_pid;
static pthread_t waiter_thread;
static int from_process; /* the driver is a process: it signals the process, not the thread */
static int op;

/* A command to the driver. */
struct cmd {
    char what;          /* 'S' signal now, 'Z' signal once asleep, 'W' spurious wake once asleep,
                           'T' signal now and send the message (spin, message first), 'Q' quit */
    struct vigil__mq_rec *rec;
};

/* The hook's script: at phase step[i].phase (first time), send step[i].cmd. */
static struct {
    int phase;
    char cmd;
} step[2];
static int nstep, cur;

static void on_sig(int s)
{
    (void)s;
    atomic_fetch_add(&sh->handled, 1);
}

static int pending_usr1(void)
{
    sigset_t p;
    sigpending(&p);
    return sigismember(&p, SIGUSR1);
}

static void hook(int phase, struct vigil__mq_rec *rec)
{
    if ((pid_t)syscall(SYS_gettid) != waiter_tid)
        return;
    atomic_fetch_or(&sh->reached, 1 << phase);
    if (cur >= nstep || step[cur].phase != phase)
        return;
    struct cmd c = {step[cur].cmd, rec};
    cur++;
    CHECK_EQ(write(cmd_pipe[1], &c, sizeof c), (ssize_t)sizeof c);
    if (c.what == 'S' || c.what == 'T') {
        /* Signals are blocked here (spin, edge): the signal must stay pending, not run. */
        for (int i = 0; i < 5000 && !pending_usr1(); i++)
            usleep(1000);
        CHECK(pending_usr1());
        CHECK_EQ(atomic_load(&sh->handled), 0);
        if (c.what == 'T')
            for (int i = 0; i < 5000 && atomic_load(&rec->state) == VIGIL__REC_WAITING; i++)
                usleep(1000);
    }
}

/* The waiter sleeps in the kernel on its record. */
static int asleep(struct vigil__mq_rec *rec)
{
    if (!atomic_load(&rec->sleeping))
        return 0;
    char path[96], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)waiter_pid, (int)waiter_tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'S' && atomic_load(&rec->sleeping);
}

static void sig_send(void)
{
    if (from_process)
        CHECK_SYS(kill(waiter_pid, SIGUSR1));
    else
        CHECK_EQ(pthread_kill(waiter_thread, SIGUSR1), 0);
}

/* What unblocks the waiter: a message to receive, or room to send into. */
static void unblock(void)
{
    char buf[8];
    if (op == OP_RECV)
        CHECK_SYS(vigil_mq_send(q, "m", 1, 0));
    else
        CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, NULL), 1);
}

static void driver(void)
{
    struct cmd c;
    for (;;) {
        CHECK_EQ(read(cmd_pipe[0], &c, sizeof c), (ssize_t)sizeof c);
        if (c.what == 'Q')
            return;
        if (c.what == 'Z' || c.what == 'W')
            while (!asleep(c.rec))
                usleep(200);
        if (c.what == 'W') {
            syscall(SYS_futex, &c.rec->state, FUTEX_WAKE, 1, NULL, NULL, 0);
            continue;
        }
        sig_send(); /* once */
        if (c.what == 'T') {
            unblock();
            continue;
        }
        /* After the handler ran: with SA_RESTART the call must still wait: give it
         * what it waits for. Without, it must have returned; if it did not within 5 s,
         * unblock it anyway so that the test fails instead of hanging. */
        while (!atomic_load(&sh->handled))
            usleep(200);
        if (!RESTART)
            for (int i = 0; i < 5000 && !atomic_load(&sh->returned); i++)
                usleep(1000);
        if (RESTART || !atomic_load(&sh->returned))
            unblock();
    }
}

static void *driver_thread(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    driver();
    return NULL;
}

static void run_case(int timed, int phase)
{
    char buf[8];
    struct vigil__mq *m = vigil__mq_get(q);
    /* The phase's path: a spin (recent waits short) or a sleep at once (long). */
    int spins = phase == PH_SPIN || phase == PH_SPIN_SLEEP || phase == PH_SPIN_TAKEN;
    atomic_store(&m->wait_est_ns[op == OP_RECV ? 0 : 1], spins ? 0 : 1000000000u);
    nstep = cur = 0;
    switch (phase) {
    case PH_SPIN:
        step[nstep].phase = VIGIL__MQ_PHASE_SPIN, step[nstep++].cmd = 'S';
        break;
    case PH_SPIN_TAKEN:
        step[nstep].phase = VIGIL__MQ_PHASE_SPIN, step[nstep++].cmd = 'T';
        break;
    case PH_SLEEP:
    case PH_SPIN_SLEEP:
        step[nstep].phase = VIGIL__MQ_PHASE_SLEEP, step[nstep++].cmd = 'Z';
        break;
    case PH_EDGE:
        step[nstep].phase = VIGIL__MQ_PHASE_SLEEP, step[nstep++].cmd = 'W';
        step[nstep].phase = VIGIL__MQ_PHASE_EDGE, step[nstep++].cmd = 'S';
        break;
    }
    atomic_store(&sh->handled, 0);
    atomic_store(&sh->returned, 0);
    atomic_store(&sh->reached, 0);
    if (op == OP_SEND)
        CHECK_SYS(vigil_mq_send(q, "f", 1, 0)); /* full: the next send blocks */

    pid_t child = 0;
    pthread_t t;
    if (from_process) {
        child = fork();
        CHECK_SYS(child);
        if (child == 0) {
            driver();
            _exit(0);
        }
    } else {
        CHECK_EQ(pthread_create(&t, NULL, driver_thread, NULL), 0);
    }

    struct timespec dl = mqt_in(20000000000LL);
    long r;
    errno = 0;
    if (op == OP_RECV)
        r = timed ? vigil_mq_timedreceive(q, buf, sizeof buf, NULL, &dl) : vigil_mq_receive(q, buf, sizeof buf, NULL);
    else
        r = timed ? vigil_mq_timedsend(q, "w", 1, 0, &dl) : vigil_mq_send(q, "w", 1, 0);
    int err = errno;
    atomic_store(&sh->returned, 1);

    fprintf(stderr, "%s %s%s, signal from a %s at the %s: %ld (%s), handler ran %d\n", RESTART ? "SA_RESTART" : "no SA_RESTART",
            timed ? "timed " : "", op == OP_RECV ? "receive" : "send", from_process ? "process" : "thread", ph_name[phase], r,
            r < 0 ? strerror(err) : "ok", atomic_load(&sh->handled));
    /* The phase was reached (the hook ran there, and its script ran to its end). */
    CHECK_EQ(cur, nstep);
    int want_bit = phase == PH_EDGE ? VIGIL__MQ_PHASE_EDGE : phase == PH_SPIN || phase == PH_SPIN_TAKEN ? VIGIL__MQ_PHASE_SPIN : VIGIL__MQ_PHASE_SLEEP;
    CHECK(atomic_load(&sh->reached) & (1 << want_bit));
    if (phase == PH_SPIN_SLEEP)
        CHECK(atomic_load(&sh->reached) & (1 << VIGIL__MQ_PHASE_SPIN));
    if (phase == PH_SLEEP || phase == PH_EDGE)
        CHECK(!(atomic_load(&sh->reached) & (1 << VIGIL__MQ_PHASE_SPIN)));
    if (RESTART || phase == PH_SPIN_TAKEN) {
        CHECK_EQ(r, op == OP_RECV ? 1 : 0);
    } else {
        CHECK_EQ(r, -1);
        CHECK_EQ(err, EINTR);
    }
    CHECK_EQ(atomic_load(&sh->handled), 1); /* one signal, handled once */

    struct cmd quit = {'Q', NULL};
    CHECK_EQ(write(cmd_pipe[1], &quit, sizeof quit), (ssize_t)sizeof quit);
    if (from_process)
        CHECK_EQ(vt_child_exit(child), 0);
    else
        pthread_join(t, NULL);
    /* Back to an empty queue. */
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = O_NONBLOCK}, NULL));
    while (vigil_mq_receive(q, buf, sizeof buf, NULL) >= 0)
        ;
    CHECK_EQ(errno, EAGAIN);
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = 0}, NULL));
}

int main(void)
{
#if defined(__SANITIZE_THREAD__) && RESTART
    /* TSan defers a handler to its next intercepted call: a wait in the futex system call
     * never sees it run, and the driver waits for the handler before it sends. */
    vt_skip("ThreadSanitizer defers signal handlers until an intercepted call: the handler cannot run during the wait");
#endif
    mqt_setup();
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED);
    struct sigaction sa = {0};
    sa.sa_handler = on_sig;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = RESTART ? SA_RESTART : 0;
    CHECK_SYS(sigaction(SIGUSR1, &sa, NULL));
    CHECK_SYS(pipe(cmd_pipe));
    q = mqt_create("/signal", 1, 8);
    waiter_tid = (pid_t)syscall(SYS_gettid);
    waiter_pid = getpid();
    waiter_thread = pthread_self();
    atomic_store(&vigil__mq_wait_hook, hook);
    for (from_process = 0; from_process < 2; from_process++)
        for (op = OP_RECV; op <= OP_SEND; op++)
            for (int timed = 0; timed < 2; timed++)
                for (int phase = 0; phase < PH_COUNT; phase++)
                    run_case(timed, phase);
    return 0;
}
