/* libFuzzer harness for the shared-memory queue: the queue image AND the sequence of
 * operations, including the deaths of lock owners and waiters and the recovery that
 * follows. Whatever the bytes, the library must return errors (EBADMSG), never crash,
 * never read or write outside the image (ASan watches), never hang (libFuzzer's
 * -timeout watches). While an input has done nothing a real process could not do (no
 * scribble), every answer is also checked against a model of the queue: an EBADMSG, a
 * lost or duplicated message, a wrong order or count is a failure (abort).
 *
 * INPUT FORMAT
 *   byte 0        configuration: bits 0-1 pick a geometry (maxmsg x msgsize: 16x64,
 *                 1x8, 4x33, 64x16); bits 2-7 a number n of messages sent at start
 *                 (priorities 0, 3, 6, 9 in turn, capped at maxmsg), of which n / 4 are
 *                 received again, so the free list is not empty.
 *   then 8-byte records [op, a, b, c, d0, d1, d2, d3], run in order:
 *   op < 128      scribble (a hostile process with write access): value32 = d0..d3
 *                 stored at the 4-aligned offset (b | c << 8) * 4 of a region picked by
 *                 a & 3: header (a & 4: only the part after the identity), waiter
 *                 records, priority heads (a & 4: only 0..15), slots; a & 8 keeps the
 *                 value below 32. Scribbles before the first operation land before the
 *                 image is attached (identity checks); later ones land between
 *                 operations. Any scribble ends the model's checks for this input.
 *   op >= 128     operation (op - 128) % 14:
 *     0  send, non-blocking: length a % (msgsize + 2), priority b | (d0 & 0x7f) << 8
 *        (plus 32768, invalid, when d0 & 0xc0 == 0xc0), bytes all c
 *     1  send with a deadline already past (d1 & 1: an invalid timespec); after two
 *        blocking calls in one input, the rest are non-blocking (each spins ~20 us)
 *     2  receive, non-blocking (a & 0x80: a buffer one byte short: EMSGSIZE)
 *     3  receive with a deadline already past (b & 1: an invalid timespec)
 *     4  curmsgs and vigil__mq_ready(events a & 5)
 *     5  the invariant checker (vigil__mq_check)
 *     6  notify: pid a % 3 (this process, a dead one, a live one: init), kind b % 4
 *        (unregister, SIGEV_NONE, SIGEV_SIGNAL with signal c % 70, SIGEV_THREAD)
 *     7  the lock's owner dies holding it: lockw = tid a % 4 (a dead thread, an id no
 *        kernel hands out, a live foreign thread: init, our own: the last two taint)
 *     8  a sender dies holding the lock after step a % 5 of its send (0 locked,
 *        1 slot taken, 2 filled, 3 linked: the commit, 4 counted and notified);
 *        priority as in 0, length c % (msgsize + 1), bytes all d1
 *     9  a receiver dies holding the lock after step a % 4 of its receive (0 locked,
 *        1 head moved past the first message: the commit, 2 counted, 3 slot freed)
 *    10  a receiver blocks (takes a record) and dies; a & 1: it died asleep, else
 *        polling (a sender hands it its message, which it never takes). Only on an
 *        empty queue while the model runs.
 *    11  a sender blocks and dies: with a record (a & 1; a & 2 polling, a & 4
 *        asleep) or counted as a spare waiter. Only on a full queue while the model
 *        runs.
 *    12  a process settling a dead receiver's hand-off (the lowest record) dies after
 *        putting the message back in the queue, before freeing the record (rec_reap,
 *        recover())
 *    13  a loop watcher comes (a & 1) or goes
 *   A thread that dies holding the lock is settled by the next call that takes it
 *   (takeover + recover()); the harness settles it before it fakes another death.
 *
 * Built two ways: with clang's libFuzzer (fuzz/CMakeLists.txt, VIGIL_FUZZ: the library
 * itself instrumented, scripts/fuzz.sh) and with driver.c, a deterministic random
 * driver that ctest runs under gcc's ASan/UBSan.
 */
#include "mq/mq_int.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NGEOM 4
#define MAX_MSGSIZE 64
#define MAX_MAXMSG 64
#define MAX_BLOCKING 2 /* blocking calls per input: each spins (and yields) ~20 us first */

static const struct {
    uint32_t maxmsg, msgsize;
} geoms[NGEOM] = {{16, 64}, {1, 8}, {4, 33}, {64, 16}};

