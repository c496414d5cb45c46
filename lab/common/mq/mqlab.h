/* Shared by the three message-queue benchmarks (mq-empty, mq-full, mq-pingpong) and
 * their three systems (kernel mq_*, Boost.Interprocess message_queue, vigil). Compiles
 * as C11 and as C++ (the Boost peer), so it sticks to the common subset.
 *
 * What is here:
 *  - options: every program takes the same flags (--seconds, --depth, --pattern,
 *    --msg-bytes, --cpu), set by the benchmark's bench.py;
 *  - priority patterns of the kernel selftest mq_perf_tests (constant, rising, falling,
 *    random), with one fixed random sequence so every system sees the same priorities;
 *  - rounds: bench.py alternates systems in time (kernel, boost, vigil, kernel, ...),
 *    each step measuring for a slice and printing its records with a histogram of its
 *    samples (lab/common/rounds.h); run.py pools the rounds of each series, so no
 *    figure is a best-of-many and a noisy slice hits every system alike;
 *  - the kernel's private IPC namespace: queues deeper than fs.mqueue.msg_max need that
 *    sysctl raised, which is done only inside a namespace this process creates.
 *
 * Timing: batches of operations between two CLOCK_MONOTONIC reads (one read costs about
 * as much as a whole Boost send), per-operation figures = batch time / batch size.
 */
#ifndef VIGIL_MQLAB_H
#define VIGIL_MQLAB_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rounds.h"

#define MQLAB_SKIP 77
#define MQLAB_PRIO_MAX 32768 /* MQ_PRIO_MAX on Linux, the selftest's mq_prio_max */

struct mqlab_opts {
    double seconds;     /* measuring time of this step (one round's slice) */
    long depth;         /* mq-full: queue capacity (filled to depth - 1) */
    const char *pattern; /* mq-full: constant | rising | falling | random */
    long msg_bytes;     /* message size */
    int cpu;            /* --cpu: run on this CPU only (-1: wherever the scheduler puts us) */
};

static inline void mqlab_die(const char *what)
{
    fprintf(stderr, "mqlab: %s: %s\n", what, strerror(errno));
    exit(1);
}

static inline void mqlab_skip(const char *why)
{
    fprintf(stderr, "%s\n", why);
    exit(MQLAB_SKIP);
}

static inline struct mqlab_opts mqlab_parse(int argc, char **argv)
{
    struct mqlab_opts o;
    o.seconds = 1.0;
    o.depth = 1024;
    o.pattern = "constant";
    o.msg_bytes = 16;
    o.cpu = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--seconds"))
            o.seconds = atof(v);
        else if (!strcmp(k, "--depth"))
            o.depth = atol(v);
        else if (!strcmp(k, "--pattern"))
            o.pattern = v;
        else if (!strcmp(k, "--msg-bytes"))
            o.msg_bytes = atol(v);
        else if (!strcmp(k, "--cpu"))
            o.cpu = atoi(v);
        else {
            fprintf(stderr, "mqlab: unknown option %s\n", k);
            exit(2);
        }
    }
    if (o.depth < 2 || o.msg_bytes < 1) {
        fprintf(stderr, "mqlab: bad options\n");
        exit(2);
    }
    if (o.cpu >= 0) {
        /* The two vCPUs of the lab machine can differ by 2x in per-operation speed at a
         * given moment (a busy SMT sibling on the host): bench.py pins every system of
         * one round to the same CPU and alternates CPUs between rounds, so each system
         * sees both alike. A CPU we may not use leaves the process unpinned. */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            fprintf(stderr, "mqlab: cannot pin to CPU %d (%s); running unpinned\n", o.cpu, strerror(errno));
    }
    return o;
}

/* ---- priority patterns (tools/testing/selftests/mqueue/mq_perf_tests.c test #2) ---- */

enum mqlab_pattern { MQLAB_CONSTANT, MQLAB_RISING, MQLAB_FALLING, MQLAB_RANDOM };

