/* fs-watch: the frame every system's program shares. The program makes a tree of 1,000
 * directories (40 at the top, 24 under each) with 4 files in each, has the system watch
 * all of it, then forks a writer, pinned to the other CPU, that runs a script of file
 * operations (create, write, chmod, rename to another directory, unlink; made before the
 * fork from a seed, the same for every system) while the watcher, pinned to its CPU,
 * takes the events. Only the watcher's process is measured (CPU time of the process:
 * the writer is another process).
 *
 * Pacing: the writer keeps at most FSW_WINDOW inotify events (a rename is two) ahead of
 * what the watcher has taken (a counter in shared memory the watcher bumps), half the
 * kernel's queue (max_queued_events, 16,384 here, never raised): a watcher that keeps up
 * never sees the queue overflow. No two consecutive operations touch the same file, so
 * the kernel merges no event: every operation's event is due.
 *
 * One "event" is one operation of the script (a rename is one event, reported as one
 * MOVED by vigil, as two inotify events to libuv and the raw floor). Records:
 *   events_per_s      script events / wall time from the writer's start to the last event
 *   cpu_ns_per_event  the watcher's CPU time over that span / script events
 *   lost_events       events of the script the system did not report (in the system's
 *                     own units: inotify events for libuv and the floor), or all that
 *                     were left when the queue overflowed
 */
#ifndef VIGIL_LAB_FSW_H
#define VIGIL_LAB_FSW_H

#include "rounds.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FSW_TOP 40
#define FSW_SUB 24
#define FSW_DIRS (FSW_TOP + FSW_TOP * FSW_SUB) /* 1,000 */
#define FSW_SLOTS 16                           /* file names per directory */
#define FSW_INITIAL 4                          /* files per directory at start */
#define FSW_WINDOW 8192

enum { K_CREATE, K_MODIFY, K_ATTRIB, K_DELETE, K_MOVE, K_N };
static const char *const fsw_kind_names[K_N] = {"create", "modify", "attrib", "delete", "move"};

struct fsw_op {
    uint8_t kind;
    uint16_t d, d2;
    uint8_t s, s2;
};

struct fsw_shared {
    _Atomic long consumed; /* inotify events taken by the watcher (a move: 2) */
    _Atomic int go;
    _Atomic int writer_done;
};

static struct fsw_shared *fsw_sh;
static char fsw_root[512];
static char *fsw_dir[FSW_DIRS]; /* absolute paths */
static long fsw_expect[K_N];     /* script events by kind */
static long fsw_expect_raw;      /* inotify events the script makes */

/* The watcher counts what it takes here: raw inotify events (a move's two halves: 2). */
static inline void fsw_took(long raw)
{
    atomic_store_explicit(&fsw_sh->consumed, atomic_load_explicit(&fsw_sh->consumed, memory_order_relaxed) + raw,
                          memory_order_relaxed);
}

static inline void fsw_dir_rel(int i, char *out, size_t cap)
{
    if (i < FSW_TOP)
        snprintf(out, cap, "a%02d", i);
    else
        snprintf(out, cap, "a%02d/b%02d", (i - FSW_TOP) / FSW_SUB, (i - FSW_TOP) % FSW_SUB);
}

static inline void fsw_file(int d, int s, char *out, size_t cap)
{
    snprintf(out, cap, "%s/f%d", fsw_dir[d], s);
}

static void fsw_rm(const char *p)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", p);
}

static void fsw_make_tree(const char *base)
{
    snprintf(fsw_root, sizeof fsw_root, "%s/tree-%d", base, (int)getpid());
    fsw_rm(fsw_root);
    if (mkdir(fsw_root, 0755) < 0) {
        perror(fsw_root);
        exit(1);
    }
    for (int i = 0; i < FSW_DIRS; i++) {
        char rel[64], p[700];
        fsw_dir_rel(i, rel, sizeof rel);
        snprintf(p, sizeof p, "%s/%s", fsw_root, rel);
        fsw_dir[i] = strdup(p);
        if (mkdir(p, 0755) < 0) {
            perror(p);
            exit(1);
        }
        for (int s = 0; s < FSW_INITIAL; s++) {
            char f[720];
            fsw_file(i, s, f, sizeof f);
            int fd = open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
            if (fd < 0) {
                perror(f);
                exit(1);
            }
            close(fd);
        }
    }
}

