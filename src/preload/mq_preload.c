/* libvigil-mq.so: vigil's shared-memory queues for programs built against <mqueue.h>,
 * without recompiling them:
 *
 *     LD_PRELOAD=libvigil-mq.so ./prog
 *
 * What it defines: glibc's names with glibc's signatures and -1/errno conventions,
 * mq_open (variadic), __mq_open_2 (what mq_open becomes with _FORTIFY_SOURCE),
 * mq_close, mq_unlink, mq_send, mq_receive, mq_timedsend, mq_timedreceive, mq_notify,
 * mq_getattr, mq_setattr, and close (so that close() on a queue descriptor, which a
 * kernel mqd_t allows, is mq_close). Each is a thin translation onto vigil_mq_*
 * (<vigil/mq.h>), whose code is linked into this library (it does not need libvigil.so).
 *
 * How the names win over glibc's: glibc 2.34+ defines them in libc.so.6 as
 * mq_open@@GLIBC_2.34 (and mq_open@GLIBC_2.3.4, the version programs linked against
 * librt before 2.34 ask for). preload.map exports ours in an anonymous version node:
 * an unversioned definition satisfies a reference to any version, and a preloaded
 * object is searched before libc, so a program binds ours whether it was linked with
 * -lrt or without, before or after 2.34. Every other symbol is local.
 *
 * Descriptors. A kernel mqd_t is a file descriptor; programs rely on that (they store it
 * in int fields, close() it, and poll it). So a descriptor here is a real file
 * descriptor too: mq_open reserves one, an O_PATH|O_CLOEXEC open of /dev/null, and maps
 * it to the vigil descriptor behind it (by_fd below). The number is then the
 * program's own, as a kernel queue's would be: the process's file limit applies
 * (EMFILE), no later open() can be given the same number while the queue is open, and
 * /proc/self/fd lists it. What each fd-level use does (docs/preload.md has the whole
 * list):
 *   - poll/ppoll: revents POLLNVAL at once (the kernel does not poll O_PATH files);
 *     epoll_ctl: EBADF; select/pselect: reported ready (readable and writable) at
 *     once. A vigil queue cannot be polled by the kernel; none of them ever waits on it.
 *     Use vigil_mq_watch (<vigil/mq_watch.h>) to wait on vigil queues in a loop.
 *   - read/write/fcntl-based I/O: EBADF; a kernel mq_* system call made on it directly
 *     (syscall(), or a name this library does not define, such as the 32-bit time64
 *     entry points): EBADF, since the file is not a kernel queue. Nothing silently
 *     reaches another queue.
 *   - close(): as mq_close. dup/dup2/dup3/fcntl(F_DUPFD): the copy is not a queue
 *     descriptor (EBADF in mq_*); dup2/dup3 onto a queue descriptor, close_range and
 *     closefrom release the number without closing the vigil queue behind it (use
 *     mq_close).
 *   - fork(): the child keeps the descriptors (the mapping and the fd are inherited).
 *     exec: the descriptors are closed (the fd is O_CLOEXEC, the vigil table goes with
 *     the old image), as the kernel's (it opens every mqd_t close-on-exec); the new
 *     image gets EBADF for the old numbers.
 *
 * Names. Queues live where vigil keeps them (VIGIL_MQ_DIR, else /dev/shm; <vigil/mq.h>),
 * never in /dev/mqueue: a program under this library and one without it never share a
 * queue. So that such a pair fails instead of each waiting on its own queue, mq_open
 * refuses a name that also exists as a kernel queue in this IPC namespace: -1/EEXIST,
 * whatever the flags (it asks the kernel with one mq_open system call, O_RDONLY, closed
 * at once). The reverse order (the kernel queue made after the vigil one, by a program
 * without this library) cannot be seen from here.
 *
 * Everything else is vigil's (<vigil/mq.h>): its limits (more than 10 messages, over
 * 8192 bytes, without privilege), at most VIGIL_MQ_OPEN_MAX (1024) queues open per
 * process (EMFILE), read and write permission needed on the queue's file for any open.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mq/posix_int.h"
#include "vigil/mq.h"

#define EXPORT __attribute__((visibility("default")))

/* Reserved fd -> vigil descriptor + 1 (0: not a queue), for fds below FAST_FDS: one load
 * per lookup. 128 KiB of zero pages; only the pages of the numbers used are touched.
 * close() and the calls other than send and receive look here; mq_send and mq_receive
 * first try the entry of the vigil descriptor equal to fd (ent_of). */
