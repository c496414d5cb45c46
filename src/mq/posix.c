/* The POSIX front of the shared-memory queues: names and files, the process's
 * descriptor table, -1/errno, notification threads. The queue itself is
 * the rest of src/mq/ (lock.c opens with its rules).
 *
 * Descriptors: mqd_t indexes a static table. open/close/notify take table_lock (a
 * process-local mutex); send/receive/getattr only read their entry, as a read() on a
 * file descriptor does not lock the fd table (closing a descriptor while another
 * thread uses it is the caller's race, as with close()).
 */
#include "mq/futex.h"
#include "mq/mq_int.h"
#include "mq/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vigil.h"

#define NAME_PREFIX "vigil.mq."
#define PREFIX_LEN 9

/* The table and its entry (struct vigil__mqd_ent) are in posix_int.h, with send and
 * receive: the LD_PRELOAD library compiles those in place (posix_int.h says why). */
struct vigil__mqd_ent vigil__mqd_table[VIGIL_MQ_OPEN_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t token_counter;

static int fail(int neg_errno)
{
    return vigil__mqd_fail(neg_errno);
}

static struct vigil__mqd_ent *ent_get(mqd_t d)
{
    return vigil__mqd_get(d);
}

struct vigil__mq *vigil__mq_get(mqd_t d)
{
    struct vigil__mqd_ent *e = ent_get(d);
    return e ? &e->q : NULL;
}

/* Turns a queue name into the path of its file. */
static int name_path(const char *name, char *path, size_t len)
{
    if (!name || name[0] != '/')
        return -EINVAL;
    const char *rest = name + 1;
    size_t n = strlen(rest);
    if (n == 0)
        return -ENOENT;             /* mq_open(3): just "/" */
    if (strchr(rest, '/'))
        return -EACCES;             /* mq_open(3): more than one slash */
    if (n > NAME_MAX - PREFIX_LEN)
        return -ENAMETOOLONG;
    const char *dir = getenv("VIGIL_MQ_DIR");
    if (!dir || !*dir)
        dir = "/dev/shm";
    int w = snprintf(path, len, "%s/" NAME_PREFIX "%s", dir, rest);
    if (w < 0 || (size_t)w >= len)
        return -ENAMETOOLONG;
    return 0;
}

/* Maps an open queue file and validates it. */
static int map_fd(int fd, struct vigil__mqd_ent *e)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct vigil__mq_hdr) ||
        (uint64_t)st.st_size > (uint64_t)VIGIL_MQ_BYTES_MAX + (64u << 20))
        return -EBADMSG;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    int r = vigil__mq_attach(&e->q, p, (size_t)st.st_size);
    if (r < 0) {
        munmap(p, (size_t)st.st_size);
        return r;
    }
    e->map_bytes = (size_t)st.st_size;
    return 0;
}

/* Creates the queue file under a temporary name, formats it, then publishes it with
 * link(): other processes see either no queue or a whole one. -EEXIST if the name
 * exists. */
static int create_file(const char *path, mode_t mode, long maxmsg, long msgsize)
{
    size_t bytes = vigil__mq_bytes(maxmsg, msgsize);
    if (!bytes)
        return -EINVAL;
    char tmp[PATH_MAX + 32];
    const char *slash = strrchr(path, '/');
    int dlen = (int)(slash - path);
    snprintf(tmp, sizeof tmp, "%.*s/.vigil.mq.tmp.%d.%u", dlen, path, (int)getpid(),
             atomic_fetch_add(&token_counter, 1));
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return -errno;
    int r = 0;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) < 0) {
        r = -errno;
        goto out;
    }
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        r = -errno;
        goto out;
    }
    r = vigil__mq_format(p, bytes, (uint32_t)maxmsg, (uint32_t)msgsize);
    if (r < 0)
        goto out;
    if (link(tmp, path) < 0)
        r = -errno;
out:
    if (p != MAP_FAILED)
        munmap(p, bytes);
    unlink(tmp);
    close(fd);
    return r;
}