static unsigned long long fsw_rng;
static unsigned fsw_rnd(unsigned n)
{
    fsw_rng = fsw_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((fsw_rng >> 33) % n);
}

/* The script: nops operations on the tree as fsw_make_tree left it. */
static struct fsw_op *fsw_script(long nops, unsigned long long seed)
{
    static uint8_t exists[FSW_DIRS][FSW_SLOTS];
    memset(exists, 0, sizeof exists);
    for (int d = 0; d < FSW_DIRS; d++)
        for (int s = 0; s < FSW_INITIAL; s++)
            exists[d][s] = 1;
    struct fsw_op *ops = calloc((size_t)nops, sizeof *ops);
    if (!ops)
        exit(1);
    fsw_rng = seed;
    int last_d = -1, last_s = -1;
    for (long i = 0; i < nops; i++) {
        struct fsw_op o = {0};
        unsigned r = fsw_rnd(100);
        o.kind = r < 25 ? K_CREATE : r < 50 ? K_MODIFY : r < 62 ? K_ATTRIB : r < 80 ? K_MOVE : K_DELETE;
        int want_exist = o.kind != K_CREATE;
        int d, s;
        do {
            d = (int)fsw_rnd(FSW_DIRS);
            s = (int)fsw_rnd(FSW_SLOTS);
        } while (exists[d][s] != want_exist || (d == last_d && s == last_s));
        o.d = (uint16_t)d;
        o.s = (uint8_t)s;
        if (o.kind == K_MOVE) {
            int d2, s2;
            do {
                d2 = (int)fsw_rnd(FSW_DIRS);
                s2 = (int)fsw_rnd(FSW_SLOTS);
            } while (exists[d2][s2]);
            o.d2 = (uint16_t)d2;
            o.s2 = (uint8_t)s2;
            exists[d][s] = 0;
            exists[d2][s2] = 1;
            last_d = d2, last_s = s2;
        } else {
            last_d = d, last_s = s;
            if (o.kind == K_CREATE)
                exists[d][s] = 1;
            if (o.kind == K_DELETE)
                exists[d][s] = 0;
        }
        ops[i] = o;
        fsw_expect[o.kind]++;
        fsw_expect_raw += o.kind == K_MOVE ? 2 : 1;
    }
    return ops;
}

static void fsw_pin(int cpu)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % ncpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void fsw_writer(const struct fsw_op *ops, long nops, int cpu)
{
    fsw_pin(cpu);
    while (!atomic_load(&fsw_sh->go))
        sched_yield();
    long produced = 0;
    char a[720], b[720];
    for (long i = 0; i < nops; i++) {
        const struct fsw_op *o = &ops[i];
        fsw_file(o->d, o->s, a, sizeof a);
        switch (o->kind) {
        case K_CREATE: {
            int fd = open(a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
            if (fd < 0)
                _exit(2);
            close(fd);
            break;
        }
        case K_MODIFY: {
            int fd = open(a, O_WRONLY | O_APPEND | O_CLOEXEC);
            if (fd < 0 || write(fd, "x", 1) != 1)
                _exit(2);
            close(fd);
            break;
        }
        case K_ATTRIB:
            if (chmod(a, (i & 1) ? 0600 : 0644) < 0)
                _exit(2);
            break;
        case K_MOVE:
            fsw_file(o->d2, o->s2, b, sizeof b);
            if (rename(a, b) < 0)
                _exit(2);
            break;
        case K_DELETE:
            if (unlink(a) < 0)
                _exit(2);
            break;
        }
        produced += o->kind == K_MOVE ? 2 : 1;
        /* Pacing: at most FSW_WINDOW events ahead of the watcher. */
        while (produced - atomic_load_explicit(&fsw_sh->consumed, memory_order_relaxed) > FSW_WINDOW)
            usleep(20);
    }
    atomic_store(&fsw_sh->writer_done, 1);
    _exit(0);
}

struct fsw_opts {
    const char *dir;
    long ops;
    int cpu;
    unsigned long long seed;
};

static struct fsw_opts fsw_parse(int argc, char **argv)
{
    struct fsw_opts o = {".", 100000, 0, 42};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--dir"))
            o.dir = argv[i + 1];
        else if (!strcmp(argv[i], "--ops"))
            o.ops = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu"))
            o.cpu = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            o.seed = strtoull(argv[i + 1], NULL, 10);
    }
    return o;
}