#define FAST_FDS 65536
static _Atomic uint16_t by_fd[FAST_FDS];
/* Vigil descriptor -> reserved fd + 1 (0: none): the way back for close, and the
 * lookup of fds at or past FAST_FDS (a scan, for processes with that many files). */
static _Atomic int fd_of[VIGIL_MQ_OPEN_MAX];

_Static_assert(VIGIL_MQ_OPEN_MAX < UINT16_MAX, "by_fd holds a vigil descriptor + 1");

/* vigil_of() for numbers at or past FAST_FDS (out of line: the common path stays a
 * compare and a load, with no registers to save around a loop). */
__attribute__((noinline, cold)) static mqd_t vigil_of_slow(mqd_t fd)
{
    if (fd < 0)
        return -1;
    for (int v = 0; v < VIGIL_MQ_OPEN_MAX; v++)
        if (atomic_load_explicit(&fd_of[v], memory_order_acquire) == fd + 1)
            return v;
    return -1;
}

/* The vigil descriptor behind a program's mqd_t, or -1 (vigil_mq_* then say EBADF). */
static inline mqd_t vigil_of(mqd_t fd)
{
    /* Acquire pairs with the release store in publish(): a thread that finds the
     * mapping finds the vigil descriptor open. */
    if (__builtin_expect((unsigned)fd < FAST_FDS, 1))
        return (mqd_t)atomic_load_explicit(&by_fd[fd], memory_order_acquire) - 1;
    return vigil_of_slow(fd);
}

/* ent_of() when the program's fd is not the vigil descriptor (fd >= VIGIL_MQ_OPEN_MAX,
 * or its entry was taken when the queue was opened), or not a queue: through by_fd. */
__attribute__((noinline)) static struct vigil__mqd_ent *ent_of_mapped(mqd_t fd)
{
    return vigil__mqd_get(vigil_of(fd));
}

/* The posix front's entry behind a program's mqd_t, or NULL (EBADF), for the hot calls.
 * Why they are cheap: mq_send and mq_receive run posix_int.h's checks in place instead
 * of calling vigil_mq_timed* (one call level less and, with no timeout, no timeout test),
 * and open_queue asks for the vigil descriptor equal to the program's fd, which it gets
 * whenever fd < VIGIL_MQ_OPEN_MAX and that entry is free. The entry is then found from
 * fd itself, as vigil_mq_send finds it from its mqd_t: a shift and the entry's own load
 * (its fd1 tag, in the line the call reads anyway, says it is fd's). Looking by_fd up
 * first put one more dependent load (and an index computation) in front of every send
 * and receive, before the load of the queue's header and the lock. */
static inline struct vigil__mqd_ent *ent_of(mqd_t fd)
{
    if (__builtin_expect((unsigned)fd < VIGIL_MQ_OPEN_MAX, 1)) {
        struct vigil__mqd_ent *e = &vigil__mqd_table[fd];
        /* Acquire pairs with the release store at open (posix.c), as vigil__mqd_get. */
        if (__builtin_expect(atomic_load_explicit(&e->used, memory_order_acquire) &&
                                 atomic_load_explicit(&e->fd1, memory_order_relaxed) == fd + 1,
                             1))
            return e;
    }
    return ent_of_mapped(fd);
}

static void publish(int fd, mqd_t v)
{
    atomic_store_explicit(&fd_of[v], fd + 1, memory_order_release);
    if ((unsigned)fd < FAST_FDS)
        atomic_store_explicit(&by_fd[fd], (uint16_t)(v + 1), memory_order_release);
}

/* Forgets fd's mapping and returns the vigil descriptor it had, or -1. Two threads
 * closing one fd at once: the exchange lets exactly one of them have it. */
static mqd_t unpublish(int fd)
{
    if ((unsigned)fd < FAST_FDS) {
        mqd_t v = (mqd_t)atomic_exchange_explicit(&by_fd[fd], 0, memory_order_acq_rel) - 1;
        if (v >= 0)
            atomic_store_explicit(&fd_of[v], 0, memory_order_relaxed);
        return v;
    }
    if (fd < 0)
        return -1;
    for (int v = 0; v < VIGIL_MQ_OPEN_MAX; v++) {
        int want = fd + 1;
        if (atomic_compare_exchange_strong_explicit(&fd_of[v], &want, 0, memory_order_acq_rel,
                                                    memory_order_relaxed))
            return v;
    }
    return -1;
}