static unsigned char *pristine[NGEOM], *work;
static size_t image_bytes[NGEOM];
static uint32_t tid_dead;  /* a reaped child: the kernel knows no such thread (now) */
static int32_t pid_self;

/* Outcomes, so the driver can show the harness reaches both the good and bad paths. */
unsigned long mq_fuzz_ok, mq_fuzz_badmsg, mq_fuzz_other, mq_fuzz_unattached, mq_fuzz_checked;

static void *map_image(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        abort();
    return p;
}

static void init(void)
{
    size_t most = 0;
    for (int g = 0; g < NGEOM; g++) {
        image_bytes[g] = vigil__mq_bytes(geoms[g].maxmsg, geoms[g].msgsize);
        pristine[g] = map_image(image_bytes[g]);
        if (vigil__mq_format(pristine[g], image_bytes[g], geoms[g].maxmsg, geoms[g].msgsize) < 0)
            abort();
        if (image_bytes[g] > most)
            most = image_bytes[g];
    }
    work = map_image(most);
    pid_self = (int32_t)getpid();
}

/* A thread id the kernel does not know: a child that exited and was reaped. Checked
 * before every input, as ids are reused (pid_max is often 32768, and a busy machine
 * goes round it in minutes): a reused one would make the model's dead thread alive. */
static void dead_tid_refresh(void)
{
    if (tid_dead && kill((pid_t)tid_dead, 0) < 0 && errno == ESRCH)
        return;
    pid_t p = fork();
    if (p < 0)
        abort();
    if (p == 0)
        _exit(0);
    if (waitpid(p, NULL, 0) != p)
        abort();
    tid_dead = (uint32_t)p;
}

/* ------------------------------------------------------------------- the model */

struct msg {
    uint32_t prio;
    uint8_t len, fill;
};

/* What the queue must hold, while the input stays within what real processes do. */
static struct {
    int clean;        /* no scribble yet: every answer is predicted */
    uint32_t maxmsg, msgsize;
    unsigned n;       /* queued messages, in receive order within each priority */
    struct msg q[MAX_MAXMSG];
    unsigned nlimbo;  /* messages handed to receivers that died before taking them */
    struct {
        struct msg m;
        uint32_t rec;
    } limbo[MAX_MAXMSG];
    unsigned nwait;   /* dead receivers' WAITING records, oldest first */
    struct {
        uint32_t rec;
        int takes;    /* polling, not asleep: a sender hands it a message unasked */
    } wait[VIGIL__MQ_NREC];
    int32_t notify_pid;
    int pending;      /* the lock names a dead owner: counts are stale until a takeover */
    unsigned blocking;
} M;

