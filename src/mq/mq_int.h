/* src/mq/: the shared-memory queue, its POSIX front (posix.c) and its loop watcher
 * (watch.c, the only file here that calls src/loop and src/ring). This header: the
 * layout of one segment and the operations on it. Not installed; posix.c, watch.c, the
 * tests and the fuzz harness use it. The operations live in segment.c (geometry,
 * format, attach), lock.c (the lock, recovery, and the rules every file keeps), wait.c,
 * send.c, receive.c, notify.c (notification, loop watchers) and check.c; what they
 * share is queue_int.h.
 *
 * Layout of a segment (all offsets fixed by maxmsg and msgsize, recomputed and compared
 * at attach; nothing geometric is ever re-read from the segment after that):
 *
 *   hdr     identity (magic, version, geometry), the lock, the queue state guarded
 *           by it, the three-level priority bitmap, the notification record
 *   recs    VIGIL__MQ_NREC waiter records (one per blocked sender or receiver)
 *   heads   MQ_PRIO_MAX {head, tail} slot lists, one FIFO per priority
 *   slots   maxmsg message slots of `stride` bytes: {next, len, prio, mark, data}
 *
 * Slot references are stored as index + 1, so 0 means "none" and a freshly truncated
 * (all-zero) segment is already a valid empty queue; slots at or past `fresh` were never
 * used, so creating a deep queue touches no slot page.
 */
#ifndef VIGIL_MQ_INT_H
#define VIGIL_MQ_INT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "mq/futex.h" /* the futex words below are waited on and woken with it */
#include "vigil/mq.h"

#define VIGIL__MQ_MAGIC 0x31514d4c49474956ULL /* "VIGILMQ1" little-endian */
#define VIGIL__MQ_VERSION 1u
#define VIGIL__MQ_NREC 128u   /* blocked threads per queue with a record of their own */
#define VIGIL__MQ_NPRIO 32768u
#define VIGIL__MQ_SLOT_HDR 16u

/* Waiter record states. */
enum { VIGIL__REC_FREE = 0, VIGIL__REC_WAITING = 1, VIGIL__REC_READY = 2 };
/* Waiter kinds. */
enum { VIGIL__REC_RECV = 1, VIGIL__REC_SEND = 2 };

struct vigil__mq_rec {
    _Atomic uint32_t state;  /* VIGIL__REC_*; futex word the waiter sleeps on */
    uint32_t kind;           /* VIGIL__REC_RECV / SEND */
    uint32_t ticket;         /* FIFO order among waiters */
    uint32_t slot;           /* READY receiver: the handed-off slot (index + 1) */
    _Atomic uint32_t sleeping; /* the waiter is (about to be) in FUTEX_WAIT: wake it */
    uint32_t owner_tid;      /* the waiting thread: dead if the kernel does not know it */
    uint64_t spin_until_ns;  /* CLOCK_MONOTONIC end of its polling: later and not
                                sleeping means stuck or dead, worth a liveness check */
    _Atomic uint64_t ready_ns; /* hint, untrusted: CLOCK_MONOTONIC time the waker made
                                  it READY (the waiter learns how long it waited; others
                                  find a READY sleeper whose waker died before its wake) */
    uint32_t pad_[6];
};

struct vigil__mq_head {
    uint32_t head, tail;     /* slot index + 1, 0: empty */
};

struct vigil__mq_slot {
    uint32_t next;           /* next slot in its list (index + 1), 0: last */
    uint32_t len;            /* message length, <= msgsize */
    uint32_t prio;
    uint32_t mark;           /* recovery epoch that found this slot in use */
    unsigned char data[];
};

struct vigil__mq_hdr {
    /* identity: written once at creation, before the name is published */
    uint64_t magic;
    uint32_t version;
    uint32_t hdr_bytes;
    uint64_t total_bytes;
    uint32_t maxmsg, msgsize, stride, nrec;
    uint64_t off_recs, off_heads, off_slots;

    /* The queue lock (see lock.c, LOCKING): 0 free, else the owner's thread id. */
    alignas(64) _Atomic uint32_t lockw;
    _Atomic uint32_t lock_waiters; /* threads in FUTEX_WAIT on lockw */
    uint32_t broken;         /* recovery found the structure corrupt: EBADMSG forever */

    /* queue state, guarded by lock */
    uint32_t curmsgs;        /* also read without the lock: written atomically (curmsgs_set) */
    uint32_t free_head;      /* free slot list (index + 1) */
    uint32_t fresh;          /* slots [fresh, maxmsg) were never used */
    uint32_t nrec_busy;      /* records not FREE: 0 keeps send/receive off the scan */
    uint32_t ticket;
    uint32_t epoch;          /* recovery counter, the mark of in-use slots */
    uint32_t top_prio;       /* curmsgs > 0: the highest non-empty priority, */
    uint32_t top_ref;        /* and its list head: the next message to receive */
    uint32_t k2_prio;        /* k2_valid: the highest non-empty priority below top_prio */
    uint32_t k2_valid;
    uint32_t top_exact;      /* top_ref == 0: top_prio is the first list (its head not
                                loaded yet); else top_prio only bounds the first */
    uint32_t pad2_;
    uint64_t top2;           /* bit t: top[t] != 0 */
    uint64_t top[VIGIL__MQ_NPRIO / 64 / 64]; /* bit w: lvl[w] != 0 */

