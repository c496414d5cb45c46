/* src/epoll1/: epoll_ctl_batch and epoll_pwait1, the 2015 calls (see
 * include/vigil/epoll1.h). Independent of the loop: may call src/sys only (its io_uring
 * path keeps a small ring of its own per thread, with the man page's semantics).
 *
 * epoll_ctl_batch, io_uring path: one IORING_OP_EPOLL_CTL SQE per command on a ring
 * private to the calling thread, all in one io_uring_enter that also waits for their
 * completions. The SQEs are linked (IOSQE_IO_LINK): the man page says the first failing
 * entry stops processing, and a link is the only way io_uring has to keep an entry from
 * running once an earlier one failed (the kernel then completes the rest with
 * -ECANCELED, and we leave their result untouched). Links also keep the order when the
 * kernel punts an entry to a worker (EPOLL_CTL retries in io-wq when the epoll's mutex
 * is busy), so a DEL then an ADD of one fd can never run the other way round.
 * The price is one task-work hop per link inside the kernel; DEFER_TASKRUN makes that
 * hop cheapest (the chain runs in the waiting task's own loop), which is why this ring
 * asks for SINGLE_ISSUER|DEFER_TASKRUN: only its own thread ever touches it.
 * What exactness costs: linked SQEs cost about what one-by-one epoll_ctl calls cost,
 * where unlinked ones would be cheaper but would run the entries after a failing one
 * (and could reorder entries the kernel punts): not the documented call. The batch
 * still costs one system call. Figures: docs/figures.md ("ctl-batch").
 * Not IOSQE_CQE_SKIP_SUCCESS on all but the last entry (one CQE per batch: the last
 * one's, or the failure's, whose skip the kernel carries over to the cancelled rest, as
 * 6.18 does): tried, exact, and slower on this DEFER_TASKRUN ring, by the same ~23 ns
 * per entry at k = 8, 32 and 256 (2-core EPYC guest, 6.18, interleaved rounds; k=32:
 * 1.47x one-by-one epoll_ctl against 1.32x without it). A per-hop cost: asked for one
 * CQE instead of n, io_uring_enter leaves its task-work run after each hop, whose CQE
 * it skipped, and comes round its wait loop for the next (perf stat: the tracepoint
 * io_uring_local_work_run fires 31 times per 32-entry batch, not once). The lab's
 * ctl_batch_liburing with LAB_URING_SKIP=1 shows the same on a hand-written ring;
 * without DEFER_TASKRUN the skip gains 1-3% but the chain costs ~270 ns per entry.
 *
 * epoll path: one epoll_ctl per command, stopping at the first failure. Both paths
 * produce the same results.
 *
 * Threads and fork: the ring lives in thread-local state, created on first use and
 * freed when the thread exits (a pthread key destructor). A child of fork() inherits
 * the parent's ring mapping (shared memory): the atfork child handler unmaps and closes
 * the child's copy, so the child builds its own.
 *
 * epoll_pwait1: CLOCK_MONOTONIC timeouts go to epoll_pwait2 (ns, the kernel turns the
 * relative timeout into an absolute deadline at entry); CLOCK_REALTIME timeouts become
 * an absolute REALTIME deadline at entry, armed on a thread-local timerfd
 * (TFD_TIMER_ABSTIME, so clock_settime moves it), and the thread waits on the epoll fd
 * and the timerfd together with ppoll (which installs the sigmask atomically), then
 * collects with epoll_wait(..., 0). The same code runs on both paths: io_uring would
 * not save a system call for the MONOTONIC case.
 */
#include "vigil/epoll1.h"
#include "sys/clock.h"
#include "sys/probe.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#ifdef VIGIL_HAVE_LIBURING
#include <liburing.h>
#endif

#define RING_ENTRIES 256 /* commands per io_uring_enter; larger batches go in chunks */

enum { PATH_AUTO = 0, PATH_URING = 1, PATH_EPOLL = 2 };