static inline enum mqlab_pattern mqlab_pattern_of(const char *name)
{
    if (!strcmp(name, "constant"))
        return MQLAB_CONSTANT;
    if (!strcmp(name, "rising"))
        return MQLAB_RISING;
    if (!strcmp(name, "falling"))
        return MQLAB_FALLING;
    if (!strcmp(name, "random"))
        return MQLAB_RANDOM;
    fprintf(stderr, "mqlab: unknown pattern %s\n", name);
    exit(2);
}

struct mqlab_prio {
    enum mqlab_pattern pattern;
    unsigned prio;
    uint64_t rng; /* xorshift64: the same sequence in every system's program */
};

static inline struct mqlab_prio mqlab_prio_init(enum mqlab_pattern p)
{
    struct mqlab_prio s;
    s.pattern = p;
    s.prio = 0;
    s.rng = 0x9e3779b97f4a7c15ull;
    return s;
}

/* The priority to send now; advances the pattern as the selftest does after each send. */
static inline unsigned mqlab_prio_next(struct mqlab_prio *s)
{
    unsigned now = s->prio;
    switch (s->pattern) {
    case MQLAB_CONSTANT:
        break;
    case MQLAB_RISING:
        s->prio = s->prio + 1 == MQLAB_PRIO_MAX ? 0 : s->prio + 1;
        break;
    case MQLAB_FALLING:
        s->prio = s->prio == 0 ? MQLAB_PRIO_MAX - 1 : s->prio - 1;
        break;
    case MQLAB_RANDOM:
        s->rng ^= s->rng << 13;
        s->rng ^= s->rng >> 7;
        s->rng ^= s->rng << 17;
        s->prio = (unsigned)(s->rng % MQLAB_PRIO_MAX);
        break;
    }
    return now;
}

/* ---- queues a run leaves behind if interrupted (shared memory outlives us) ---- */

static char mqlab_leftovers[4][4096];