    /* notification, guarded by lock */
    int32_t notify_pid;      /* registered process, 0: none */
    int32_t notify_kind;     /* SIGEV_* */
    int32_t notify_signo;
    uint32_t spare_waiters;  /* threads blocked without a record (all were taken);
                                written atomically (spare_waiters_set) */
    uint32_t rec_hwm;        /* records [rec_hwm, NREC) were never taken: scans stop here */
    uint32_t pad1_;
    uint64_t notify_value;   /* sigval */
    uint64_t notify_token;   /* identifies one registration */
    uint64_t fired_token;    /* the registration that fired last */
    _Atomic uint32_t notify_seq; /* futex word of SIGEV_THREAD helpers */
    _Atomic uint32_t spare_seq;  /* futex word of waiters without a record */
    _Atomic uint32_t state_seq;  /* bumped on every change: futex word of mq watchers */
    _Atomic uint32_t watchers;   /* processes' watch threads/ops waiting on state_seq */

    alignas(64) uint64_t lvl[VIGIL__MQ_NPRIO / 64]; /* bit p: heads[p] not empty */
};

/* A process's trusted view of one mapped segment. */
struct vigil__mq {
    unsigned char *base;
    size_t size;
    struct vigil__mq_hdr *h;
    struct vigil__mq_rec *recs;
    struct vigil__mq_head *heads;
    unsigned char *slots;
    uint32_t maxmsg, msgsize, stride;
    int trylock_only;        /* fuzz harness: a held lock is EAGAIN, not a wait */
    int no_signal;           /* fuzz harness: never deliver a notification */
    _Atomic unsigned idle_wakes; /* lock wakes in a row that found nobody asleep: a
                                    hint every thread of the process updates after
                                    its unlock (relaxed, see vigil__mq_unlock_wake) */
    _Atomic uint32_t wait_est_ns[2]; /* this process's recent waits on the queue (receive,
                                        send), averaged: wait.c spins only when short */
};

/* What a send owes after it unlocked: a notification to deliver. */
struct vigil__mq_fire {
    int kind;                /* SIGEV_* */
    int32_t pid;             /* 0: nothing to deliver */
    int32_t signo;
    uint64_t value;
};

/* Bytes a segment of this geometry needs, 0 if outside the library maxima. */
size_t vigil__mq_bytes(long maxmsg, long msgsize);
/* Writes the header of an empty queue into zeroed memory of vigil__mq_bytes() bytes. */
int vigil__mq_format(void *base, size_t size, uint32_t maxmsg, uint32_t msgsize);
/* Validates the identity of a segment and fills q. -EBADMSG if it is not a queue. */
int vigil__mq_attach(struct vigil__mq *q, void *base, size_t size);

/* abs_rt: absolute CLOCK_REALTIME deadline, NULL: none. nonblock: EAGAIN at once.
 * Return 0 / length, or a negative errno. */
int vigil__mq_send(struct vigil__mq *q, const char *msg, size_t len, unsigned prio,
                   const struct timespec *abs_rt, int nonblock);
ssize_t vigil__mq_receive(struct vigil__mq *q, char *buf, size_t len, unsigned *prio,
                          const struct timespec *abs_rt, int nonblock);
/* Number of queued messages (a racy snapshot), or -EBADMSG. */
long vigil__mq_curmsgs(struct vigil__mq *q);

/* Notification registration: sev gives the kind (SIGEV_*), signal and value; NULL
 * unregisters (if pid is the owner).
 * -EBUSY if another live process is registered. token names this registration: a send
 * that fires it copies it to fired_token, which the SIGEV_THREAD helper compares. */
int vigil__mq_notify_set(struct vigil__mq *q, int32_t pid, const struct sigevent *sev, uint64_t token);
/* Removes pid's registration if it holds one (close). */
void vigil__mq_notify_drop(struct vigil__mq *q, int32_t pid);

/* Invariant check, for tests: takes the lock, walks every list, compares counts, bitmap
 * and free list. 0 or -EBADMSG (with what failed written to why). */
int vigil__mq_check(struct vigil__mq *q, char *why, size_t why_len);

/* Test-only: called as a blocked send or receive enters a phase of its wait (wait.c,
 * VIGIL__MQ_PHASE_*), with its record (NULL for a thread without one). Left NULL, the
 * wait pays one load per phase. */
enum { VIGIL__MQ_PHASE_SPIN = 1, VIGIL__MQ_PHASE_SLEEP = 2, VIGIL__MQ_PHASE_EDGE = 3 };
/* A thread whose waits sleep at once times one of them in this many (wait.c, WAITING
 * THAT PAYS FOR ITSELF); here for the tests that count them. */
#define VIGIL__MQ_SLEEP_TIMED 4
typedef void (*vigil__mq_wait_hook_fn)(int phase, struct vigil__mq_rec *rec);
extern _Atomic(vigil__mq_wait_hook_fn) vigil__mq_wait_hook;

/* The queue behind an open descriptor (posix.c), NULL if none: for the mq watcher and
 * tests. */
struct vigil__mq *vigil__mq_get(mqd_t d);

/* Loop watchers (src/mq/watch.c): which of events (VIGIL_READ, VIGIL_WRITE) hold now,
 * or -EBADMSG; and the cross-process count of watchers (makes senders and receivers
 * bump and wake state_seq when the queue turns non-empty or non-full). */
int vigil__mq_ready(struct vigil__mq *q, uint32_t events);
int vigil__mq_watchers(struct vigil__mq *q, int delta);

#endif
