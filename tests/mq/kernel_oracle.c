/* vigil's queues against the kernel's, side by side: the same random call sequences on
 * both (opens with random flags and attributes, valid and invalid; sends and receives
 * of random sizes and priorities, plain and timed, blocking only where the call cannot
 * block for long; getattr, setattr, notify, close, unlink), every result, errno,
 * message, priority and attribute compared. Within the kernel's default limits (10
 * messages of 8192 bytes), where the two must agree; vigil's larger limits are the one
 * intended difference and are not drawn here.
 *
 * The kernel's queues live in a private IPC namespace when the test may make one
 * (unshare(CLONE_NEWIPC): nothing of the machine's is touched), else under names unique
 * to this process, unlinked at the end. Skips (77) when the kernel offers no POSIX
 * queues.
 *
 * Environment: VIGIL_TEST_SEED (replays; printed at start), VIGIL_TEST_SEQS (sequences,
 * default 40), VIGIL_TEST_STEPS (calls per sequence, default 400).
 */

#include "mqt.h"

#include <fcntl.h>
#include <inttypes.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <signal.h>
#include <time.h>

#define NNAMES 3
#define NDESC 6

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static long rnd_n(long n) { return (long)(rnd() % (uint64_t)n); }

static char kname[NNAMES][64], vname[NNAMES][64];
static struct { mqd_t k, v; int open; } desc[NDESC];
static long step;
static int seq_no;
static char detail[256]; /* the arguments of the call being compared */

/* What a call returned: the value and, when it failed, errno. */
struct res {
    long r;
    int err;
};
#define CALL(expr) ({ errno = 0; long r_ = (long)(expr); (struct res){r_, r_ < 0 ? errno : 0}; })

static void differ(const char *what, struct res k, struct res v)
{
    fprintf(stderr, "DIFFER (seed replay: sequence %d, step %ld) %s(%s): kernel %ld (%s), vigil %ld (%s)\n", seq_no,
            step, what, detail, k.r, k.err ? strerror(k.err) : "ok", v.r, v.err ? strerror(v.err) : "ok");
    exit(1);
}

/* A call that blocks for ever (vigil's queue and the kernel's disagree on whether it
 * may wait) is reported with where it happened, before ctest's timeout kills us. */
static uint64_t watchdog_seed;
static void *watchdog(void *arg)
{
    (void)arg;
    sleep(100); /* a thread, not alarm(): the test's notifications may raise any signal */
    char m[512];
    int n = snprintf(m, sizeof m, "HUNG (seed %llu, sequence %d, step %ld): last call %s\n",
                     (unsigned long long)watchdog_seed, seq_no, step, detail);
    if (n > 0)
        (void)!write(2, m, (size_t)n);
    _exit(1);
}

static void same(const char *what, struct res k, struct res v)
{
    if ((k.r < 0) != (v.r < 0) || k.err != v.err || (k.r >= 0 && k.r != v.r))
        differ(what, k, v);
}

/* A timeout: NULL, one already past, 1 ms ahead, or an invalid one. */
static const struct timespec *pick_timeout(struct timespec *t, bool *may_wait)
{
    *may_wait = false;
    switch (rnd_n(6)) {
    case 0: return NULL;
    case 1: *t = mqt_in(-1000000000L); return t;
    case 2: *t = mqt_in(1000000L); *may_wait = true; return t;
    case 3: *t = (struct timespec){.tv_sec = 1, .tv_nsec = 1000000000L}; return t;
    case 4: *t = (struct timespec){.tv_sec = -1, .tv_nsec = 0}; return t;
    default: *t = (struct timespec){.tv_sec = 0, .tv_nsec = -1}; return t;
    }
}