#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (M.clean && !(cond)) {                                                        \
            fprintf(stderr, "mq_fuzz: model disagrees at %s:%d: %s\n", __FILE__, __LINE__, \
                    #cond);                                                              \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static void m_push_front(struct msg m)
{
    memmove(&M.q[1], &M.q[0], M.n * sizeof M.q[0]);
    M.q[0] = m;
    M.n++;
}

/* Index of the message a receive takes: highest priority, first queued. */
static unsigned m_first(void)
{
    unsigned best = 0;
    for (unsigned i = 1; i < M.n; i++)
        if (M.q[i].prio > M.q[best].prio)
            best = i;
    return best;
}

static struct msg m_take(void)
{
    unsigned i = m_first();
    struct msg m = M.q[i];
    memmove(&M.q[i], &M.q[i + 1], (M.n - i - 1) * sizeof M.q[0]);
    M.n--;
    return m;
}

/* Every dead waiter is settled (a receive on an empty queue, or recovery): their
 * records are freed, a handed-off message goes back to the front of its priority, in
 * the order of the records. */
static void m_settle_all(void)
{
    for (uint32_t r = 0; r < VIGIL__MQ_NREC; r++)
        for (unsigned i = 0; i < M.nlimbo; i++)
            if (M.limbo[i].rec == r)
                m_push_front(M.limbo[i].m);
    M.nlimbo = 0;
    M.nwait = 0;
}

static bool m_alive(int32_t pid)
{
    return pid != 0 && (uint32_t)pid != tid_dead;
}

/* ----------------------------------------------------------------- operations */

static void tally(long r)
{
    if (r >= 0)
        mq_fuzz_ok++;
    else if (r == -EBADMSG)
        mq_fuzz_badmsg++;
    else
        mq_fuzz_other++;
}

static struct vigil__mq_slot *slot(struct vigil__mq *q, uint32_t ref)
{
    return (struct vigil__mq_slot *)(q->slots + (size_t)(ref - 1) * q->stride);
}

/* The deadline of a blocking call: already past, or invalid; NULL when the input has
 * used its blocking calls (the call is then non-blocking). */
static const struct timespec *deadline(int invalid, int *nonblock)
{
    static const struct timespec past = {1, 0}, bad = {0, 1000000000L};
    if (M.blocking >= MAX_BLOCKING) {
        *nonblock = 1;
        return NULL;
    }
    M.blocking++;
    *nonblock = 0;
    return invalid ? &bad : &past;
}

/* The error a call that cannot go on returns. */
static int would_block(int nonblock, const struct timespec *ts)
{
    if (nonblock)
        return -EAGAIN;
    return ts->tv_nsec >= 1000000000L ? -EINVAL : -ETIMEDOUT;
}

static void op_send(struct vigil__mq *q, size_t len, unsigned prio, uint8_t fill, const struct timespec *ts,
                    int nonblock)
{
    char buf[MAX_MSGSIZE + 2];
    memset(buf, fill, sizeof buf);
    int r = vigil__mq_send(q, buf, len, prio, ts, nonblock);
    tally(r);
    if (prio >= VIGIL__MQ_NPRIO) {
        EXPECT(r == -EINVAL);
        return;
    }
    if (len > M.msgsize) {
        EXPECT(r == -EMSGSIZE);
        return;
    }
    M.pending = 0; /* it took the lock: a dead owner's takeover is done */
    if (M.n + M.nlimbo >= M.maxmsg) { /* no slot: full, or the rest are handed off */
        EXPECT(r == would_block(nonblock, ts));
        return;
    }
    EXPECT(r == 0);
    if (!M.clean || r != 0)
        return;
    struct msg m = {prio, (uint8_t)len, fill};
    /* The oldest waiting receiver: a polling one gets the message; a dead sleeper is
     * settled on the way. */
    while (M.nwait) {
        int takes = M.wait[0].takes;
        uint32_t rec = M.wait[0].rec;
        memmove(&M.wait[0], &M.wait[1], --M.nwait * sizeof M.wait[0]);
        if (takes) {
            M.limbo[M.nlimbo].m = m;
            M.limbo[M.nlimbo++].rec = rec;
            return;
        }
    }
    if (M.n == 0)
        M.notify_pid = 0; /* the registration fired */
    M.q[M.n++] = m;
}

static void op_receive(struct vigil__mq *q, int short_buf, const struct timespec *ts, int nonblock)
{
    char buf[MAX_MSGSIZE];
    unsigned prio = ~0u;
    ssize_t r = vigil__mq_receive(q, buf, short_buf ? q->msgsize - 1 : q->msgsize, &prio, ts, nonblock);
    if (r > (ssize_t)q->msgsize)
        abort(); /* a length the caller's buffer cannot hold */
    tally(r);
    if (short_buf) {
        EXPECT(r == -EMSGSIZE);
        return;
    }
    M.pending = 0;
    if (M.n == 0)
        m_settle_all(); /* an empty queue: dead receivers' messages come back first */
    if (M.n == 0) {
        EXPECT(r == would_block(nonblock, ts));
        return;
    }
    EXPECT(r >= 0);
    if (!M.clean || r < 0)
        return;
    struct msg m = m_take();
    EXPECT(r == m.len && prio == m.prio);
    for (ssize_t i = 0; i < r; i++)
        EXPECT((uint8_t)buf[i] == m.fill);
}

/* A locking call with no effect, so a dead owner is settled before another death is
 * faked on top of it (the next process to lock would settle it first). */
static void settle(struct vigil__mq *q)
{
    if (!M.pending)
        return;
    int r = vigil__mq_watchers(q, 1);
    tally(r);
    EXPECT(r == 0);
    vigil__mq_watchers(q, -1);
    M.pending = 0;
}

/* The lock now names a dead owner; the next call that locks recovers. */
static void died_locked(struct vigil__mq *q, uint32_t tid)
{
    atomic_store_explicit(&q->h->lockw, tid, memory_order_relaxed);
    M.pending = 1;
    m_settle_all(); /* recovery: dead waiters settled */
}

static uint32_t pick_tid(uint8_t a)
{
    switch (a % 4) {
    case 0:
        return tid_dead;
    case 1:
        return 0x7fffffffu; /* no kernel hands it out: a scribble, treated as dead */
    case 2:
        M.clean = 0; /* a live foreign owner: every call is EAGAIN (trylock_only) */
        return 1;
    default:
        M.clean = 0; /* "held by us" while we do not hold it: EBADMSG */
        return (uint32_t)pid_self;
    }
}

static unsigned send_prio(const uint8_t *r)
{
    unsigned prio = (unsigned)r[2] | (unsigned)(r[4] & 0x7f) << 8;
    return (r[4] & 0xc0) == 0xc0 ? prio + VIGIL__MQ_NPRIO : prio;
}

/* Step by step, what send.c does on an uncontended send, then the sender dies. */
static void crash_send(struct vigil__mq *q, const uint8_t *r)
{
    struct vigil__mq_hdr *h = q->h;
    settle(q);
    unsigned step = r[1] % 5, prio = send_prio(r) % VIGIL__MQ_NPRIO;
    size_t len = r[3] % (q->msgsize + 1);
    /* Past step 0 only on a sound image with a free slot and no receiver waiting
     * (send.c would hand the slot over instead). */
    if (!M.clean || M.n + M.nlimbo >= M.maxmsg || M.nwait)
        step = 0;
    died_locked(q, tid_dead);
    if (step < 1)
        return;
    uint32_t ref = h->free_head;
    if (ref)
        h->free_head = slot(q, ref)->next;
    else
        ref = ++h->fresh;
    if (step < 2)
        return;
    struct vigil__mq_slot *s = slot(q, ref);
    memset(s->data, r[5], len);
    s->len = (uint32_t)len;
    s->prio = prio;
    s->next = 0;
    if (step < 3)
        return;
    struct vigil__mq_head *hd = &q->heads[prio];
    if (hd->head)
        slot(q, hd->tail)->next = ref; /* commit */
    else
        hd->head = ref; /* commit */
    struct msg m = {prio, (uint8_t)len, r[5]};
    if (step >= 4) {
        hd->tail = ref;
        if (h->curmsgs == 0 && h->notify_pid) {
            h->notify_pid = 0;
            M.notify_pid = 0;
        }
        h->curmsgs++;
    }
    M.q[M.n++] = m;
}

/* Step by step, what receive.c does, then the receiver dies (it had the bytes). */
static void crash_receive(struct vigil__mq *q, const uint8_t *r)
{
    struct vigil__mq_hdr *h = q->h;
    settle(q);
    unsigned step = r[1] % 4;
    if (!M.clean || M.n == 0)
        step = 0;
    if (step == 0) {
        died_locked(q, tid_dead);
        return;
    }
    /* The model takes the message first: dead receivers' hand-offs are settled by
     * the recovery after this death, so they go back in front of what is left. */
    uint32_t p = m_take().prio, ref = q->heads[p].head;
    died_locked(q, tid_dead);
    struct vigil__mq_slot *s = slot(q, ref);
    q->heads[p].head = s->next; /* commit: the message is the dead receiver's */
    if (step >= 2)
        h->curmsgs--;
    if (step >= 3) {
        s->next = h->free_head;
        h->free_head = ref;
    }
}

/* A free record taken for a dead thread of this kind, as rec_take does; -1 if none. */
static int fake_waiter(struct vigil__mq *q, uint32_t kind, int polling, int asleep)
{
    struct vigil__mq_hdr *h = q->h;
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++) {
        struct vigil__mq_rec *w = &q->recs[i];
        if (atomic_load_explicit(&w->state, memory_order_relaxed) != VIGIL__REC_FREE)
            continue;
        w->kind = kind;
        w->ticket = h->ticket++;
        if (h->rec_hwm < i + 1 || h->rec_hwm > VIGIL__MQ_NREC)
            h->rec_hwm = i + 1;
        w->slot = 0;
        w->owner_tid = tid_dead;
        /* Polling until the end of time: taken as alive without asking the kernel. */
        w->spin_until_ns = polling ? (uint64_t)INT64_MAX : 0;
        atomic_store_explicit(&w->sleeping, asleep ? 1 : 0, memory_order_relaxed);
        atomic_store_explicit(&w->state, VIGIL__REC_WAITING, memory_order_relaxed);
        h->nrec_busy++;
        return (int)i;
    }
    return -1;
}