mqd_t vigil_mq_open(const char *name, int oflag, ...)
{
    va_list ap;
    va_start(ap, oflag);
    struct vigil__mq_create c = vigil__mq_create_args(oflag, ap);
    va_end(ap);
    return vigil__mq_open_fd(name, oflag, c.mode, c.attr, -1);
}

mqd_t vigil__mq_open_fd(const char *name, int oflag, mode_t mode, struct mq_attr *attr, int prog_fd)
{
    char path[PATH_MAX];
    int r = name_path(name, path, sizeof path);
    if (r < 0)
        return fail(r);
    /* The kernel's order: an existing name with O_CREAT|O_EXCL is EEXIST before the
     * attributes or the access mode are looked at; O_RDWR|O_WRONLY (O_ACCMODE) is EINVAL
     * for an existing queue, ENOENT for a missing one without O_CREAT, and with O_CREAT
     * creates the queue and gives a descriptor that may neither send nor receive. (A
     * concurrent create or unlink can only move a call between answers the kernel could
     * give too.) */
    if ((oflag & O_CREAT) && (oflag & O_EXCL) && access(path, F_OK) == 0 &&
        ((oflag & O_ACCMODE) == O_ACCMODE || (attr && !vigil__mq_bytes(attr->mq_maxmsg, attr->mq_msgsize))))
        return fail(-EEXIST);
    if ((oflag & O_ACCMODE) == O_ACCMODE) {
        if (access(path, F_OK) == 0)
            return fail(-EINVAL);
        if (!(oflag & O_CREAT))
            return fail(-ENOENT);
    }

    pthread_mutex_lock(&table_lock);
    int d = -1;
    if ((unsigned)prog_fd < VIGIL_MQ_OPEN_MAX && !atomic_load_explicit(&vigil__mqd_table[prog_fd].used, memory_order_relaxed))
        d = prog_fd; /* the preload's fast lookup (posix_int.h) */
    for (int i = 0; d < 0 && i < VIGIL_MQ_OPEN_MAX; i++)
        if (!atomic_load_explicit(&vigil__mqd_table[i].used, memory_order_relaxed)) {
            d = i;
            break;
        }
    if (d < 0) {
        r = -EMFILE;
        goto out_unlock;
    }
    struct vigil__mqd_ent *e = &vigil__mqd_table[d];
    for (int tries = 0;; tries++) {
        if (tries > 100) {
            r = -EAGAIN; /* created and unlinked under us, again and again */
            goto out_unlock;
        }
        /* Without O_EXCL, an existing queue is simply opened: try that first. */
        if ((oflag & O_CREAT) && ((oflag & O_EXCL) || tries > 0 || access(path, F_OK) < 0)) {
            long maxmsg = 10, msgsize = 8192; /* the kernel's defaults */
            if (attr) {
                maxmsg = attr->mq_maxmsg;
                msgsize = attr->mq_msgsize;
            }
            r = create_file(path, mode, maxmsg, msgsize);
            if (r < 0 && !(r == -EEXIST && !(oflag & O_EXCL)))
                goto out_unlock;
        }
        /* Open what is there (ours or another's). Any access needs read and write:
         * receiving dequeues, which writes the segment. */
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            r = -errno;
            if (r == -ENOENT && (oflag & O_CREAT))
                continue; /* unlinked between our create attempt and open */
            goto out_unlock;
        }
        r = map_fd(fd, e);
        close(fd);
        if (r < 0)
            goto out_unlock;
        break;
    }
    e->flags = oflag & (O_ACCMODE | O_NONBLOCK);
    atomic_store_explicit(&e->fd1, prog_fd >= 0 ? prog_fd + 1 : 0, memory_order_relaxed);
    e->has_thr = false;
    /* Release: a thread that sees used sees q filled in. */
    atomic_store_explicit(&e->used, 1, memory_order_release);
    r = d;