static void op_open(void)
{
    int slot = (int)rnd_n(NDESC);
    if (desc[slot].open)
        return;
    int n = (int)rnd_n(NNAMES);
    static const int modes[] = {O_RDONLY, O_WRONLY, O_RDWR, O_RDWR, O_ACCMODE};
    int flags = modes[rnd_n(5)];
    if (rnd_n(3))
        flags |= O_CREAT;
    if (rnd_n(3) == 0)
        flags |= O_EXCL;
    if (rnd_n(3) == 0)
        flags |= O_NONBLOCK;
    struct mq_attr a = {0}, *ap = NULL;
    if (rnd_n(3)) {
        static const long maxmsgs[] = {1, 2, 5, 10, 0, -1};
        static const long sizes[] = {1, 16, 100, 8192, 0, -5};
        a.mq_maxmsg = maxmsgs[rnd_n(rnd_n(5) ? 4 : 6)];
        a.mq_msgsize = sizes[rnd_n(rnd_n(5) ? 4 : 6)];
        ap = &a;
    }
    snprintf(detail, sizeof detail, "name %d, flags %#o, attr %s maxmsg %ld msgsize %ld", n, flags,
             ap ? "given" : "NULL", a.mq_maxmsg, a.mq_msgsize);
    errno = 0;
    mqd_t k = mq_open(kname[n], flags, 0600, ap);
    int ke = errno;
    errno = 0;
    mqd_t v = vigil_mq_open(vname[n], flags, 0600, ap);
    int ve = errno;
    if (k == (mqd_t)-1 && ke == EMFILE) {
        /* The kernel's per-user byte limit (RLIMIT_MSGQUEUE), which vigil does not have
         * by design: not a difference to report. Undo vigil's side. */
        if (v != (mqd_t)-1)
            vigil_mq_close(v);
        /* Keep the names in step: a queue only vigil made goes again. */
        mqd_t k2 = mq_open(kname[n], O_RDONLY);
        if (k2 == (mqd_t)-1 && errno == ENOENT)
            vigil_mq_unlink(vname[n]);
        else if (k2 != (mqd_t)-1)
            mq_close(k2);
        return;
    }
    same("open", (struct res){k == (mqd_t)-1 ? -1 : 0, k == (mqd_t)-1 ? ke : 0},
         (struct res){v == (mqd_t)-1 ? -1 : 0, v == (mqd_t)-1 ? ve : 0});
    if (k != (mqd_t)-1) {
        desc[slot].k = k;
        desc[slot].v = v;
        desc[slot].open = 1;
    }
}

static int pick_open(void)
{
    for (int tries = 0; tries < 8; tries++) {
        int s = (int)rnd_n(NDESC);
        if (desc[s].open)
            return s;
    }
    return -1;
}

static void op_send(void)
{
    int s = pick_open();
    if (s < 0)
        return;
    char msg[8200];
    size_t len = (size_t)rnd_n(rnd_n(4) ? 120 : 8194);
    for (size_t i = 0; i < len; i++)
        msg[i] = (char)rnd();
    unsigned prio = rnd_n(10) ? (unsigned)rnd_n(40) : (unsigned)(MQ_PRIO_MAX + rnd_n(2));
    struct timespec t;
    bool may_wait;
    const struct timespec *tp = pick_timeout(&t, &may_wait);
    struct mq_attr ka;
    /* An untimed send on a full blocking queue would block for ever: not drawn. */
    if (!tp && mq_getattr(desc[s].k, &ka) == 0 && !(ka.mq_flags & O_NONBLOCK) && ka.mq_curmsgs == ka.mq_maxmsg)
        return;
    snprintf(detail, sizeof detail, "desc %d, len %zu, prio %u, timeout %s", s, len, prio,
             tp ? (may_wait ? "1 ms" : "past or bad") : "none");
    struct res k, v;
    if (tp) {
        if (may_wait) /* the same deadline for both */
            t = mqt_in(1000000L);
        k = CALL(mq_timedsend(desc[s].k, msg, len, prio, tp));
        if (may_wait)
            t = mqt_in(1000000L);
        v = CALL(vigil_mq_timedsend(desc[s].v, msg, len, prio, tp));
    } else {
        k = CALL(mq_send(desc[s].k, msg, len, prio));
        v = CALL(vigil_mq_send(desc[s].v, msg, len, prio));
    }
    same(tp ? "timedsend" : "send", k, v);
}