static void dead_receiver(struct vigil__mq *q, uint8_t a)
{
    settle(q);
    if (M.clean && M.n != 0)
        return; /* a receiver waits only on an empty queue */
    int asleep = a & 1, polling = !asleep;
    int i = fake_waiter(q, VIGIL__REC_RECV, polling, asleep);
    if (i >= 0 && M.clean) {
        M.wait[M.nwait].rec = (uint32_t)i;
        M.wait[M.nwait++].takes = polling;
    }
}

static void dead_sender(struct vigil__mq *q, uint8_t a)
{
    settle(q);
    if (M.clean && M.n + M.nlimbo < M.maxmsg)
        return; /* a sender waits only when no slot is left */
    if (a & 1)
        fake_waiter(q, VIGIL__REC_SEND, (a & 2) != 0, (a & 4) != 0);
    else
        q->h->spare_waiters++; /* it died asleep on the spare word: the count stays */
}

/* A settler (rec_reap, recover) put a dead receiver's message back at the front of
 * its priority and died before freeing the record. */
static void crash_settling(struct vigil__mq *q)
{
    struct vigil__mq_hdr *h = q->h;
    settle(q);
    if (!M.clean || M.nlimbo == 0)
        return;
    /* Settlers go through the records in order: the lowest first. */
    unsigned k = 0;
    for (unsigned i = 1; i < M.nlimbo; i++)
        if (M.limbo[i].rec < M.limbo[k].rec)
            k = i;
    uint32_t rec = M.limbo[k].rec, ref = q->recs[rec].slot;
    struct vigil__mq_slot *s = slot(q, ref);
    struct vigil__mq_head *hd = &q->heads[s->prio];
    m_push_front(M.limbo[k].m);
    M.limbo[k] = M.limbo[--M.nlimbo];
    died_locked(q, tid_dead); /* recovery settles the other dead receivers */
    s->next = hd->head;
    if (!hd->head)
        hd->tail = ref;
    hd->head = ref; /* commit: the message is queued again */
    h->curmsgs++;
}

