/* fs-ops diagnostic (not a system of the benchmark; bench.py does not run it): stat at
 * one in flight through two io_uring rings in one process, alternating blocks of every
 * file, so both see the same machine at nearly the same moments. It decided that the
 * io_uring engine loses nothing on stat by its ring flags or by not using IOSQE_ASYNC
 * (the comment above the route table in src/file/engine_uring.c):
 *
 *   fo_ring_ab --dir D [--files N] [--blocks B] [--ab flags|async]
 *
 * flags (the default): ring A plain, ring B SINGLE_ISSUER | DEFER_TASKRUN |
 * TASKRUN_FLAG (vigil's backend); async: both plain, ring B's SQEs with IOSQE_ASYNC.
 * D must hold the files f00000.. (N of them, 10,000 by default): for example the
 * directory of a fo_sync --op stat run stopped before its clean-up, or made with
 * `for i in $(seq -f %05g 0 9999); do : > D/f$i; done`. Prints ops/s and CPU ns per
 * stat (getrusage of the whole process, io-wq workers included) per block and overall. */
#include <errno.h>
#include <fcntl.h>
#include "uring_flags.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *ab = "flags";
    int nfiles = 10000, blocks = 4;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--dir"))
            dir = argv[a + 1];
        else if (!strcmp(argv[a], "--files"))
            nfiles = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--blocks"))
            blocks = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--ab"))
            ab = argv[a + 1];
    }
    int async_b = !strcmp(ab, "async");
    if (!dir || nfiles < 1 || blocks < 1 || (!async_b && strcmp(ab, "flags"))) {
        fprintf(stderr, "usage: %s --dir D [--files N] [--blocks B] [--ab flags|async]\n", argv[0]);
        return 2;
    }
    unsigned flags[2] = {0, async_b ? 0 : IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                                              IORING_SETUP_TASKRUN_FLAG};
    struct io_uring ring[2];
    for (int k = 0; k < 2; k++) {
        struct io_uring_params p;
        memset(&p, 0, sizeof p);
        p.flags = flags[k];
        int r = io_uring_queue_init_params(8, &ring[k], &p);
        if (r < 0) {
            fprintf(stderr, "fo_ring_ab: io_uring_queue_init (flags %#x): %s\n", flags[k], strerror(-r));
            return r == -ENOSYS || r == -EPERM || r == -EINVAL ? 77 : 1;
        }
    }
    char (*names)[200] = calloc((size_t)nfiles, sizeof *names);
    if (!names)
        return 1;
    for (int i = 0; i < nfiles; i++)
        snprintf(names[i], sizeof names[i], "%s/f%05d", dir, i);
    struct statx stx;
    double wall[2] = {0, 0}, cpu[2] = {0, 0};
    for (int b = 0; b < 2 * blocks; b++) {
        int k = b & 1;
        double t0 = now_s(), c0 = cpu_s();
        for (int i = 0; i < nfiles; i++) {
            struct io_uring_sqe *sqe = io_uring_get_sqe(&ring[k]);
            io_uring_prep_statx(sqe, AT_FDCWD, names[i], 0, STATX_BASIC_STATS, &stx);
            if (k == 1 && async_b)
                sqe->flags |= IOSQE_ASYNC;
            int r = io_uring_submit_and_wait(&ring[k], 1);
            struct io_uring_cqe *cqe;
            if (r < 0 || io_uring_peek_cqe(&ring[k], &cqe) != 0) {
                fprintf(stderr, "fo_ring_ab: submit_and_wait: %s\n", strerror(r < 0 ? -r : EIO));
                return 1;
            }
            if (cqe->res < 0) {
                fprintf(stderr, "fo_ring_ab: statx %s: %s\n", names[i], strerror(-cqe->res));
                return 1;
            }
            io_uring_cqe_seen(&ring[k], cqe);
        }
        double dt = now_s() - t0, dc = cpu_s() - c0;
        wall[k] += dt;
        cpu[k] += dc;
        printf("block %d ring %c: %.0f ops/s, %.0f ns CPU/op\n", b, 'A' + k, nfiles / dt, dc / nfiles * 1e9);
    }
    for (int k = 0; k < 2; k++)
        printf("ring %c (flags %#x%s): %.0f ops/s, %.0f ns CPU/op\n", 'A' + k, flags[k],
               k == 1 && async_b ? ", IOSQE_ASYNC" : "", (double)nfiles * blocks / wall[k],
               cpu[k] / ((double)nfiles * blocks) * 1e9);
    io_uring_queue_exit(&ring[0]);
    io_uring_queue_exit(&ring[1]);
    free(names);
    return 0;
}