static void op_receive(void)
{
    int s = pick_open();
    if (s < 0)
        return;
    static char kb[8200], vb[8200];
    static const size_t lens[] = {0, 15, 16, 100, 120, 8191, 8192, 8200};
    size_t len = lens[rnd_n(8)];
    struct timespec t;
    bool may_wait;
    const struct timespec *tp = pick_timeout(&t, &may_wait);
    struct mq_attr ka;
    if (!tp && mq_getattr(desc[s].k, &ka) == 0 && !(ka.mq_flags & O_NONBLOCK) && ka.mq_curmsgs == 0)
        return; /* would block for ever */
    unsigned kp = 0, vp = 0;
    snprintf(detail, sizeof detail, "desc %d, len %zu, timeout %s", s, len,
             tp ? (may_wait ? "1 ms" : "past or bad") : "none");
    struct res k, v;
    if (tp) {
        if (may_wait)
            t = mqt_in(1000000L);
        k = CALL(mq_timedreceive(desc[s].k, kb, len, &kp, tp));
        if (may_wait)
            t = mqt_in(1000000L);
        v = CALL(vigil_mq_timedreceive(desc[s].v, vb, len, &vp, tp));
    } else {
        k = CALL(mq_receive(desc[s].k, kb, len, &kp));
        v = CALL(vigil_mq_receive(desc[s].v, vb, len, &vp));
    }
    same(tp ? "timedreceive" : "receive", k, v);
    if (k.r >= 0 && (kp != vp || memcmp(kb, vb, (size_t)k.r) != 0))
        differ("received message or priority", k, v);
}

static void op_attr(void)
{
    int s = pick_open();
    if (s < 0)
        return;
    struct mq_attr ka, va;
    memset(&ka, 0, sizeof ka);
    memset(&va, 0, sizeof va);
    if (rnd_n(2)) {
        same("getattr", CALL(mq_getattr(desc[s].k, &ka)), CALL(vigil_mq_getattr(desc[s].v, &va)));
    } else {
        struct mq_attr n = {.mq_flags = rnd_n(2) ? O_NONBLOCK : 0, .mq_maxmsg = rnd_n(20), .mq_msgsize = rnd_n(20)};
        if (rnd_n(6) == 0)
            n.mq_flags |= O_APPEND; /* not O_NONBLOCK: ignored by both */
        same("setattr", CALL(mq_setattr(desc[s].k, &n, &ka)), CALL(vigil_mq_setattr(desc[s].v, &n, &va)));
    }
    if (ka.mq_flags != va.mq_flags || ka.mq_maxmsg != va.mq_maxmsg || ka.mq_msgsize != va.mq_msgsize ||
        ka.mq_curmsgs != va.mq_curmsgs)
        differ("attributes", (struct res){ka.mq_curmsgs, 0}, (struct res){va.mq_curmsgs, 0});
}