/* What the system's program provides. */
static int sys_watch(void);              /* watch the tree (fsw_root, fsw_dir[]); 0 or -errno */
static void sys_run(void);               /* take events until fsw_finished() says so */
static long sys_lost(void);              /* events of the script not reported */
static const char *sys_name(void);       /* "vigil", "libuv", "kernel" */
static const char *sys_case(void);
static const char *sys_extra(void);      /* further keys (backend), or "" */

static int64_t fsw_last_progress_ns;
static long fsw_last_consumed;

/* The watcher's end: every event taken, or the writer done and nothing new for 1 s
 * (what is missing then is lost). Call it from a periodic timer and after events. */
static inline bool fsw_finished(void)
{
    long c = atomic_load_explicit(&fsw_sh->consumed, memory_order_relaxed);
    if (c >= fsw_expect_raw)
        return true;
    int64_t now = bench_now_ns();
    if (c != fsw_last_consumed) {
        fsw_last_consumed = c;
        fsw_last_progress_ns = now;
        return false;
    }
    return atomic_load(&fsw_sh->writer_done) && now - fsw_last_progress_ns > 1000000000LL;
}

static int fsw_main(int argc, char **argv)
{
    struct fsw_opts o = fsw_parse(argc, argv);
    fsw_sh = mmap(NULL, sizeof *fsw_sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fsw_sh == MAP_FAILED)
        return 1;
    fsw_make_tree(o.dir);
    struct fsw_op *ops = fsw_script(o.ops, o.seed);
    fsw_pin(o.cpu);
    int rc = sys_watch();
    if (rc < 0) {
        fprintf(stderr, "%s: watching the tree: %s\n", sys_name(), strerror(-rc));
        fsw_rm(fsw_root);
        return 1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        fsw_writer(ops, o.ops, o.cpu + 1);
    fsw_last_progress_ns = bench_now_ns();
    int64_t t0 = bench_now_ns(), c0 = bench_cpu_ns();
    atomic_store(&fsw_sh->go, 1);
    sys_run();
    int64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: the writer failed (status %d)\n", sys_name(), status);
        fsw_rm(fsw_root);
        return 1;
    }
    long lost = sys_lost();
    /* The last second of waiting for a lost event is no part of the rate. */
    double secs = (double)(t1 - t0) / 1e9;
    char keys[512], extra[256];
    snprintf(extra, sizeof extra, "\"dirs\":%d,\"ops\":%ld%s%s", FSW_DIRS, o.ops, *sys_extra() ? "," : "", sys_extra());
    rounds_keys(keys, sizeof keys, "fs-watch", sys_name(), sys_case(), extra);
    rounds_emit_total(keys, "events_per_s", (double)o.ops, secs);
    printf("{%s,\"metric\":\"cpu_ns_per_event\",\"value\":%.4f,\"total\":%.17g,\"per\":%ld,\"pool\":\"median\"}\n", keys,
           (double)(c1 - c0) / (double)o.ops, (double)(c1 - c0), o.ops);
    rounds_emit_total(keys, "lost_events", (double)lost, 0);
    fprintf(stderr, "%s %s: %ld ops in %.3f s, %.0f ns CPU/event, lost %ld (expected: create %ld modify %ld attrib %ld "
                    "delete %ld move %ld)\n",
            sys_name(), sys_extra(), o.ops, secs, (double)(c1 - c0) / (double)o.ops, lost, fsw_expect[K_CREATE],
            fsw_expect[K_MODIFY], fsw_expect[K_ATTRIB], fsw_expect[K_DELETE], fsw_expect[K_MOVE]);
    fflush(stdout);
    fsw_rm(fsw_root);
    (void)fsw_kind_names;
    return 0;
}

#endif
