/* file-batch: the aio-stress shape (aio-stress -O -r 8 -d 256 -b B), shared by the
 * programs of every system (vigil, liburing, libaio, libuv).
 *
 * depth requests are kept in flight; as they complete, their slots are refilled in
 * groups of `batch` (one submission call per group: io_submit, io_uring_submit, one
 * vigil_file_submit; libuv has no batch call and starts them one by one). Offsets are
 * random, block-aligned, over the whole file.
 *
 * Timed mode: per batch size, a warm-up, then windows of measuring time; each window
 * gives one IOPS sample and one CPU-ns-per-I/O sample (user + system of the whole
 * process, worker threads included: CLOCK_PROCESS_CPUTIME_ID). Each program run prints,
 * per batch size, one "iops" and one "cpu_ns_per_io" record carrying the samples;
 * lab/run.py pools the rounds (one figure per series, never a best-of-rounds).
 *
 * Count mode (--count N): N completions after a warm-up of depth, between the markers of
 * lab/common/count.h; bench.py runs it under lab/common/count.py (strace -f: worker
 * threads' calls count too), which prints syscalls_per_io, so set-up calls are left out.
 *
 * A system provides: sys_init(fb) (may set fb->keys), sys_submit(fb, slots, n),
 * sys_wait(fb) (waits for at least one completion, calls fb_done(fb, slot) for each),
 * sys_fini(fb); its main is fb_program(argc, argv, its name).
 */
#ifndef VIGIL_LAB_FB_H
#define VIGIL_LAB_FB_H

#include "bench.h"
#include "count.h"
#include "rounds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define FB_MAX_DEPTH 1024
#define FB_MAX_WIN 4096

struct fb {
    /* options */
    const char *path;
    const char *file; /* written | unwritten | cached */
    const char *system;
    const char *engine;    /* vigil: engine asked */
    int batches[8], nbatches;
    int depth;
    int64_t ms;            /* measuring time per batch size in this run */
    long count;            /* count mode: completions to run */
    int registered;        /* register the file and the buffers first (io_uring) */
    /* the file */
    int fd;
    int direct;
    size_t bs;
    uint64_t nblocks;
    char *mem;             /* depth buffers of bs */
    /* the run */
    int batch;
    int freeslots[FB_MAX_DEPTH];
    int nfree;
    long done;             /* completions so far */
    uint64_t rng;
    int64_t failures;
    void *sys;             /* the system's state */
    const char *keys;      /* extra keys of the records (vigil: engine, backend); "" if none */
};

static void sys_init(struct fb *fb);
static void sys_submit(struct fb *fb, const int *slots, int n);
static void sys_wait(struct fb *fb);
static void sys_fini(struct fb *fb);

static inline void fb_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s --path FILE --file written|unwritten|cached [--batch 1,8,32] [--depth 256]\n"
            "          [--ms MS | --count N] [--engine uring|aio|threads] [--registered 1]\n",
            prog);
    exit(2);
}