static void op_notify(void)
{
    int s = pick_open();
    if (s < 0)
        return;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    const struct sigevent *evp = &ev;
    switch (rnd_n(5)) {
    case 0: evp = NULL; break;
    case 1: ev.sigev_notify = SIGEV_NONE; break;
    case 2: ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = rnd_n(4) ? 0 : (int)rnd_n(70); break;
    case 3: ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = rnd_n(2) ? -1 : 65; break;
    default: ev.sigev_notify = 77; break; /* no such kind */
    }
    snprintf(detail, sizeof detail, "desc %d, notify %d, signo %d", s, evp ? ev.sigev_notify : -1, ev.sigev_signo);
    /* Signals this process ignores may fire: their handlers are set to SIG_IGN below
     * (SIG_IGN), so the process lives, and the comparison is of the calls only. */
    struct res k = CALL(mq_notify(desc[s].k, evp)), v = CALL(vigil_mq_notify(desc[s].v, evp));
    same("notify", k, v);
    struct sigaction sa;
    bool ignored = evp && ev.sigev_notify == SIGEV_SIGNAL && ev.sigev_signo > 0 &&
                   sigaction(ev.sigev_signo, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
    if (evp && ev.sigev_notify == SIGEV_SIGNAL && ev.sigev_signo > 0 && !ignored && k.r == 0) {
        /* Both accept every valid signal, SIGKILL, SIGSTOP and glibc's internal 32 and 33
         * (which a process cannot ignore) included; firing one would kill or stop this
         * test (a run stopped by SIGSTOP hung until ctest's timeout): withdraw it. */
        same("notify withdrawn", CALL(mq_notify(desc[s].k, NULL)), CALL(vigil_mq_notify(desc[s].v, NULL)));
    }
}

static void op_close(void)
{
    int s = pick_open();
    if (s < 0)
        return;
    same("close", CALL(mq_close(desc[s].k)), CALL(vigil_mq_close(desc[s].v)));
    desc[s].open = 0;
}

static void op_unlink(void)
{
    int n = (int)rnd_n(NNAMES);
    same("unlink", CALL(mq_unlink(kname[n])), CALL(vigil_mq_unlink(vname[n])));
}

static void op_bad_desc(void)
{
    /* A descriptor that is not open: both say EBADF (a closed one of ours, or junk). */
    mqd_t junk = (mqd_t)(1000 + rnd_n(50));
    char b[16];
    struct timespec t = {0, 0};
    same("send on a bad descriptor", CALL(mq_send(junk, "x", 1, 0)), CALL(vigil_mq_send(junk, "x", 1, 0)));
    same("timedreceive on a bad descriptor with a bad timeout",
         CALL(mq_timedreceive(junk, b, sizeof b, NULL, &(struct timespec){0, -1})),
         CALL(vigil_mq_timedreceive(junk, b, sizeof b, NULL, &(struct timespec){0, -1})));
    (void)t;
}

int main(void)
{
    mqt_setup();
    bool private_ipc = unshare(CLONE_NEWIPC) == 0;
    /* This process's own byte limit for kernel queues, raised where allowed so that the
     * kernel's side rarely says EMFILE (handled in op_open when it does). */
    struct rlimit rl = {64 << 20, 64 << 20};
    setrlimit(RLIMIT_MSGQUEUE, &rl);
    mqd_t probe = mq_open("/vigil-oracle-probe", O_RDWR | O_CREAT, 0600, NULL);
    if (probe == (mqd_t)-1) {
        char why[128];
        snprintf(why, sizeof why, "the kernel's POSIX queues are not available: %s", strerror(errno));
        vt_skip(why);
    }
    mq_close(probe);
    mq_unlink("/vigil-oracle-probe");
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_IGN); /* notifications that fire do nothing to the test */

    const char *e = getenv("VIGIL_TEST_SEED");
    uint64_t seed = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)getpid();
    if (!seed)
        seed = 1;
    int nseq = getenv("VIGIL_TEST_SEQS") ? atoi(getenv("VIGIL_TEST_SEQS")) : 40;
    long nsteps = getenv("VIGIL_TEST_STEPS") ? atol(getenv("VIGIL_TEST_STEPS")) : 400;
    printf("kernel_oracle: seed %" PRIu64 " (VIGIL_TEST_SEED=%" PRIu64 " replays), %d sequences of %ld calls, %s\n",
           seed, seed, nseq, nsteps, private_ipc ? "private IPC namespace" : "machine's IPC namespace, unique names");
    fflush(stdout); /* a hang killed by ctest must still show the seed */
    watchdog_seed = seed;
    pthread_t wd; /* a run takes well under a second: a call that blocks for ever is a bug */
    if (pthread_create(&wd, NULL, watchdog, NULL) == 0)
        pthread_detach(wd);
    long calls = 0;
    for (seq_no = 0; seq_no < nseq; seq_no++) {
        rng = seed + (uint64_t)seq_no * 0x9e3779b97f4a7c15ull;
        for (int n = 0; n < NNAMES; n++) {
            snprintf(kname[n], sizeof kname[n], "/vigil-oracle-%d-%d", (int)getpid(), n);
            snprintf(vname[n], sizeof vname[n], "/q%d", n);
            mq_unlink(kname[n]);
            vigil_mq_unlink(vname[n]);
        }
        memset(desc, 0, sizeof desc);
        for (step = 0; step < nsteps; step++, calls++) {
            switch (rnd_n(16)) {
            case 0: case 1: case 2: op_open(); break;
            case 3: case 4: case 5: case 6: op_send(); break;
            case 7: case 8: case 9: case 10: op_receive(); break;
            case 11: op_attr(); break;
            case 12: op_notify(); break;
            case 13: op_close(); break;
            case 14: op_unlink(); break;
            default: op_bad_desc(); break;
            }
        }
        for (int s = 0; s < NDESC; s++)
            if (desc[s].open) {
                mq_close(desc[s].k);
                vigil_mq_close(desc[s].v);
            }
        for (int n = 0; n < NNAMES; n++) {
            mq_unlink(kname[n]);
            vigil_mq_unlink(vname[n]);
        }
    }
    printf("kernel_oracle: %d sequences, %ld calls: every result, errno, message and attribute the same\n", nseq,
           calls);
    return 0;
}
