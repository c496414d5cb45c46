/* fs-ops diagnostic (not a system of the benchmark; bench.py does not run it): fs-ops'
 * read (open + read 4 KiB + close) at one in flight through vigil (uring backend and
 * engine, as fo_vigil --engine uring) and through a hand-written liburing loop (a plain
 * ring, as fo_liburing), alternating blocks in one process, so that both see the same
 * machine at nearly the same moments. On the lab's shared 2-core VM the separate
 * programs' passes spread 1.5-2x from one pass to the next, more than the difference
 * asked about; the per-pair ratios here spread far less.
 *
 *   fo_read_ab --dir D [--files N] [--blocks B] [--ops K]
 *
 * D must hold the 4 KiB files f00000.. (N of them, 2,000 by default), for example
 * `for i in $(seq -f %05g 0 1999); do head -c 4096 /dev/zero > D/f$i; done`. B blocks
 * (200) of K operations (500) each side, the side going first alternating. Prints the
 * medians and ranges of each side's thread CPU (CLOCK_THREAD_CPUTIME_ID: nothing goes
 * to io-wq on a cached file, so the thread's CPU is the process's) and wall time per
 * operation, and the medians and ranges of the per-pair ratios. */
#include "vigil.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char (*names)[64];
static int nfiles = 2000, next_file;
static char *buf;

static double now_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void die(const char *what, long r)
{
    fprintf(stderr, "fo_read_ab: %s: %s\n", what, strerror(r < 0 ? (int)-r : (int)r));
    exit(1);
}

/* vigil: one request, chained open -> read -> close from its callback. */
static vigil_loop *loop;
static vigil_file_req *req;
static int vstep, vfd, vdone;

static void on_done(vigil_loop *l, vigil_file_req *r, int64_t res)
{
    (void)l;
    if (res < 0)
        die("vigil", (long)res);
    if (vstep == 0) {
        vfd = (int)res;
        vigil_file_prep_read(r, vfd, buf, 4096, 0, on_done);
    } else if (vstep == 1) {
        if (res != 4096)
            die("short read", 5);
        vigil_file_prep_close(r, vfd, on_done);
    } else {
        vdone = 1;
        return;
    }
    vstep++;
    int e = vigil_file_start(loop, r);
    if (e < 0)
        die("vigil_file_start", e);
}

static void vigil_block(int n)
{
    for (int k = 0; k < n; k++) {
        vstep = 0;
        vdone = 0;
        vigil_file_prep_open(req, AT_FDCWD, names[next_file++ % nfiles], O_RDONLY | O_CLOEXEC, 0, on_done);
        int e = vigil_file_start(loop, req);
        if (e < 0)
            die("vigil_file_start", e);
        while (!vdone)
            if ((e = vigil_loop_run(loop, VIGIL_RUN_ONCE)) < 0)
                die("vigil_loop_run", e);
    }
}

/* liburing: the same chain, one io_uring_submit_and_wait per wait, as fo_liburing. */
static struct io_uring ring;

static void liburing_block(int n)
{
    for (int k = 0; k < n; k++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        io_uring_prep_openat(sqe, AT_FDCWD, names[next_file++ % nfiles], O_RDONLY | O_CLOEXEC, 0);
        int step = 0, fd = -1, fin = 0;
        while (!fin) {
            int e = io_uring_submit_and_wait(&ring, 1);
            if (e < 0)
                die("io_uring_submit_and_wait", e);
            struct io_uring_cqe *cqe;
            unsigned head, seen = 0;
            io_uring_for_each_cqe(&ring, head, cqe) {
                seen++;
                if (cqe->res < 0)
                    die("liburing", cqe->res);
                if (step == 0) {
                    fd = cqe->res;
                    io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf, 4096, 0);
                } else if (step == 1) {
                    if (cqe->res != 4096)
                        die("short read", 5);
                    io_uring_prep_close(io_uring_get_sqe(&ring), fd);
                } else {
                    fin = 1;
                }
                step++;
            }
            io_uring_cq_advance(&ring, seen);
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void show(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("  %-36s median %9.3f  min %9.3f  max %9.3f\n", what, v[n / 2], v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int blocks = 200, ops = 500;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--dir"))
            dir = argv[a + 1];
        else if (!strcmp(argv[a], "--files"))
            nfiles = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--blocks"))
            blocks = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--ops"))
            ops = atoi(argv[a + 1]);
    }
    if (!dir || nfiles < 1 || blocks < 1 || ops < 1) {
        fprintf(stderr, "usage: %s --dir D [--files N] [--blocks B] [--ops K]\n", argv[0]);
        return 2;
    }
    names = calloc((size_t)nfiles, sizeof *names);
    buf = aligned_alloc(4096, 4096);
    if (!names || !buf)
        die("memory", 12);
    for (int i = 0; i < nfiles; i++)
        snprintf(names[i], sizeof names[i], "%s/f%05d", dir, i);

    struct vigil_loop_options lo;
    vigil_loop_options_init(&lo);
    lo.backend = VIGIL_BACKEND_URING;
    struct vigil_file_options fo;
    vigil_file_options_init(&fo);
    fo.engine = VIGIL_FILE_ENGINE_URING;
    int e = vigil_loop_new(&loop, &lo);
    if (e < 0 || (e = vigil_file_setup(loop, &fo)) < 0) {
        fprintf(stderr, "fo_read_ab: vigil's io_uring: %s\n", strerror(-e));
        return e == -ENOSYS || e == -EPERM ? 77 : 1;
    }
    req = vigil_file_req_get(loop);
    if (!req)
        die("vigil_file_req_get", 12);
    if ((e = io_uring_queue_init(256, &ring, 0)) < 0)
        die("io_uring_queue_init", e);

    vigil_block(ops); /* warm-up: caches, the ring's first enter */
    liburing_block(ops);
    double *v[6];
    for (int i = 0; i < 6; i++)
        if (!(v[i] = calloc((size_t)blocks, sizeof(double))))
            die("memory", 12);
    double *vc = v[0], *lc = v[1], *vw = v[2], *lw = v[3], *rc = v[4], *rt = v[5];
    for (int b = 0; b < blocks; b++) {
        for (int s = 0; s < 2; s++) {
            bool vig = ((b + s) & 1) == 0;
            double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
            if (vig)
                vigil_block(ops);
            else
                liburing_block(ops);
            double c = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / ops, w = (now_ns(CLOCK_MONOTONIC) - w0) / ops;
            *(vig ? &vc[b] : &lc[b]) = c;
            *(vig ? &vw[b] : &lw[b]) = w;
        }
        rc[b] = vc[b] / lc[b];
        rt[b] = lw[b] / vw[b]; /* ops/s ratio: vigil's rate over liburing's */
    }
    printf("fo_read_ab: %d blocks of %d open + read 4 KiB + close, one in flight, alternating\n", blocks, ops);
    show("vigil CPU ns/op", vc, blocks);
    show("liburing CPU ns/op", lc, blocks);
    show("vigil wall ns/op", vw, blocks);
    show("liburing wall ns/op", lw, blocks);
    show("per pair: CPU/op vigil / liburing", rc, blocks);
    show("per pair: ops/s vigil / liburing", rt, blocks);
    io_uring_queue_exit(&ring);
    vigil_file_req_put(loop, req);
    vigil_loop_free(loop);
    return 0;
}