static void op_notify(struct vigil__mq *q, const uint8_t *r)
{
    const int32_t pids[3] = {pid_self, (int32_t)tid_dead, 1 /* init: alive, not us */};
    int32_t pid = pids[r[1] % 3];
    unsigned kind = r[2] % 4;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = kind == 1 ? SIGEV_NONE : kind == 2 ? SIGEV_SIGNAL : SIGEV_THREAD;
    ev.sigev_signo = r[3] % 70;
    int ret = vigil__mq_notify_set(q, pid, kind ? &ev : NULL, r[4]);
    tally(ret);
    M.pending = 0;
    if (!kind) {
        EXPECT(ret == 0);
        if (M.notify_pid == pid)
            M.notify_pid = 0;
    } else if (M.notify_pid && (M.notify_pid == pid || m_alive(M.notify_pid))) {
        EXPECT(ret == -EBUSY);
    } else {
        EXPECT(ret == 0);
        M.notify_pid = pid;
    }
}

static void scribble(unsigned char *base, size_t bytes, const uint8_t *r)
{
    uint32_t off = (uint32_t)r[2] | (uint32_t)r[3] << 8, val;
    memcpy(&val, r + 4, 4);
    struct vigil__mq_hdr *h = (struct vigil__mq_hdr *)base;
    size_t from, span;
    switch (r[1] & 3) {
    case 0: /* header, mostly the mutable part after the identity */
        from = (r[1] & 4) ? offsetof(struct vigil__mq_hdr, lockw) : 0;
        span = sizeof *h - from;
        break;
    case 1:
        from = h->off_recs;
        span = VIGIL__MQ_NREC * sizeof(struct vigil__mq_rec);
        break;
    case 2: /* heads of the priorities used most (0..15) or anywhere */
        from = h->off_heads;
        span = (r[1] & 4) ? 16 * sizeof(struct vigil__mq_head) : VIGIL__MQ_NPRIO * sizeof(struct vigil__mq_head);
        break;
    default:
        from = h->off_slots;
        span = bytes - from;
        break;
    }
    /* The offsets are the pristine image's (a scribble on the identity before the
     * attach is refused by it, after it is never read again). Small values hit the
     * boundaries. */
    if (r[1] & 8)
        val &= 0x1f;
    size_t at = (from + ((size_t)off * 4) % span) & ~(size_t)3;
    if (at + 4 <= bytes)
        memcpy(base + at, &val, 4);
    M.clean = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!work)
        init();
    dead_tid_refresh();
    if (size < 1)
        return 0;
    unsigned g = data[0] & 3;
    size_t bytes = image_bytes[g];
    memcpy(work, pristine[g], bytes);
    memset(&M, 0, sizeof M);
    M.clean = 1;
    M.maxmsg = geoms[g].maxmsg;
    M.msgsize = geoms[g].msgsize;
    M.blocking = MAX_BLOCKING; /* the prefill does not block */
    struct vigil__mq q;
    if (vigil__mq_attach(&q, work, bytes) < 0)
        abort();
    q.trylock_only = 1; /* a scribbled "held" lock must not hang the harness */
    q.no_signal = 1;    /* a scribbled registration must not signal real processes */
    unsigned fill = data[0] >> 2;
    for (unsigned i = 0; i < fill && i < M.maxmsg; i++)
        op_send(&q, (i * 5) % (M.msgsize + 1), (i % 4) * 3, (uint8_t)('a' + i), NULL, 1);
    for (unsigned i = 0; i < fill / 4; i++)
        op_receive(&q, 0, NULL, 1);
    M.blocking = 0;

    data++, size--;
    size_t n = size / 8;
    int attached = 0;
    char why[128];
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = data + i * 8;
        if (r[0] < 128) {
            scribble(work, bytes, r);
            continue;
        }
        if (!attached) {
            /* The first operation: a process attaches to the (scribbled) image. */
            if (vigil__mq_attach(&q, work, bytes) < 0) {
                mq_fuzz_unattached++;
                return 0;
            }
            q.trylock_only = 1;
            q.no_signal = 1;
            attached = 1;
        }
        int nonblock;
        const struct timespec *ts;
        switch ((r[0] - 128) % 14) {
        case 0:
            op_send(&q, r[1] % (q.msgsize + 2), send_prio(r), r[3], NULL, 1);
            break;
        case 1:
            ts = deadline(r[5] & 1, &nonblock);
            op_send(&q, r[1] % (q.msgsize + 2), send_prio(r), r[3], ts, nonblock);
            break;
        case 2:
            op_receive(&q, r[1] & 0x80, NULL, 1);
            break;
        case 3:
            ts = deadline(r[2] & 1, &nonblock);
            op_receive(&q, r[1] & 0x80, ts, nonblock);
            break;
        case 4: {
            long c = vigil__mq_curmsgs(&q);
            int ready = vigil__mq_ready(&q, r[1] & 5);
            tally(c);
            if (!M.pending) {
                EXPECT(c == (long)M.n);
                EXPECT(ready == (int)(((r[1] & 1) && M.n ? 1 : 0) | ((r[1] & 4) && M.n < M.maxmsg ? 4 : 0)));
            }
            break;
        }
        case 5: {
            int c = vigil__mq_check(&q, why, sizeof why);
            tally(c);
            M.pending = 0;
            mq_fuzz_checked++;
            if (M.clean && c != 0)
                fprintf(stderr, "mq_fuzz: check: %s\n", why);
            EXPECT(c == 0);
            break;
        }
        case 6:
            op_notify(&q, r);
            break;
        case 7:
            settle(&q);
            died_locked(&q, pick_tid(r[1]));
            break;
        case 8:
            crash_send(&q, r);
            break;
        case 9:
            crash_receive(&q, r);
            break;
        case 10:
            dead_receiver(&q, r[1]);
            break;
        case 11:
            dead_sender(&q, r[1]);
            break;
        case 12:
            crash_settling(&q);
            break;
        default:
            tally(vigil__mq_watchers(&q, (r[1] & 1) ? 1 : -1));
            if (r[1] & 1)
                M.pending = 0; /* +1 locks; -1 does not */
            break;
        }
    }
    /* A sound sequence leaves a sound queue, whatever died on the way. */
    if (attached && M.clean) {
        int c = vigil__mq_check(&q, why, sizeof why);
        mq_fuzz_checked++;
        if (c != 0)
            fprintf(stderr, "mq_fuzz: final check: %s\n", why);
        EXPECT(c == 0);
        EXPECT(vigil__mq_curmsgs(&q) == (long)M.n);
    }
    return 0;
}
