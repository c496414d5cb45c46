/* Futex calls on 32-bit words in shared memory: the one place the queue (src/mq/) and
 * the loop's mq watcher (src/mq/watch.c) get their futex waits, wakes and futex2
 * constants from. Never FUTEX_PRIVATE_FLAG: the words live in segments that several
 * processes map. Calls only the kernel.
 */
#ifndef VIGIL_MQ_FUTEX_H
#define VIGIL_MQ_FUTEX_H

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Newer than Debian's uapi header: values from the kernel's include/uapi. */
#define OP_FUTEX_WAIT 51        /* IORING_OP_FUTEX_WAIT, Linux 6.7 */
#define FUTEX2_SIZE_U32_ 0x02u  /* futex2 flags: 32-bit word, shared (no FUTEX2_PRIVATE) */

/* Sleeps while *word == val, until abs_rt (absolute CLOCK_REALTIME, NULL: no limit).
 * 0 on a wake, -EAGAIN if *word != val already, -ETIMEDOUT, -EINTR. */
static inline int vigil__futex_wait_rt(_Atomic uint32_t *word, uint32_t val, const struct timespec *abs_rt)
{
    long r = syscall(SYS_futex, word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, val, abs_rt, NULL,
                     FUTEX_BITSET_MATCH_ANY);
    return r < 0 ? -errno : 0;
}

/* Sleeps while *word == val, for at most rel (relative, CLOCK_MONOTONIC). Results as
 * vigil__futex_wait_rt. */
static inline int vigil__futex_wait_rel(_Atomic uint32_t *word, uint32_t val, const struct timespec *rel)
{
    long r = syscall(SYS_futex, word, FUTEX_WAIT, val, rel, NULL, 0);
    return r < 0 ? -errno : 0;
}

/* Wakes up to n sleepers on word. Returns how many woke, or a negative errno. */
static inline int vigil__futex_wake(_Atomic uint32_t *word, int n)
{
    long r = syscall(SYS_futex, word, FUTEX_WAKE, n, NULL, NULL, 0);
    return r < 0 ? -errno : (int)r;
}

#endif
