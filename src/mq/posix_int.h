/* The POSIX front's descriptor table and its two hot calls (send, receive), shared by
 * posix.c and the LD_PRELOAD library (src/preload/mq_preload.c). Not installed.
 *
 * Why a header: with the checks here, static inline, the preload's mq_send/mq_receive
 * compile them in place: one call (to vigil__mq_send / vigil__mq_receive), no timeout
 * test (the compiler sees NULL), and the entry found from the program's fd with no
 * by_fd load first (vigil__mq_open_fd below; mq_preload.c, ent_of). posix.c uses the
 * very same functions, so the two fronts cannot drift apart (same checks, same order,
 * same errno). The table is hidden: both
 * libraries reach it PC-relative, without the GOT.
 */
#ifndef VIGIL_MQ_POSIX_INT_H
#define VIGIL_MQ_POSIX_INT_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "mq/mq_int.h"
#include "sys/clock.h"

/* One open descriptor (posix.c's table). Aligned to a cache line, which makes it 128
 * bytes (not 120): an entry never straddles two lines, and &table[d] is a shift instead
 * of a multiply by 15 and a shift, on the path from the descriptor to the queue's lock
 * (which every send and receive waits for). */
struct vigil__mqd_ent {
    alignas(64) _Atomic int used;
    int flags;                   /* O_ACCMODE bits | O_NONBLOCK */
    /* Opened by the LD_PRELOAD library for the program's file descriptor fd1 - 1 (0:
     * not). Set before used is published, cleared by close. */
    _Atomic int fd1;
    struct vigil__mq q;
    size_t map_bytes;
    /* SIGEV_THREAD helper started through this descriptor */
    bool has_thr;
    pid_t thr_pid;
    pthread_t thr;
    _Atomic uint32_t helper_gen; /* bumped to stop the helper */
};

_Static_assert(sizeof(struct vigil__mqd_ent) == 128, "a power of two: &table[d] is a shift");

/* Indexed by mqd_t. Defined in posix.c. */
extern struct vigil__mqd_ent vigil__mqd_table[VIGIL_MQ_OPEN_MAX] __attribute__((visibility("hidden")));

/* vigil_mq_open with its arguments taken, for the LD_PRELOAD library: prog_fd is the
 * program's file descriptor the queue will be known by (-1: none, as vigil_mq_open).
 * The descriptor returned is then prog_fd itself when that entry is free (prog_fd <
 * VIGIL_MQ_OPEN_MAX, the common case), so that the library finds the entry of a
 * program's mqd_t as vigil_mq_* find theirs, with no mapping to load first
 * (mq_preload.c, ent_of); the entry is tagged with prog_fd + 1 either way. */
mqd_t vigil__mq_open_fd(const char *name, int oflag, mode_t mode, struct mq_attr *attr, int prog_fd);

/* mq_open's optional arguments, mode then attr, passed only with O_CREAT; ap is as
 * va_start left it after oflag (vigil_mq_open and the LD_PRELOAD library's mq_open). */
struct vigil__mq_create {
    mode_t mode;
    struct mq_attr *attr;
};

static inline struct vigil__mq_create vigil__mq_create_args(int oflag, va_list ap)
{
    struct vigil__mq_create c = {0, NULL};
    if (oflag & O_CREAT) {
        c.mode = (mode_t)va_arg(ap, int);
        c.attr = va_arg(ap, struct mq_attr *);
    }
    return c;
}

static inline int vigil__mqd_fail(int neg_errno)
{
    errno = -neg_errno;
    return -1;
}

/* The entry of an open descriptor, or NULL. */
static inline struct vigil__mqd_ent *vigil__mqd_get(mqd_t d)
{
    if ((unsigned)d >= VIGIL_MQ_OPEN_MAX)
        return NULL;
    struct vigil__mqd_ent *e = &vigil__mqd_table[d];
    /* Acquire pairs with the release store at open: q is filled in before used. */
    return atomic_load_explicit(&e->used, memory_order_acquire) ? e : NULL;
}

/* The kernel checks a timed call's timespec first, before the descriptor, the mode,
 * the size and whether the call would block (POSIX's text only requires it when the
 * call blocks): programs see the kernel's order, so vigil gives it. */
static inline bool vigil__mqd_timeout_bad(const struct timespec *abs_timeout)
{
    return abs_timeout && !vigil__ts_valid(abs_timeout);
}

/* vigil_mq_timedsend on the entry e (vigil__mqd_get's answer: NULL is EBADF; looking
 * it up has no effect, so a caller may do it before the timeout check it follows). */
static inline __attribute__((always_inline)) int vigil__mqd_send(struct vigil__mqd_ent *e, const char *msg_ptr,
                                                                  size_t msg_len, unsigned msg_prio,
                                                                  const struct timespec *abs_timeout)
{
    if (__builtin_expect(vigil__mqd_timeout_bad(abs_timeout), 0))
        return vigil__mqd_fail(-EINVAL);
    if (__builtin_expect(msg_prio >= MQ_PRIO_MAX, 0))
        return vigil__mqd_fail(-EINVAL);
    if (__builtin_expect(!e || ((e->flags & O_ACCMODE) != O_WRONLY && (e->flags & O_ACCMODE) != O_RDWR), 0))
        return vigil__mqd_fail(-EBADF);
    int r = vigil__mq_send(&e->q, msg_ptr, msg_len, msg_prio, abs_timeout, e->flags & O_NONBLOCK);
    return __builtin_expect(r < 0, 0) ? vigil__mqd_fail(r) : 0;
}

/* vigil_mq_timedreceive on the entry e (as vigil__mqd_send). */
static inline __attribute__((always_inline)) ssize_t vigil__mqd_receive(struct vigil__mqd_ent *e, char *msg_ptr,
                                                                         size_t msg_len, unsigned *msg_prio,
                                                                         const struct timespec *abs_timeout)
{
    if (__builtin_expect(vigil__mqd_timeout_bad(abs_timeout), 0))
        return vigil__mqd_fail(-EINVAL);
    if (__builtin_expect(!e || ((e->flags & O_ACCMODE) != O_RDONLY && (e->flags & O_ACCMODE) != O_RDWR), 0))
        return vigil__mqd_fail(-EBADF);
    ssize_t r = vigil__mq_receive(&e->q, msg_ptr, msg_len, msg_prio, abs_timeout, e->flags & O_NONBLOCK);
    return __builtin_expect(r < 0, 0) ? vigil__mqd_fail((int)r) : r;
}

#endif
