/* ctl-batch: the driver every program shares. A program defines the four sys_ functions
 * below and includes this file once.
 *
 * The workload (2015's "one call for many interest changes"): CTLB_MAXK pipe read ends
 * are watched for EPOLLIN in one epoll set (or one libuv loop). A batch is k interest
 * changes: fds 0..k-1 switch between EPOLLIN and EPOLLIN|EPOLLOUT (the mask alternates
 * batch by batch, so each change is real). A pipe's read end is never writable, so no
 * change makes an fd ready: the batch measures the changes alone. A sample is one
 * batch's wall time divided by k (ns per change); each run prints one record per k
 * with its histogram (lab/common/rounds.h), which run.py pools over the rounds.
 *
 *   prog --k 1,8,32,256 --ms 200        timed: ms per k
 *   prog --k 1,8,32,256 --count 20      counting run (lab/common/count.py)
 */
#ifndef LAB2015_CTLB_H
#define LAB2015_CTLB_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count.h"
#include "frame.h"

#define CTLB_MAXK 256

/* Registers rfd[0..n) for reading. 0, 77 (skip: says why on stderr) or another exit code. */
static int sys_init(int n, const int *rfd);
/* Applies k changes: fd rfd[i] gets READ|WRITE interest if on, else READ. 0 or -errno. */
static int sys_batch(const int *rfd, int k, int on);
static void sys_fini(void);
/* The record's identifying keys, e.g. "\"system\":\"kernel\",\"case\":\"epoll_ctl\"". */
static const char *sys_json(void);

static struct rounds_hist ctlb_hist;

static int ctlb_run(const int *rfd, int k, const struct frame_opts *o, int *on, int id, const int *own, int nown)
{
    char keys[512];
    snprintf(keys, sizeof keys, "\"bench\":\"ctl-batch\",%s,\"changes\":%d", sys_json(), k);
    for (int i = 0; i < 32; i++) { /* warm: first touches, lazily built kernel state */
        *on ^= 1;
        int r = sys_batch(rfd, k, *on);
        if (r < 0) {
            fprintf(stderr, "batch of %d: %s\n", k, strerror(-r));
            return 1;
        }
    }
    if (o->count > 0) {
        count_begin(id, "syscalls_per_batch", keys, o->count, own, nown);
        for (long b = 0; b < o->count; b++) {
            *on ^= 1;
            if (sys_batch(rfd, k, *on) < 0)
                return 1;
        }
        count_end(id);
        return 0;
    }
    rounds_hist_reset(&ctlb_hist);
    int64_t stop = bench_now_ns() + (int64_t)o->ms * 1000000;
    for (;;) {
        *on ^= 1;
        int64_t t0 = bench_now_ns();
        int r = sys_batch(rfd, k, *on);
        int64_t t1 = bench_now_ns();
        if (r < 0) {
            fprintf(stderr, "batch of %d: %s\n", k, strerror(-r));
            return 1;
        }
        rounds_hist_add(&ctlb_hist, t1 - t0);
        if (t1 >= stop && ctlb_hist.n >= 20)
            break;
    }
    rounds_emit_hist(keys, "ns_per_change", &ctlb_hist, k); /* a sample is one batch: / k */
    return 0;
}

int main(int argc, char **argv)
{
    struct frame_opts o = frame_parse(argc, argv, "--k", 200);
    for (int i = 0; i < o.nlist; i++)
        if (o.list[i] < 1 || o.list[i] > CTLB_MAXK) {
            fprintf(stderr, "k must be 1..%d\n", CTLB_MAXK);
            return 2;
        }
    static int rfd[CTLB_MAXK], wfd[CTLB_MAXK], own[2 * CTLB_MAXK];
    frame_pipes(CTLB_MAXK, rfd, wfd, own);
    int rc = sys_init(CTLB_MAXK, rfd);
    if (rc != 0)
        return rc;
    int on = 0;
    for (int i = 0; i < o.nlist && rc == 0; i++)
        rc = ctlb_run(rfd, o.list[i], &o, &on, i, own, 2 * CTLB_MAXK);
    sys_fini();
    frame_pipes_close(CTLB_MAXK, rfd, wfd);
    return rc;
}

#endif