out_unlock:
    pthread_mutex_unlock(&table_lock);
    return r < 0 ? fail(r) : r;
}

/* Tells this descriptor's SIGEV_THREAD helper to stop (table_lock held). Returns
 * whether the caller must join it, after releasing table_lock: the helper may be inside
 * the user's function, which may call back into vigil_mq_* (and take table_lock). */
static bool helper_stop(struct vigil__mqd_ent *e, pthread_t *thr)
{
    if (!e->has_thr)
        return false;
    e->has_thr = false;
    if (e->thr_pid != getpid())
        return false; /* inherited through fork: the thread is not in this process */
    atomic_fetch_add_explicit(&e->helper_gen, 1, memory_order_release);
    /* Wakes every helper of the queue (other processes' too: they re-check). */
    atomic_fetch_add_explicit(&e->q.h->notify_seq, 1, memory_order_release);
    vigil__futex_wake(&e->q.h->notify_seq, INT_MAX);
    if (pthread_equal(e->thr, pthread_self())) {
        pthread_detach(e->thr); /* called from the notification itself */
        return false;
    }
    *thr = e->thr;
    return true;
}

int vigil_mq_close(mqd_t mqdes)
{
    pthread_mutex_lock(&table_lock);
    struct vigil__mqd_ent *e = ent_get(mqdes);
    if (!e) {
        pthread_mutex_unlock(&table_lock);
        return fail(-EBADF);
    }
    /* As the kernel: this process's notification goes with any of its descriptors. */
    vigil__mq_notify_drop(&e->q, getpid());
    pthread_t thr;
    bool join = helper_stop(e, &thr);
    void *base = e->q.base;
    size_t bytes = e->map_bytes;
    atomic_store_explicit(&e->fd1, 0, memory_order_relaxed);
    atomic_store_explicit(&e->used, 0, memory_order_relaxed);
    memset(&e->q, 0, sizeof e->q);
    pthread_mutex_unlock(&table_lock);
    /* The helper reads the mapping until it exits: unmap after the join. */
    if (join)
        pthread_join(thr, NULL);
    munmap(base, bytes);
    return 0;
}

int vigil_mq_unlink(const char *name)
{
    char path[PATH_MAX];
    int r = name_path(name, path, sizeof path);
    if (r < 0)
        return fail(r);
    if (unlink(path) < 0)
        return -1; /* errno from unlink: ENOENT, EACCES, EPERM */
    return 0;
}

/* Send and receive are posix_int.h's (the preload library's mq_send and mq_receive
 * inline the same code). */
int vigil_mq_timedsend(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned msg_prio,
                       const struct timespec *abs_timeout)
{
    return vigil__mqd_send(ent_get(mqdes), msg_ptr, msg_len, msg_prio, abs_timeout);
}

int vigil_mq_send(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned msg_prio)
{
    return vigil_mq_timedsend(mqdes, msg_ptr, msg_len, msg_prio, NULL);
}

ssize_t vigil_mq_timedreceive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned *msg_prio,
                              const struct timespec *abs_timeout)
{
    return vigil__mqd_receive(ent_get(mqdes), msg_ptr, msg_len, msg_prio, abs_timeout);
}

ssize_t vigil_mq_receive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned *msg_prio)
{
    return vigil_mq_timedreceive(mqdes, msg_ptr, msg_len, msg_prio, NULL);
}

int vigil_mq_getattr(mqd_t mqdes, struct mq_attr *attr)
{
    struct vigil__mqd_ent *e = ent_get(mqdes);
    if (!e)
        return fail(-EBADF);
    long cur = vigil__mq_curmsgs(&e->q);
    if (cur < 0)
        return fail((int)cur);
    memset(attr, 0, sizeof *attr);
    attr->mq_flags = e->flags & O_NONBLOCK;
    attr->mq_maxmsg = e->q.maxmsg;
    attr->mq_msgsize = e->q.msgsize;
    attr->mq_curmsgs = cur;
    return 0;
}