/* The close() this library's own close() stands in front of. */
static int real_close(int fd)
{
    static int (*_Atomic next)(int);
    int (*f)(int) = atomic_load_explicit(&next, memory_order_relaxed);
    if (!f) {
        f = (int (*)(int))dlsym(RTLD_NEXT, "close");
        if (!f)
            return (int)syscall(SYS_close, fd);
        atomic_store_explicit(&next, f, memory_order_relaxed);
    }
    return f(fd);
}

/* Whether the kernel has a queue of this name in this IPC namespace (see Names). */
static int kernel_has(const char *name)
{
    if (!name || name[0] != '/' || !name[1] || strchr(name + 1, '/'))
        return 0; /* vigil_mq_open rejects it with the kernel's errno */
    int saved = errno;
    long fd = syscall(SYS_mq_open, name + 1, O_RDONLY | O_CLOEXEC, 0, NULL);
    int found = fd >= 0 || errno == EACCES; /* EACCES: it exists, not ours to read */
    if (fd >= 0)
        real_close((int)fd);
    errno = saved;
    return found;
}

static mqd_t open_queue(const char *name, int oflag, mode_t mode, struct mq_attr *attr)
{
    /* The fd first, as the kernel takes one before it looks at the name: a process out
     * of files gets EMFILE whatever the name. */
    int fd = open("/dev/null", O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (kernel_has(name)) {
        real_close(fd);
        errno = EEXIST;
        return -1;
    }
    mqd_t v = vigil__mq_open_fd(name, oflag, mode, attr, fd); /* v == fd if it can (ent_of) */
    if (v < 0) {
        int e = errno;
        real_close(fd);
        errno = e;
        return -1;
    }
    publish(fd, v);
    return fd;
}

EXPORT mqd_t mq_open(const char *name, int oflag, ...)
{
    va_list ap;
    va_start(ap, oflag);
    struct vigil__mq_create c = vigil__mq_create_args(oflag, ap);
    va_end(ap);
    return open_queue(name, oflag, c.mode, c.attr);
}

/* _FORTIFY_SOURCE turns a two-argument mq_open into this. glibc's aborts when O_CREAT
 * comes without its two arguments; this one fails the call instead. */
EXPORT mqd_t __mq_open_2(const char *name, int oflag)
{
    if (oflag & O_CREAT) {
        errno = EINVAL;
        return -1;
    }
    return open_queue(name, oflag, 0, NULL);
}

EXPORT int mq_close(mqd_t mqdes)
{
    mqd_t v = unpublish(mqdes);
    if (v < 0) {
        errno = EBADF;
        return -1;
    }
    /* The fd is released last: until then no open() can take the number, so no other
     * thread's mq_open can publish it while the vigil descriptor is still ours. */
    int r = vigil_mq_close(v);
    int e = errno;
    real_close(mqdes);
    errno = e;
    return r;
}

EXPORT int close(int fd)
{
    if ((unsigned)fd < FAST_FDS ? atomic_load_explicit(&by_fd[fd], memory_order_relaxed) != 0
                                : vigil_of(fd) >= 0)
        return mq_close(fd);
    return real_close(fd);
}

EXPORT int mq_unlink(const char *name)
{
    return vigil_mq_unlink(name);
}

EXPORT int mq_send(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned int msg_prio)
{
    return vigil__mqd_send(ent_of(mqdes), msg_ptr, msg_len, msg_prio, NULL); /* = vigil_mq_send */
}

EXPORT ssize_t mq_receive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned int *msg_prio)
{
    return vigil__mqd_receive(ent_of(mqdes), msg_ptr, msg_len, msg_prio, NULL); /* = vigil_mq_receive */
}

EXPORT int mq_timedsend(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned int msg_prio,
                        const struct timespec *abs_timeout)
{
    return vigil__mqd_send(ent_of(mqdes), msg_ptr, msg_len, msg_prio, abs_timeout);
}

EXPORT ssize_t mq_timedreceive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned int *msg_prio,
                               const struct timespec *abs_timeout)
{
    return vigil__mqd_receive(ent_of(mqdes), msg_ptr, msg_len, msg_prio, abs_timeout);
}

EXPORT int mq_notify(mqd_t mqdes, const struct sigevent *sevp)
{
    return vigil_mq_notify(vigil_of(mqdes), sevp);
}

EXPORT int mq_getattr(mqd_t mqdes, struct mq_attr *attr)
{
    return vigil_mq_getattr(vigil_of(mqdes), attr);
}

EXPORT int mq_setattr(mqd_t mqdes, const struct mq_attr *newattr, struct mq_attr *oldattr)
{
    return vigil_mq_setattr(vigil_of(mqdes), newattr, oldattr);
}
