/* fs-ops: the shared driver of the file-system-call benchmark. One program per system
 * (fo_vigil.c, fo_libuv.c, fo_liburing.c, fo_sync.c) supplies how an operation starts
 * and how completions are waited for; this file makes the files, runs the passes, times
 * them and prints the records.
 *
 * The directory (--dir) holds --files files (10,000) named f00000..; an operation on file
 * i is one of
 *   create   open(O_CREAT|O_TRUNC) + write 4 KiB + close, where the file does not exist
 *   stat     statx(STATX_BASIC_STATS)
 *   read     open + read 4 KiB + close
 *   rename   f<i> -> g<i> (the next pass renames them back)
 *   unlink   unlink of a 4 KiB file
 *   readdir  the whole directory (open, all its entries, close): a pass is 2 x inflight
 *            of them (at least 16)
 * and, for the io_uring engine's route table (fo_vigil only; op names "route:<call>"):
 *   mkdir, symlink, link (to f<i>), ftruncate and fallocate (of 64 open files, one per
 * slot). A pass does the operation once on every file (or the first --ops of them),
 * `inflight` at a time; whatever the pass needs first (the files made, or removed) is
 * done before its clock starts, with plain system calls -- nothing, when the pass follows
 * its chain partner's (--op create,unlink: each leaves the tree the other measures). The
 * tree is kept between programs (--keep) and brought to what a program needs at its
 * start (fo_normalize). A point (op, inflight) runs passes for --ms, and at least
 * FO_MIN_PASSES of them (of each op of a chain). Each pass gives one ops_per_s sample and one cpu_ns_per_op
 * sample: getrusage(RUSAGE_SELF) user + system of every thread of the process over the
 * pass -- the thread pools' threads and io_uring's io-wq workers, which are the
 * process's own threads (--verify-rusage shows RUSAGE_SELF against RUSAGE_THREAD). */
#ifndef VIGIL_FO_H
#define VIGIL_FO_H

#include "rounds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FO_MAX_INFLIGHT 64
#define FO_BS 4096
#define FO_DIRBUF (512 << 10) /* a whole directory of 10,000 short names fits */
#define FO_MIN_PASSES 3 /* timed passes per point, whatever --ms says */

enum { FO_CREATE, FO_STAT, FO_READ, FO_RENAME, FO_UNLINK, FO_READDIR, FO_MKDIR, FO_SYMLINK, FO_LINK,
       FO_FTRUNCATE, FO_FALLOCATE, FO_NOPS };
static const char *const fo_op_names[FO_NOPS] = {"create", "stat", "read", "rename", "unlink", "readdir",
                                                 "route:mkdir", "route:symlink", "route:link", "route:ftruncate",
                                                 "route:fallocate"};

struct fo {
    const char *dir;
    int nfiles;
    int op;
    int inflight;
    int pass;              /* passes so far (rename: even f->g, odd g->f) */
    int chain[2], nchain;  /* the ops of --op a,b: passes alternate between them */
    int pass_files;        /* --ops: the files a pass touches (the first of them; 0: all) */
    bool warmup;           /* this pass is the warm-up (a slice of the files) */
    bool warmup_whole;     /* ... but of all of them */
    char (*f)[160], (*g)[160]; /* the names: f (the files), g (rename's other name, the links) */
    int *fds;              /* route:ftruncate, route:fallocate: one open file per slot */
    char *wbuf;            /* 4 KiB of data */
    char *rbuf[FO_MAX_INFLIGHT];   /* per slot: a read's 4 KiB, or a directory's entries */
    /* the pass in progress */
    int next, done, active, nops;
    int free_slots[FO_MAX_INFLIGHT], nfree;
    int slot_file[FO_MAX_INFLIGHT];
    long entries;          /* readdir: entries seen this pass (checked) */
    const char *op_name;   /* as the records name it (--op) */
    const char *op_names[2]; /* the chain's, as the records name them */
    const char *system, *keys_extra;
    const char *cas;       /* the records' case; NULL: the op's name */
    void *sys;             /* the system's own state */
};

/* What a system provides. start: begin the operation on file i in slot s (fo_done(fo,
 * s) when it has wholly finished); wait: wait for completions and report them. */