int vigil_mq_setattr(mqd_t mqdes, const struct mq_attr *newattr, struct mq_attr *oldattr)
{
    struct vigil__mqd_ent *e = ent_get(mqdes);
    if (!e)
        return fail(-EBADF);
    if (!newattr || (newattr->mq_flags & ~(long)O_NONBLOCK))
        return fail(-EINVAL);
    if (oldattr && vigil_mq_getattr(mqdes, oldattr) < 0)
        return -1;
    /* Per descriptor, like the kernel's per open file description. */
    e->flags = (e->flags & ~O_NONBLOCK) | (int)(newattr->mq_flags & O_NONBLOCK);
    return 0;
}

/* ---------------------------------------------------------- notification */

struct helper_ctx {
    struct vigil__mqd_ent *e;
    struct vigil__mq_hdr *h;     /* the mapping stays until the helper is joined */
    uint32_t gen;
    uint64_t token;
    void (*fn)(union sigval);
    union sigval value;
};

/* Waits until this registration fires (then calls the function once) or is stopped. */
static void *helper_main(void *arg)
{
    struct helper_ctx c = *(struct helper_ctx *)arg;
    free(arg);
    struct vigil__mq_hdr *h = c.h;
    for (;;) {
        /* Acquire pairs with the sender's release bump after it set fired_token. */
        uint32_t seq = atomic_load_explicit(&h->notify_seq, memory_order_acquire);
        if (atomic_load_explicit(&c.e->helper_gen, memory_order_acquire) != c.gen)
            return NULL;
        if (__atomic_load_n(&h->fired_token, __ATOMIC_RELAXED) == c.token) {
            c.fn(c.value);
            return NULL;
        }
        vigil__futex_wait_rt(&h->notify_seq, seq, NULL);
    }
}

int vigil_mq_notify(mqd_t mqdes, const struct sigevent *sevp)
{
    if (sevp) {
        switch (sevp->sigev_notify) {
        case SIGEV_NONE:
            break;
        case SIGEV_SIGNAL:
            /* As the kernel: any signal number up to _NSIG, 0 included (a registration
             * that sends no signal when it fires, and is removed as any other). */
            if ((unsigned)sevp->sigev_signo >= NSIG)
                return fail(-EINVAL);
            break;
        case SIGEV_THREAD:
            if (!sevp->sigev_notify_function)
                return fail(-EINVAL);
            break;
        default:
            return fail(-EINVAL);
        }
    }
    pthread_mutex_lock(&table_lock);
    struct vigil__mqd_ent *e = ent_get(mqdes);
    int r = 0;
    bool join = false;
    pthread_t old_thr;
    if (!e) {
        r = -EBADF;
        goto out;
    }
    pid_t pid = getpid();
    uint64_t token = ((uint64_t)(uint32_t)pid << 32) | atomic_fetch_add(&token_counter, 1);
    r = vigil__mq_notify_set(&e->q, pid, sevp, token);
    if (r < 0)
        goto out;
    /* A previous helper of this descriptor (fired or replaced) is done. */
    join = helper_stop(e, &old_thr);
    if (sevp && sevp->sigev_notify == SIGEV_THREAD) {
        struct helper_ctx *c = malloc(sizeof *c);
        if (!c) {
            r = -ENOMEM;
        } else {
            c->e = e;
            c->h = e->q.h;
            c->gen = atomic_load(&e->helper_gen);
            c->token = token;
            c->fn = sevp->sigev_notify_function;
            c->value = sevp->sigev_value;
            r = -pthread_create(&e->thr, NULL, helper_main, c);
            if (r < 0)
                free(c);
        }
        if (r < 0) {
            vigil__mq_notify_set(&e->q, pid, NULL, 0);
            goto out;
        }
        e->has_thr = true;
        e->thr_pid = pid;
    }
out:
    pthread_mutex_unlock(&table_lock);
    if (join)
        pthread_join(old_thr, NULL);
    return r < 0 ? fail(r) : 0;
}
