/* Who hears of a change: the POSIX notification (one registration per queue, taken by
 * the send that turns the queue non-empty, delivered after the unlock) and the loop
 * watchers' count and readiness. The SIGEV_THREAD helper threads that wait on
 * notify_seq are posix.c's. Calls the lock (queue_int.h) and the futex wrappers.
 */
#include "mq/queue_int.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------ notification */

void vigil__mq_notify_take(struct vigil__mq_hdr *h, struct vigil__mq_fire *f)
{
    /* One-shot: the registration ends as it fires. */
    f->kind = h->notify_kind;
    f->pid = h->notify_pid;
    f->signo = h->notify_signo;
    f->value = h->notify_value;
    /* Atomic (relaxed): SIGEV_THREAD helpers read it without the lock (posix.c
     * helper_main). The release bump of notify_seq below orders it before their
     * wake-up; a helper that reads it early sees the old token and waits again. */
    __atomic_store_n(&h->fired_token, h->notify_token, __ATOMIC_RELAXED);
    h->notify_pid = 0;
    if (f->kind == SIGEV_THREAD)
        atomic_fetch_add_explicit(&h->notify_seq, 1, memory_order_release);
}

void vigil__mq_notify_deliver(const struct vigil__mq_fire *f, struct vigil__mq_hdr *h)
{
    if (f->kind == SIGEV_SIGNAL) {
        if (f->signo == 0)
            return; /* registered with signal 0: fires, sends nothing (as the kernel) */
        if (f->signo < 0 || f->signo >= NSIG)
            return; /* not a value vigil_mq_notify stored: scribbled */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        si.si_signo = f->signo;
        si.si_code = SI_MESGQ;
        si.si_pid = getpid();
        si.si_uid = getuid();
        si.si_value.sival_ptr = (void *)(uintptr_t)f->value;
        /* EPERM (another user's process) or ESRCH (it died): dropped, as documented. */
        syscall(SYS_rt_sigqueueinfo, f->pid, f->signo, &si);
    } else if (f->kind == SIGEV_THREAD) {
        vigil__futex_wake(&h->notify_seq, INT_MAX);
    }
}

int vigil__mq_notify_set(struct vigil__mq *q, int32_t pid, const struct sigevent *sev, uint64_t token)
{
    struct vigil__mq_hdr *h = q->h;
    int r = qlock(q);
    if (r < 0)
        return r;
    int32_t owner = h->notify_pid;
    if (!sev) {
        if (owner == pid)
            h->notify_pid = 0;
        qunlock(q);
        return 0;
    }
    /* One registration per queue, even for the same process (as the kernel). A
     * registered process that no longer exists does not hold the queue forever. */
    if (owner && (owner == pid || !(kill(owner, 0) < 0 && errno == ESRCH))) {
        qunlock(q);
        return -EBUSY;
    }
    h->notify_pid = pid;
    h->notify_kind = sev->sigev_notify;
    h->notify_signo = sev->sigev_signo;
    h->notify_value = (uint64_t)(uintptr_t)sev->sigev_value.sival_ptr;
    h->notify_token = token;
    qunlock(q);
    return 0;
}

void vigil__mq_notify_drop(struct vigil__mq *q, int32_t pid)
{
    if (qlock(q) < 0)
        return;
    if (q->h->notify_pid == pid)
        q->h->notify_pid = 0;
    qunlock(q);
}

/* ------------------------------------------------------------ loop watchers */

int vigil__mq_ready(struct vigil__mq *q, uint32_t events)
{
    /* Racy snapshots, read after the caller loaded state_seq (acquire): a change made
     * after that load also bumped state_seq, so a wait armed with the loaded value
     * returns at once. */
    uint32_t cur = __atomic_load_n(&q->h->curmsgs, __ATOMIC_RELAXED);
    if (cur > q->maxmsg)
        return -EBADMSG;
    int m = 0;
    if ((events & 0x001u) && cur > 0)
        m |= 0x001; /* VIGIL_READ */
    if ((events & 0x004u) && cur < q->maxmsg)
        m |= 0x004; /* VIGIL_WRITE */
    return m;
}

int vigil__mq_watchers(struct vigil__mq *q, int delta)
{
    /* Counted across processes; a watcher that dies leaves the count high, which only
     * costs the queue's users a futex wake on each turn to non-empty/non-full. */
    if (delta < 0) {
        if (atomic_load_explicit(&q->h->watchers, memory_order_relaxed))
            atomic_fetch_sub_explicit(&q->h->watchers, 1, memory_order_relaxed);
        return 0;
    }
    /* Changed under the lock: a sender that locks after us sees the count and wakes;
     * one that locked before us finished its change before our first look. */
    int r = qlock(q);
    if (r < 0)
        return r;
    atomic_fetch_add_explicit(&q->h->watchers, 1, memory_order_relaxed);
    qunlock(q);
    return 0;
}