struct fo_sys {
    void (*init)(struct fo *fo);
    void (*start)(struct fo *fo, int s, int i);
    void (*wait)(struct fo *fo);
    void (*fini)(struct fo *fo);
};

static inline void fo_die(const char *what, long res)
{
    fprintf(stderr, "fs-ops: %s: %s\n", what, strerror(res < 0 ? (int)-res : (int)res));
    exit(1);
}

/* The path operation's source and destination names for file i on this pass. */
static inline const char *fo_src(struct fo *fo, int i)
{
    return (fo->op == FO_RENAME && (fo->pass & 1)) ? fo->g[i] : fo->f[i];
}
static inline const char *fo_dst(struct fo *fo, int i)
{
    return (fo->op == FO_RENAME && (fo->pass & 1)) ? fo->f[i] : fo->g[i];
}

/* A system reports an operation wholly done; res < 0 is fatal (the benchmark measures
 * successes only). */
static inline void fo_done(struct fo *fo, int s, long res)
{
    if (res < 0) {
        char what[200];
        snprintf(what, sizeof what, "%s of file %d", fo_op_names[fo->op], fo->slot_file[s]);
        fo_die(what, res);
    }
    fo->done++;
    fo->active--;
    fo->free_slots[fo->nfree++] = s;
}

/* Counts the entries of a getdents64 buffer (readdir's check: the whole directory). */
static inline long fo_count_dirents(const char *buf, long len)
{
    long n = 0;
    for (long pos = 0; pos < len;) {
        unsigned short reclen;
        memcpy(&reclen, buf + pos + 16, sizeof reclen);
        if (reclen == 0)
            break;
        pos += reclen;
        n++;
    }
    return n;
}

static inline void fo_put_file(const char *path)
{
    static char data[FO_BS];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, data, FO_BS) != FO_BS)
        fo_die(path, errno);
    close(fd);
}

static inline int fo_pass_ops(struct fo *fo);

/* Brings the files the next pass touches to what it needs; untimed. A pass that follows
 * its chain partner's (create after unlink, unlink after create) finds them so already. */
static inline void fo_prepare(struct fo *fo)
{
    int op = fo->op;
    int n = op == FO_READDIR ? fo->nfiles : fo_pass_ops(fo);
    if (n > fo->nfiles)
        n = fo->nfiles; /* ftruncate, fallocate: 1,024 calls on the first 64 files */
    for (int i = 0; i < n; i++) {
        bool want_f = op != FO_CREATE;
        struct stat st;
        bool have_f = stat(fo->f[i], &st) == 0;
        if (op == FO_RENAME) {
            /* every file on this pass's source side (the warm-up renamed a slice) */
            const char *src = fo_src(fo, i), *dst = fo_dst(fo, i);
            if (stat(src, &st) != 0) {
                if (stat(dst, &st) != 0)
                    fo_put_file(src);
                else if (rename(dst, src) < 0)
                    fo_die("rename", errno);
            }
            continue;
        }
        if (want_f && !have_f)
            fo_put_file(fo->f[i]);
        if (!want_f && have_f && unlink(fo->f[i]) < 0)
            fo_die("unlink", errno);
        if (op == FO_MKDIR)
            rmdir(fo->g[i]);
        if (op == FO_SYMLINK || op == FO_LINK)
            unlink(fo->g[i]);
    }
}

static inline void fo_cleanup(struct fo *fo)
{
    for (int i = 0; i < fo->nfiles; i++) {
        unlink(fo->f[i]);
        if (unlink(fo->g[i]) < 0)
            rmdir(fo->g[i]);
    }
}

/* Brings the directory, as the last program left it (bench.py's steps share it, --keep),
 * or as an interrupted run did, to the tree this program starts from: the --files files
 * f<i>, each a 4 KiB file (a rename's g<i> renamed back; the route table's directories,
 * symlinks and links g<i> removed, the files its ftruncate and fallocate resized
 * rewritten), or none of them when the first op is create. Only what is missing is made
 * and only what is extra removed: a step after a step that left the tree whole creates
 * and deletes nothing (on ext4 without a journal a create skips every inode deleted in
 * the last 60 s, 10-320 us a create here: see bench.py). */
