/* ctl-batch: the driver every program shares. A program defines the four sys_ functions
 * below and includes this file once.
 *
 * The workload (2015's "one call for many interest changes"): CTLB_MAXK pipe read ends
 * are watched for EPOLLIN in one epoll set (or one libuv loop). A batch is k interest
 * changes: fds 0..k-1 switch between EPOLLIN and EPOLLIN|EPOLLOUT (the mask alternates
 * batch by batch, so each change is real). A pipe's read end is never writable, so no
 * change makes an fd ready: the batch measures the changes alone. A sample is one
 * batch's wall time; the collector divides it by k (ns per change).
 *
 *   prog --k 1,8,32,256 --ms 200 --samples FILE       timed: ms per k, histogram appended
 *   prog --k 1,8,32,256 --count 20 --samples FILE     counting run (under strace -f)
 */
#ifndef LAB2015_CTLB_H
#define LAB2015_CTLB_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "series.h"

#define CTLB_MAXK 256

/* Registers rfd[0..n) for reading. 0, 77 (skip: says why on stderr) or another exit code. */
static int sys_init(int n, const int *rfd);
/* Applies k changes: fd rfd[i] gets READ|WRITE interest if on, else READ. 0 or -errno. */
static int sys_batch(const int *rfd, int k, int on);
static void sys_fini(void);
/* The record's identifying keys, e.g. "\"system\":\"kernel\",\"case\":\"epoll_ctl\"". */
static const char *sys_json(void);

static struct sh_hist ctlb_hist;

static int ctlb_run(const int *rfd, int k, int ms, long count, const char *samples, int *on, int id, const int *own, int nown)
{
    char json[512];
    for (int i = 0; i < 32; i++) { /* warm: first touches, lazily built kernel state */
        *on ^= 1;
        int r = sys_batch(rfd, k, *on);
        if (r < 0) {
            fprintf(stderr, "batch of %d: %s\n", k, strerror(-r));
            return 1;
        }
    }
    if (count > 0) {
        snprintf(json, sizeof json, "{%s,\"metric\":\"syscalls_per_batch\",\"changes\":%d,\"div\":%ld}",
                 sys_json(), k, count);
        if (sh_count_describe(samples, id, json, own, nown) < 0)
            return 1;
        sh_mark("begin", id);
        for (long b = 0; b < count; b++) {
            *on ^= 1;
            if (sys_batch(rfd, k, *on) < 0)
                return 1;
        }
        sh_mark("end", id);
        return 0;
    }
    sh_reset(&ctlb_hist);
    int64_t stop = bench_now_ns() + (int64_t)ms * 1000000;
    for (;;) {
        *on ^= 1;
        int64_t t0 = bench_now_ns();
        int r = sys_batch(rfd, k, *on);
        int64_t t1 = bench_now_ns();
        if (r < 0) {
            fprintf(stderr, "batch of %d: %s\n", k, strerror(-r));
            return 1;
        }
        sh_add(&ctlb_hist, t1 - t0);
        if (t1 >= stop && ctlb_hist.n >= 20)
            break;
    }
    snprintf(json, sizeof json, "{%s,\"metric\":\"ns_per_change\",\"changes\":%d,\"div\":%d}", sys_json(), k, k);
    return sh_write(samples, json, &ctlb_hist) < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    int ks[8] = {1, 8, 32, 256}, nk = 4, ms = 200;
    long count = 0;
    const char *samples = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--k"))
            nk = sh_parse_list(argv[i + 1], ks, 8);
        else if (!strcmp(argv[i], "--ms"))
            ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--count"))
            count = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--samples"))
            samples = argv[i + 1];
    }
    if (!samples || nk <= 0) {
        fprintf(stderr, "usage: %s --samples FILE [--k 1,8,32,256] [--ms 200 | --count N]\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < nk; i++)
        if (ks[i] < 1 || ks[i] > CTLB_MAXK) {
            fprintf(stderr, "k must be 1..%d\n", CTLB_MAXK);
            return 2;
        }

    static int rfd[CTLB_MAXK], wfd[CTLB_MAXK], own[2 * CTLB_MAXK];
    for (int i = 0; i < CTLB_MAXK; i++) {
        int p[2];
        if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0) {
            perror("pipe2");
            return 1;
        }
        rfd[i] = p[0];
        wfd[i] = p[1];
        own[2 * i] = p[0];
        own[2 * i + 1] = p[1];
    }
    int rc = sys_init(CTLB_MAXK, rfd);
    if (rc != 0)
        return rc;
    int on = 0;
    for (int i = 0; i < nk && rc == 0; i++)
        rc = ctlb_run(rfd, ks[i], ms, count, samples, &on, i, own, 2 * CTLB_MAXK);
    sys_fini();
    for (int i = 0; i < CTLB_MAXK; i++) {
        close(rfd[i]);
        close(wfd[i]);
    }
    return rc;
}

#endif