static inline void mqlab_on_signal(int sig)
{
    for (int i = 0; i < 4; i++)
        if (mqlab_leftovers[i][0])
            unlink(mqlab_leftovers[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Removes the files named with mqlab_leftover() if SIGINT or SIGTERM ends the run. */
static inline void mqlab_remove_on_signal(void)
{
    signal(SIGINT, mqlab_on_signal);
    signal(SIGTERM, mqlab_on_signal);
}

static inline void mqlab_leftover(const char *dir, const char *prefix, const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!mqlab_leftovers[i][0]) {
            snprintf(mqlab_leftovers[i], sizeof mqlab_leftovers[i], "%s/%s%s", dir, prefix, name);
            return;
        }
}

/* ---- the kernel's queues: a private IPC namespace with raised limits ---- */

/* Bytes of RLIMIT_MSGQUEUE a kernel queue charges at mq_open (6.18 ipc/mqueue.c,
 * mqueue_get_inode): mq_treesize = maxmsg * sizeof(struct msg_msg) + min(maxmsg,
 * MQ_PRIO_MAX) * sizeof(struct posix_msg_tree_node), plus maxmsg * msgsize. Both structs
 * are 48 bytes on x86-64 (msg_msg: list_head, m_type, m_ts, next, security;
 * posix_msg_tree_node: rb_node, list_head, int priority). */
static inline long mqlab_kernel_bytes(long maxmsg, long msgsize)
{
    long nodes = maxmsg < MQLAB_PRIO_MAX ? maxmsg : MQLAB_PRIO_MAX;
    return maxmsg * 48 + nodes * 48 + maxmsg * msgsize;
}

static inline int mqlab_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t len = (ssize_t)strlen(text);
    ssize_t n = write(fd, text, (size_t)len);
    int err = n == len ? 0 : (n < 0 ? -errno : -EIO);
    close(fd);
    return err;
}

/* Moves this process into a new IPC namespace (with a user namespace when not root)
 * and raises fs.mqueue.msg_max, msgsize_max and queues_max there. The machine's own
 * sysctls are never touched: they belong to the initial namespace, which this process
 * has left. Queues made here vanish with the namespace, so a crashed run leaves nothing.
 * Also raises the soft RLIMIT_MSGQUEUE to the hard one and checks that `queues` queues
 * of maxmsg x msgsize fit in it; exits 77 with the reason when they cannot. */
static inline void mqlab_kernel_setup(long maxmsg, long msgsize, int queues)
{
    char text[64];
    if (unshare(CLONE_NEWIPC) != 0) {
        if (errno != EPERM)
            mqlab_die("unshare(CLONE_NEWIPC)");
        /* Not privileged: a user namespace makes us root of a namespace that owns the
         * new IPC namespace, whose mqueue sysctls that root may then write. */
        uid_t uid = geteuid();
        gid_t gid = getegid();
        if (unshare(CLONE_NEWUSER | CLONE_NEWIPC) != 0)
            mqlab_skip("kernel mq: cannot create a private IPC namespace (unshare: EPERM), so "
                       "fs.mqueue.msg_max cannot be raised without touching the machine's");
        mqlab_write_file("/proc/self/setgroups", "deny");
        snprintf(text, sizeof text, "0 %u 1", (unsigned)uid);
        if (mqlab_write_file("/proc/self/uid_map", text) < 0)
            mqlab_die("uid_map");
        snprintf(text, sizeof text, "0 %u 1", (unsigned)gid);
        if (mqlab_write_file("/proc/self/gid_map", text) < 0)
            mqlab_die("gid_map");
    }
    /* Kernel bounds: msg_max <= 65536 (HARD_MSGMAX), msgsize_max <= 16 MiB. */
    snprintf(text, sizeof text, "%ld", maxmsg > 10 ? maxmsg : 10);
    if (mqlab_write_file("/proc/sys/fs/mqueue/msg_max", text) < 0)
        mqlab_die("write /proc/sys/fs/mqueue/msg_max (private namespace)");
    snprintf(text, sizeof text, "%ld", msgsize > 8192 ? msgsize : 8192);
    if (mqlab_write_file("/proc/sys/fs/mqueue/msgsize_max", text) < 0)
        mqlab_die("write /proc/sys/fs/mqueue/msgsize_max (private namespace)");
    mqlab_write_file("/proc/sys/fs/mqueue/queues_max", "256");

    /* RLIMIT_MSGQUEUE is per user and not per namespace; root may not raise the hard
     * limit (it is charged to the user across all namespaces), only the soft one. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_MSGQUEUE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_MSGQUEUE, &rl);
    }
    getrlimit(RLIMIT_MSGQUEUE, &rl);
    long need = (long)queues * mqlab_kernel_bytes(maxmsg, msgsize);
    if (rl.rlim_cur != RLIM_INFINITY && (unsigned long)need > rl.rlim_cur) {
        char why[256];
        snprintf(why, sizeof why,
                 "kernel mq: %d queue(s) of %ld x %ld B charge %ld B > RLIMIT_MSGQUEUE %lu B "
                 "(the per-user limit; root may not raise it)",
                 queues, maxmsg, msgsize, need, (unsigned long)rl.rlim_cur);
        mqlab_skip(why);
    }
}

/* Explains an mq_open failure of the kernel's queue and exits (77 for a limit). */
static inline void mqlab_kernel_open_failed(long maxmsg, long msgsize)
{
    char why[256];
    int err = errno;
    struct rlimit rl;
    getrlimit(RLIMIT_MSGQUEUE, &rl);
    snprintf(why, sizeof why, "kernel mq_open(maxmsg %ld, msgsize %ld, charge %ld B, RLIMIT_MSGQUEUE %lu B): %s",
             maxmsg, msgsize, mqlab_kernel_bytes(maxmsg, msgsize), (unsigned long)rl.rlim_cur, strerror(err));
    if (err == EMFILE || err == ENOMEM || err == EINVAL)
        mqlab_skip(why);
    fprintf(stderr, "%s\n", why);
    exit(1);
}

#endif