static inline void fo_normalize(struct fo *fo, bool want_f)
{
    for (int i = 0; i < fo->nfiles; i++) {
        struct stat st;
        bool have_f = stat(fo->f[i], &st) == 0;
        if (have_f && want_f && st.st_size != FO_BS)
            fo_put_file(fo->f[i]); /* the route table's ftruncate and fallocate resize files */
        if (lstat(fo->g[i], &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                if (rmdir(fo->g[i]) < 0)
                    fo_die("rmdir", errno);
            } else if (!have_f && S_ISREG(st.st_mode) && st.st_nlink == 1) {
                if (rename(fo->g[i], fo->f[i]) < 0)
                    fo_die("rename", errno);
                have_f = true;
            } else if (unlink(fo->g[i]) < 0) {
                fo_die("unlink", errno);
            }
        }
        if (want_f && !have_f)
            fo_put_file(fo->f[i]);
        if (!want_f && have_f && unlink(fo->f[i]) < 0)
            fo_die("unlink", errno);
    }
}

/* Sleeps until the wall clock's next second. ext4 without a journal (this machine's)
 * does not reuse an inode deleted within the last 60 s (360 s while its inode-table
 * block is dirty): a create scans the group's inode table past every such one, which
 * costs it 100-250 us once a pass of unlinks has freed them all -- but an inode whose
 * deletion time is the current second does not count as recent (fs/ext4/ialloc.c,
 * recently_deleted: dtime before now). A create pass started within the second its
 * files were deleted ran 2-5x faster than the next (8.5k -> 37k -> 42k ops/s at one in
 * flight in one program, 2026-12-02): a lottery of where the clock stood. Every create
 * pass starts on a fresh second, so all of them see the kernel in the same state. */
static inline void fo_next_second(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long ns = 1000000000L - t.tv_nsec + 2000000L; /* + 2 ms */
    struct timespec d = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&d, &d) < 0 && errno == EINTR)
        ;
}