static inline void fb_parse(struct fb *fb, int argc, char **argv, const char *system)
{
    memset(fb, 0, sizeof *fb);
    fb->system = system;
    fb->keys = "";
    fb->depth = 256;
    fb->ms = bench_quick() ? 100 : 400;
    fb->batches[0] = 1, fb->batches[1] = 8, fb->batches[2] = 32, fb->nbatches = 3;
    fb->rng = 0x9e3779b97f4a7c15ull;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            fb_usage(argv[0]);
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--path"))
            fb->path = v;
        else if (!strcmp(k, "--file"))
            fb->file = v;
        else if (!strcmp(k, "--depth"))
            fb->depth = atoi(v);
        else if (!strcmp(k, "--ms"))
            fb->ms = atoll(v);
        else if (!strcmp(k, "--count"))
            fb->count = atol(v);
        else if (!strcmp(k, "--engine"))
            fb->engine = v;
        else if (!strcmp(k, "--registered"))
            fb->registered = atoi(v);
        else if (!strcmp(k, "--batch")) {
            fb->nbatches = 0;
            for (char *s = (char *)v; *s && fb->nbatches < 8;) {
                fb->batches[fb->nbatches++] = (int)strtol(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        } else
            fb_usage(argv[0]);
    }
    if (!fb->path || !fb->file || fb->depth < 1 || fb->depth > FB_MAX_DEPTH)
        fb_usage(argv[0]);
    for (int i = 0; i < fb->nbatches; i++)
        if (fb->batches[i] < 1 || fb->batches[i] > fb->depth)
            fb_usage(argv[0]);
    /* cached: 512 B buffered reads of a page-cache-hot file; else 8 KiB O_DIRECT. */
    fb->direct = strcmp(fb->file, "cached") != 0;
    fb->bs = fb->direct ? 8192 : 512;
}

static inline void fb_open(struct fb *fb)
{
    fb->fd = open(fb->path, O_RDONLY | O_CLOEXEC | (fb->direct ? O_DIRECT : 0));
    if (fb->fd < 0) {
        fprintf(stderr, "%s: open %s: %s\n", fb->system, fb->path, strerror(errno));
        exit(1);
    }
    struct stat st;
    if (fstat(fb->fd, &st) < 0 || st.st_size < (off_t)fb->bs) {
        fprintf(stderr, "%s: %s is too small\n", fb->system, fb->path);
        exit(1);
    }
    fb->nblocks = (uint64_t)st.st_size / fb->bs;
    if (posix_memalign((void **)&fb->mem, 4096, (size_t)fb->depth * fb->bs) != 0) {
        fprintf(stderr, "%s: out of memory\n", fb->system);
        exit(1);
    }
    memset(fb->mem, 0, (size_t)fb->depth * fb->bs);
}

static inline char *fb_buf(struct fb *fb, int slot)
{
    return fb->mem + (size_t)slot * fb->bs;
}

/* xorshift64*: a random block of the file. */
static inline int64_t fb_offset(struct fb *fb)
{
    uint64_t x = fb->rng;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    fb->rng = x;
    return (int64_t)(((x * 0x2545f4914f6cdd1dull) >> 11) % fb->nblocks * fb->bs);
}

/* A system calls this for each completed request (res: bytes or -errno). */
static inline void fb_done(struct fb *fb, int slot, long res)
{
    if (res != (long)fb->bs && fb->failures++ < 3)
        fprintf(stderr, "%s: read returned %ld, wanted %zu\n", fb->system, res, fb->bs);
    fb->freeslots[fb->nfree++] = slot;
    fb->done++;
}

/* Refill: whole batches of free slots. */
static inline void fb_fill(struct fb *fb)
{
    while (fb->nfree >= fb->batch) {
        fb->nfree -= fb->batch;
        sys_submit(fb, &fb->freeslots[fb->nfree], fb->batch);
    }
}

/* Runs until `until` completions (count mode) or the time end_ns. */
static inline void fb_run_until(struct fb *fb, long until, int64_t end_ns)
{
    while (fb->done < until && (end_ns == 0 || bench_now_ns() < end_ns)) {
        fb_fill(fb);
        sys_wait(fb);
    }
}

/* Drains what is in flight, so the next batch size starts from an idle system. */
static inline void fb_drain(struct fb *fb)
{
    while (fb->nfree < fb->depth)
        sys_wait(fb);
}

/* The case names the shape; the file key says which file (and so 8 KiB O_DIRECT or
 * 512 B buffered: the "bs" key). */
static inline const char *fb_case(struct fb *fb)
{
    return fb->registered ? "random read, registered file+buffers" : "random read";
}

/* The keys of this system's records at the current batch size. */
static inline const char *fb_keys(struct fb *fb, char *keys, size_t size)
{
    char extra[256];
    snprintf(extra, sizeof extra, "\"file\":\"%s\",\"batch\":%d,\"depth\":%d,\"bs\":%zu%s%s", fb->file, fb->batch,
             fb->depth, fb->bs, fb->keys[0] ? "," : "", fb->keys);
    return rounds_keys(keys, size, "file-batch", fb->system, fb_case(fb), extra);
}

static inline int fb_main(struct fb *fb)
{
    fb_open(fb);
    sys_init(fb);
    for (int i = 0; i < fb->depth; i++)
        fb->freeslots[i] = i;
    fb->nfree = fb->depth;
    struct rounds_samples iops = {0, 0, 0}, cpu = {0, 0, 0};
    for (int bi = 0; bi < fb->nbatches; bi++) {
        fb->batch = fb->batches[bi];
        fb->done = 0;
        if (fb->count > 0) {
            char keys[512];
            fb_keys(fb, keys, sizeof keys);
            fb_run_until(fb, fb->depth, 0);       /* warm-up */
            fb->done = 0;
            count_begin(bi, "syscalls_per_io", keys, fb->count, NULL, 0);
            fb_run_until(fb, fb->count, 0);
            count_end(bi);
            fb_drain(fb);
            continue;
        }
        int64_t win_ns = fb->ms * 1000000 / 20;   /* 20 windows per batch size */
        if (win_ns < 5000000)
            win_ns = 5000000;
        fb_run_until(fb, 1L << 60, bench_now_ns() + win_ns * 2); /* warm-up */
        iops.n = cpu.n = 0;
        int64_t t0 = bench_now_ns(), c0 = bench_cpu_ns(), end = t0 + fb->ms * 1000000;
        long d0 = fb->done;
        while (iops.n < FB_MAX_WIN && t0 < end) {
            fb_run_until(fb, 1L << 60, t0 + win_ns);
            int64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
            long d = fb->done - d0;
            if (d > 0) {
                rounds_add(&iops, (double)d * 1e9 / (double)(t1 - t0));
                rounds_add(&cpu, (double)(c1 - c0) / (double)d);
            }
            t0 = t1, c0 = c1, d0 = fb->done;
        }
        fb_drain(fb);
        char keys[512];
        fb_keys(fb, keys, sizeof keys);
        rounds_emit_samples(keys, "iops", &iops);
        rounds_emit_samples(keys, "cpu_ns_per_io", &cpu);
    }
    free(iops.v);
    free(cpu.v);
    sys_fini(fb);
    close(fb->fd);
    free(fb->mem);
    return fb->failures ? 1 : 0;
}

/* A system's whole program. */
static inline int fb_program(int argc, char **argv, const char *system)
{
    struct fb fb;
    fb_parse(&fb, argc, argv, system);
    return fb_main(&fb);
}

#endif