struct tstate {
    int tfd_real;          /* CLOCK_REALTIME timerfd for pwait1, -1 until needed */
    int tfd_mono;          /* CLOCK_MONOTONIC timerfd (kernels without epoll_pwait2) */
#ifdef VIGIL_HAVE_LIBURING
    int ring_state;        /* 0 untried, 1 up, < 0 negative errno of the refusal */
    struct io_uring ring;
    /* The kernel copies each event when it prepares the SQE, inside the same
     * io_uring_enter; this array only has to live until then. */
    struct epoll_event ev[RING_ENTRIES];
#endif
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int forced_path;
static _Thread_local struct tstate *tls;
#ifdef VIGIL_HAVE_LIBURING
/* Set once any thread found io_uring refused: later threads skip the attempt. */
static atomic_int uring_refused;
#endif

static void tstate_free(struct tstate *t)
{
    if (!t)
        return;
    if (t->tfd_real >= 0)
        close(t->tfd_real);
    if (t->tfd_mono >= 0)
        close(t->tfd_mono);
#ifdef VIGIL_HAVE_LIBURING
    if (t->ring_state == 1)
        vigil__uring_exit(&t->ring);
#endif
    free(t);
}

static void on_thread_exit(void *p)
{
    tstate_free(p);
    tls = NULL;
}

static void on_fork_child(void)
{
    /* Only the forking thread exists in the child; its ring is the parent's (shared
     * mapping, same kernel context): drop the child's references, keep the parent's. */
    tstate_free(tls);
    tls = NULL;
}

static void init_once(void)
{
    const char *p = getenv("VIGIL_EPOLL1_PATH");
    if (p && strcmp(p, "uring") == 0)
        forced_path = PATH_URING;
    else if (p && strcmp(p, "epoll") == 0)
        forced_path = PATH_EPOLL;
    pthread_key_create(&key, on_thread_exit);
    pthread_atfork(NULL, NULL, on_fork_child);
}

static struct tstate *tstate_get(void)
{
    if (tls)
        return tls;
    pthread_once(&once, init_once);
    struct tstate *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->tfd_real = -1;
    t->tfd_mono = -1;
    pthread_setspecific(key, t);
    tls = t;
    return t;
}

/* ------------------------------------------------------------ epoll path */

static int batch_epoll(int epfd, int ncmds, struct vigil_epoll_ctl_cmd *cmds)
{
    for (int i = 0; i < ncmds; i++) {
        if (cmds[i].flags != 0) {
            cmds[i].result = -EINVAL;
            return i;
        }
        struct epoll_event ev = {.events = cmds[i].events, .data.u64 = cmds[i].data};
        if (epoll_ctl(epfd, cmds[i].op, cmds[i].fd, &ev) < 0) {
            cmds[i].result = -errno;
            return i;
        }
        cmds[i].result = 0;
    }
    return ncmds;
}

/* ---------------------------------------------------------- io_uring path */

#ifdef VIGIL_HAVE_LIBURING
/* 0 when the thread's ring is up, else a negative errno (io_uring refused). */
static int ring_get(struct tstate *t)
{
    if (t->ring_state == 1)
        return 0;
    if (t->ring_state < 0)
        return t->ring_state;
    if (atomic_load_explicit(&uring_refused, memory_order_relaxed)) {
        t->ring_state = -ENOSYS;
        return t->ring_state;
    }
    char why[96];
    unsigned flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    int r = vigil__uring_setup(&t->ring, RING_ENTRIES, 0, &flags, why, sizeof why);
    if (r == 0) {
        static const uint8_t ops[] = {IORING_OP_EPOLL_CTL};
        r = vigil__uring_probe_ops(&t->ring, ops, 1, why, sizeof why);
        if (r < 0)
            vigil__uring_exit(&t->ring);
    }
    if (r < 0) {
        /* ENOMEM is this moment's problem; anything else is the kernel's policy. */
        if (r != -ENOMEM)
            atomic_store_explicit(&uring_refused, 1, memory_order_relaxed);
        t->ring_state = r == -ENOMEM ? 0 : -ENOSYS;
        return r == -ENOMEM ? -ENOMEM : -ENOSYS;
    }
    t->ring_state = 1;
    return 0;
}

/* Waits until n completions are in the ring (the submission already happened). */
static int ring_wait(struct io_uring *ring, unsigned n)
{
    while (io_uring_cq_ready(ring) < n) {
        int r = io_uring_enter(ring->ring_fd, 0, n - io_uring_cq_ready(ring), IORING_ENTER_GETEVENTS, NULL);
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
            return r;
    }
    return 0;
}

/* Runs cmds[0..n) (n <= RING_ENTRIES, flags already checked) as one linked chain.
 * Returns the index of the first failing entry, or n, or a negative errno when the
 * ring itself failed before anything ran. */
static int chain_run(struct tstate *t, int epfd, int n, struct vigil_epoll_ctl_cmd *cmds)
{
    struct io_uring *ring = &t->ring;
    for (int i = 0; i < n; i++) {
        /* The ring is empty between calls, so n <= RING_ENTRIES SQEs always fit; if it
         * ever is not, nothing has been submitted yet: take back what we prepared. */
        struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
        if (!sqe) {
            ring->sq.sqe_tail = ring->sq.sqe_head;
            return -EBUSY;
        }
        t->ev[i].events = cmds[i].events;
        t->ev[i].data.u64 = cmds[i].data;
        io_uring_prep_epoll_ctl(sqe, epfd, cmds[i].fd, cmds[i].op, &t->ev[i]);
        sqe->user_data = (uint64_t)i;
        if (i + 1 < n)
            sqe->flags |= IOSQE_IO_LINK;
    }
    int r;
    do {
        r = io_uring_submit_and_wait(ring, (unsigned)n);
        /* io_uring_enter reports EINTR only when it consumed nothing (a signal before
         * the submission): submit again. After a submission it returns the count. */
    } while (r == -EINTR && io_uring_sq_ready(ring) > 0);
    if (r < 0 && io_uring_sq_ready(ring) == (unsigned)n) {
        /* The kernel refused the enter and consumed nothing: take the SQEs back
         * (rewind the tail the kernel reads, so the next enter does not run them). */
        unsigned h = *ring->sq.khead;
        ring->sq.sqe_head = ring->sq.sqe_tail = h;
        io_uring_smp_store_release(ring->sq.ktail, h);
        return r;
    }
    /* Every SQE completes (done, failed, or cancelled by the link): collect all n so
     * the ring is empty for the next call, even after a signal. */
    r = ring_wait(ring, (unsigned)n);
    if (r < 0)
        return r;
    int first_fail = n;
    int32_t res[RING_ENTRIES];
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(ring, head, cqe)
    {
        if (seen == (unsigned)n)
            break;
        uint64_t i = cqe->user_data;
        if (i < (uint64_t)n)
            res[i] = cqe->res;
        seen++;
    }
    io_uring_cq_advance(ring, seen);
    for (int i = 0; i < n; i++) {
        if (res[i] < 0) {
            /* The first failure is the real one; entries after it were cancelled by
             * the link and did not run: their result stays as the caller left it. */
            cmds[i].result = res[i];
            first_fail = i;
            break;
        }
        cmds[i].result = 0;
    }
    return first_fail;
}

static int batch_uring(struct tstate *t, int epfd, int ncmds, struct vigil_epoll_ctl_cmd *cmds)
{
    int done = 0;
    while (done < ncmds) {
        int n = ncmds - done < RING_ENTRIES ? ncmds - done : RING_ENTRIES;
        /* A reserved flag set on an entry fails that entry before it reaches the
         * kernel: run only what precedes it. */
        int bad = -1;
        for (int i = 0; i < n; i++) {
            if (cmds[done + i].flags != 0) {
                bad = i;
                n = i;
                break;
            }
        }
        if (n > 0) {
            int r = chain_run(t, epfd, n, cmds + done);
            if (r < 0) {
                /* The ring failed as a whole and nothing of this chunk ran: the epoll
                 * path finishes the batch with the same results. */
                return done + batch_epoll(epfd, ncmds - done, cmds + done);
            }
            done += r;
            if (r < n)
                return done;
        }
        if (bad >= 0) {
            cmds[done].result = -EINVAL;
            return done;
        }
    }
    return done;
}
#endif

int vigil_epoll_ctl_batch(int epfd, int flags, int ncmds, struct vigil_epoll_ctl_cmd *cmds)
{
    if (flags != 0 || cmds == NULL || ncmds <= 0 || (size_t)ncmds > INT_MAX / sizeof(struct vigil_epoll_ctl_cmd)) {
        errno = EINVAL;
        return -1;
    }
    struct tstate *t = tstate_get();
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
#ifdef VIGIL_HAVE_LIBURING
    /* One command is one system call either way, and a plain epoll_ctl costs half an
     * io_uring_enter that submits and waits (docs/figures.md): unless the io_uring
     * path is forced (tests, the lab), a single command takes the epoll path. */
    if (forced_path == PATH_URING || (forced_path == PATH_AUTO && ncmds > 1)) {
        int r = ring_get(t);
        if (r == 0)
            return batch_uring(t, epfd, ncmds, cmds);
        if (forced_path == PATH_URING) {
            errno = r == -ENOMEM ? ENOMEM : ENOSYS;
            return -1;
        }
    }
#else
    if (forced_path == PATH_URING) {
        errno = ENOSYS;
        return -1;
    }
#endif
    return batch_epoll(epfd, ncmds, cmds);
}

/* ----------------------------------------------------------- epoll_pwait1 */

#define EP_MAX_EVENTS ((int)(INT_MAX / sizeof(struct epoll_event)))

static int fail(int e)
{
    errno = e;
    return -1;
}

/* Waits on epfd with an absolute deadline on clock c (a timerfd armed with
 * TFD_TIMER_ABSTIME: a clock set while we sleep moves the wake-up with it). */
static int wait_abs(int epfd, struct epoll_event *events, int maxevents, clockid_t c, int64_t deadline_ns,
                    const sigset_t *sigmask)
{
    /* Validates epfd (EBADF, EINVAL) exactly as the kernel would, and returns at once
     * when events are already there. */
    int n = epoll_wait(epfd, events, maxevents, 0);
    if (n != 0)
        return n;
    struct tstate *t = tstate_get();
    if (!t)
        return fail(ENOMEM);
    int *tfd = c == CLOCK_REALTIME ? &t->tfd_real : &t->tfd_mono;
    if (*tfd < 0) {
        *tfd = timerfd_create(c, TFD_CLOEXEC | TFD_NONBLOCK);
        if (*tfd < 0)
            return -1;
    }
    struct itimerspec its = {.it_value = vigil__ns_to_ts(deadline_ns)};
    /* Re-arming also clears an expiry left over from an earlier call. */
    if (timerfd_settime(*tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -1;
    for (;;) {
        struct pollfd pfd[2] = {{.fd = epfd, .events = POLLIN}, {.fd = *tfd, .events = POLLIN}};
        int r = ppoll(pfd, 2, NULL, sigmask);
        if (r < 0)
            return -1; /* EINTR: a handler ran */
        if (pfd[0].revents) {
            n = epoll_wait(epfd, events, maxevents, 0);
            if (n != 0)
                return n;
            /* Another thread took the events: wait on, the deadline still holds. */
        }
        if (pfd[1].revents)
            return 0;
    }
}

int vigil_epoll_pwait1(int epfd, int flags, struct epoll_event *events, int maxevents,
                       struct vigil_epoll_wait_params *params)
{
    if (flags != 0)
        return fail(EINVAL);
    if (params == NULL)
        return fail(EFAULT);
    if (params->clockid != CLOCK_REALTIME && params->clockid != CLOCK_MONOTONIC)
        return fail(EINVAL);
    const struct timespec *to = params->timeout;
    if (to && !vigil__ts_valid(to))
        return fail(EINVAL);
    const sigset_t *mask = params->sigmask;
    if (mask && params->sigsetsize != _NSIG / 8 && params->sigsetsize != sizeof(sigset_t))
        return fail(EINVAL);
    if (maxevents <= 0 || maxevents > EP_MAX_EVENTS)
        return fail(EINVAL);
    if (events == NULL)
        return fail(EFAULT);

    if (to == NULL)
        return epoll_pwait(epfd, events, maxevents, -1, mask);
    if (to->tv_sec == 0 && to->tv_nsec == 0)
        return epoll_pwait(epfd, events, maxevents, 0, mask);

    /* The deadline on the chosen clock, fixed now (saturating far futures). */
    clockid_t c = params->clockid;
    if (c == CLOCK_MONOTONIC && vigil__have_epoll_pwait2())
        return (int)syscall(SYS_epoll_pwait2, epfd, events, maxevents, to, mask, (size_t)(_NSIG / 8));
    int64_t now = vigil__clock_ns(c);
    int64_t rel = to->tv_sec > (INT64_MAX - VIGIL__NS_PER_S) / VIGIL__NS_PER_S ? INT64_MAX : vigil__ts_to_ns(to);
    int64_t deadline = rel > INT64_MAX - now ? INT64_MAX : now + rel;
    return wait_abs(epfd, events, maxevents, c, deadline, mask);
}

/* For tests: which path vigil_epoll_ctl_batch takes in this thread (1 io_uring,
 * 2 epoll, or a negative errno when forced to a refused io_uring). */
int vigil__epoll1_path(void);
int vigil__epoll1_path(void)
{
    struct tstate *t = tstate_get();
    if (!t)
        return -ENOMEM;
    if (forced_path == PATH_EPOLL)
        return PATH_EPOLL;
#ifdef VIGIL_HAVE_LIBURING
    if (ring_get(t) == 0)
        return PATH_URING;
#endif
    return forced_path == PATH_URING ? -ENOSYS : PATH_EPOLL;
}