static inline int64_t fo_rusage_ns(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static inline int fo_pass_ops(struct fo *fo)
{
    int n = fo->pass_files > 0 && fo->pass_files < fo->nfiles ? fo->pass_files : fo->nfiles;
    if (fo->op == FO_READDIR)
        n = fo->inflight * 2 < 16 ? 16 : fo->inflight * 2;
    else if (fo->op == FO_FTRUNCATE || fo->op == FO_FALLOCATE)
        n = FO_MAX_INFLIGHT * 16; /* a pass: 1,024 calls on 64 files */
    /* the warm-up: a slice (threads started, caches filled); a chain's first, whole
     * passes, so that its first timed create follows the deletion of all the files, as
     * every other does (fo_next_second) */
    return fo->warmup && n > 1000 && !fo->warmup_whole ? 1000 : n;
}

/* One pass: returns its wall time (ns) and adds its CPU time to *cpu_ns. */
static inline int64_t fo_run_pass(struct fo *fo, const struct fo_sys *sys, int64_t *cpu_ns, int64_t *thread_ns)
{
    fo_prepare(fo);
    if (fo->op == FO_CREATE)
        fo_next_second();
    fo->nops = fo_pass_ops(fo);
    fo->next = fo->done = fo->active = 0;
    fo->nfree = 0;
    fo->entries = 0;
    for (int s = fo->inflight - 1; s >= 0; s--)
        fo->free_slots[fo->nfree++] = s;
    int64_t c0 = fo_rusage_ns(RUSAGE_SELF), th0 = fo_rusage_ns(RUSAGE_THREAD), t0 = bench_now_ns();
    while (fo->done < fo->nops) {
        while (fo->nfree > 0 && fo->next < fo->nops) {
            int s = fo->free_slots[--fo->nfree];
            int i = fo->next++;
            fo->slot_file[s] = i;
            fo->active++;
            sys->start(fo, s, fo->op == FO_READDIR ? 0 : i);
        }
        if (fo->done < fo->nops)
            sys->wait(fo);
    }
    int64_t t1 = bench_now_ns();
    *cpu_ns = fo_rusage_ns(RUSAGE_SELF) - c0;
    if (thread_ns)
        *thread_ns = fo_rusage_ns(RUSAGE_THREAD) - th0;
    if (fo->op == FO_READDIR && fo->entries != (long)fo->nops * (fo->nfiles + 2)) {
        fprintf(stderr, "fs-ops: readdir saw %ld entries, want %ld\n", fo->entries, (long)fo->nops * (fo->nfiles + 2));
        exit(1);
    }
    fo->pass++;
    return t1 - t0;
}

static inline int fo_op_by_name(const char *n)
{
    for (int i = 0; i < FO_NOPS; i++)
        if (!strcmp(n, fo_op_names[i]))
            return i;
    /* the route table's measurement of the benchmark's own path calls */
    if (!strcmp(n, "route:unlink"))
        return FO_UNLINK;
    if (!strcmp(n, "route:rename"))
        return FO_RENAME;
    fprintf(stderr, "fs-ops: unknown op %s\n", n);
    exit(2);
}

/* Usage: prog --dir D --op OP[,OP2] [--inflight 1,64] [--ms M] [--files N] [--ops K]
 *             [--fs NAME] [--keep] [--verify-rusage] + the system's own (parsed by it first)
 *
 * --op create,unlink chains two ops: their passes alternate (create, unlink, create, ...),
 * each pass leaving exactly the tree the other measures, and each op gets its own records;
 * the only pair that fits is create and unlink. --ops K: a pass touches the first K of the
 * --files files (the others stay in the directory). --keep: leave the tree as the last
 * pass left it (bench.py's steps share it; the next program normalizes it) instead of
 * removing it. */
static inline int fo_main(int argc, char **argv, struct fo *fo, const struct fo_sys *sys)
{
    const char *inflights = "1,64", *fsname = "unknown";
    long ms = 300;
    bool verify = false, keep = false;
    /* QUICK=1 (run.py --quick, a smoke run): one pass a point, the warm-ups slices */
    bool quick = bench_quick();
    int min_passes = quick ? 1 : FO_MIN_PASSES;
    static char opbuf[64];
    fo->nfiles = 10000;
    fo->op = -1;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : "";
        if (!strcmp(argv[a], "--dir")) fo->dir = v, a++;
        else if (!strcmp(argv[a], "--op")) snprintf(opbuf, sizeof opbuf, "%s", v), fo->op = 0, a++;
        else if (!strcmp(argv[a], "--inflight")) inflights = v, a++;
        else if (!strcmp(argv[a], "--ms")) ms = atol(v), a++;
        else if (!strcmp(argv[a], "--files")) fo->nfiles = atoi(v), a++;
        else if (!strcmp(argv[a], "--ops")) fo->pass_files = atoi(v), a++;
        else if (!strcmp(argv[a], "--fs")) fsname = v, a++;
        else if (!strcmp(argv[a], "--keep")) keep = true;
        else if (!strcmp(argv[a], "--verify-rusage")) verify = true;
    }
    if (fo->op == 0) {
        char *comma = strchr(opbuf, ',');
        fo->nchain = 1;
        if (comma) {
            *comma = '\0';
            fo->op_names[1] = comma + 1;
            fo->chain[1] = fo_op_by_name(comma + 1);
            fo->nchain = 2;
        }
        fo->op_names[0] = opbuf;
        fo->chain[0] = fo_op_by_name(opbuf);
        if (fo->nchain == 2 && !(fo->chain[0] == FO_CREATE && fo->chain[1] == FO_UNLINK)) {
            fprintf(stderr, "fs-ops: only create,unlink chain (each leaves the tree the other needs)\n");
            return 2;
        }
        fo->op = fo->chain[0];
        fo->op_name = fo->op_names[0];
    }
    if (!fo->dir || fo->op < 0 || fo->nfiles <= 0) {
        fprintf(stderr, "usage: %s --dir D --op OP[,OP2] [--inflight 1,64] [--ms M] [--files N] [--ops K] "
                "[--fs NAME] [--keep]\n", argv[0]);
        return 2;
    }
    fo->f = calloc((size_t)fo->nfiles, sizeof *fo->f);
    fo->g = calloc((size_t)fo->nfiles, sizeof *fo->g);
    fo->wbuf = aligned_alloc(4096, FO_BS);
    if (!fo->f || !fo->g || !fo->wbuf)
        fo_die("memory", ENOMEM);
    memset(fo->wbuf, 'x', FO_BS);
    for (int i = 0; i < fo->nfiles; i++) {
        snprintf(fo->f[i], sizeof fo->f[i], "%s/f%05d", fo->dir, i);
        snprintf(fo->g[i], sizeof fo->g[i], "%s/g%05d", fo->dir, i);
    }
    for (int s = 0; s < FO_MAX_INFLIGHT; s++) {
        fo->rbuf[s] = aligned_alloc(4096, fo->op == FO_READDIR ? FO_DIRBUF : FO_BS);
        if (!fo->rbuf[s])
            fo_die("memory", ENOMEM);
    }
    fo_normalize(fo, fo->op != FO_CREATE);
    sys->init(fo);
    if (fo->op == FO_FTRUNCATE || fo->op == FO_FALLOCATE) {
        fo->fds = calloc(FO_MAX_INFLIGHT, sizeof *fo->fds);
        for (int s = 0; s < FO_MAX_INFLIGHT; s++) {
            fo->fds[s] = open(fo->f[s], O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            if (fo->fds[s] < 0)
                fo_die("open", errno);
        }
    }
    char list[64];
    snprintf(list, sizeof list, "%s", inflights);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        fo->inflight = atoi(tok);
        if (fo->inflight < 1 || fo->inflight > FO_MAX_INFLIGHT)
            fo_die("--inflight", EINVAL);
        struct rounds_samples ops[2] = {{0, 0, 0}, {0, 0, 0}}, cpu[2] = {{0, 0, 0}, {0, 0, 0}};
        int64_t cpu_ns, th_ns, spent[2] = {0, 0};
        int passes[2] = {0, 0};
        /* warm-up: threads started, caches filled (a chain: one of each, in its order) */
        fo->warmup = true;
        fo->warmup_whole = fo->nchain == 2 && fo->pass == 0 && !quick;
        for (int c = 0; c < fo->nchain; c++) {
            fo->op = fo->chain[c];
            fo_run_pass(fo, sys, &cpu_ns, NULL);
        }
        fo->warmup = false;
        /* At least FO_MIN_PASSES passes of each op: a pass of 10,000 renames or unlinks at
         * one in flight takes 200-400 ms here, longer than --ms, and a point of one or two
         * samples is one window of a shared machine (the run of 2026-12-02 decided
         * rename@1 on one pass per system, unlink@1's CPU on two). A chain's ops take
         * turns, so both see the same moments. */
        for (int c = 0;; c = (c + 1) % fo->nchain) {
            bool more = false;
            for (int k = 0; k < fo->nchain; k++)
                more |= passes[k] < min_passes || spent[k] < ms * 1000000;
            if (!more)
                break;
            fo->op = fo->chain[c];
            fo->op_name = fo->op_names[c];
            int64_t wall = fo_run_pass(fo, sys, &cpu_ns, &th_ns);
            spent[c] += wall;
            passes[c]++;
            rounds_add(&ops[c], (double)fo->nops * 1e9 / (double)wall);
            rounds_add(&cpu[c], (double)cpu_ns / fo->nops);
            if (verify)
                fprintf(stderr, "fs-ops %s %s inflight %d: pass CPU, RUSAGE_SELF %.0f ns/op, RUSAGE_THREAD (the "
                        "loop's thread) %.0f ns/op\n", fo->system, fo->op_name, fo->inflight,
                        (double)cpu_ns / fo->nops, (double)th_ns / fo->nops);
        }
        for (int c = 0; c < fo->nchain; c++) {
            char extra[300], keys[600];
            snprintf(extra, sizeof extra, "\"op\":\"%s\",\"inflight\":%d,\"fs\":\"%s\"%s%s", fo->op_names[c],
                     fo->inflight, fsname, fo->keys_extra ? "," : "", fo->keys_extra ? fo->keys_extra : "");
            rounds_keys(keys, sizeof keys, "fs-ops", fo->system, fo->cas ? fo->cas : fo->op_names[c], extra);
            rounds_emit_samples(keys, "ops_per_s", &ops[c]);
            rounds_emit_samples(keys, "cpu_ns_per_op", &cpu[c]);
            free(ops[c].v);
            free(cpu[c].v);
        }
        fo->op = fo->chain[0];
        fo->op_name = fo->op_names[0];
    }
    if (sys->fini)
        sys->fini(fo);
    if (!keep)
        fo_cleanup(fo);
    return 0;
}

#endif
