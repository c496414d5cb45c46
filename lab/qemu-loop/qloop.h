/* qemu-loop: the driver every program shares. A program defines the sys_ functions below
 * and includes this file once.
 *
 * The workload (2015, QEMU's main loop): n pipe read ends are watched for reading. Each
 * turn,
 *   1. one fd becomes ready: the benchmark writes one byte into pipe r = t mod n;
 *   2. the program changes the interest of 4 fds (a rotating window): each toggles
 *      between READ and READ|WRITE. A pipe's read end is never writable, so a change
 *      never makes a second fd ready. How much of a change reaches the kernel is each
 *      system's business: the raw calls, libuv, libev and libevent send every one;
 *      vigil's uring backend does not send a change that only drops bits (lazy
 *      narrowing), and as the dropped WRITE never fires here, the kernel's mask stays
 *      READ|WRITE and most widenings need nothing either: this workload is that
 *      trick's best case (QEMU's changes are like it: handlers set and cleared on
 *      idle fds);
 *   3. one loop turn: wait and dispatch; the callback reads the byte. As in QEMU, a
 *      timer is always pending, so every wait carries a timeout: the raw calls pass
 *      QL_TIMEOUT_S, the libraries get a timer QL_TIMEOUT_S away (it never fires
 *      during a run).
 * A sample is the time of 1 + 2 + 3, one per turn. The write is timed because systems
 * do part of their work when an fd becomes ready, in the writer's context: epoll's
 * ready-list callback, and io_uring's poll completion, which runs as task work on the
 * return from write() when the ring has neither DEFER_TASKRUN nor a waiting task. Left
 * out, that work would vanish from some systems' turns and not others'. The driver
 * checks that exactly one callback ran per turn (a turn that missed its fd would
 * measure nothing).
 *
 * Each run prints one record per n with its histogram (lab/common/rounds.h), which
 * run.py pools over the rounds.
 *
 *   prog --fds 15,85,200 --ms 300       timed, ms per n
 *   prog --fds 15,85,200 --count 200    counting run (lab/common/count.py)
 */
#ifndef LAB2015_QLOOP_H
#define LAB2015_QLOOP_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count.h"
#include "frame.h"

#define QL_MAXN 1024
#define QL_CHANGES 4
#define QL_TIMEOUT_S 60

struct ql {
    int n;
    int rfd[QL_MAXN], wfd[QL_MAXN];
    unsigned char wr[QL_MAXN]; /* WRITE interest on */
    long got;                  /* bytes read by callbacks */
};

/* Watches q->rfd[0..n) for reading. 0, 77 (skip: says why on stderr) or an exit code. */
static int sys_init(struct ql *q);
/* fd i's interest becomes READ|WRITE if q->wr[i], else READ. 0 or -errno. */
static int sys_change(struct ql *q, int i);
/* One turn: wait and dispatch. 0 or -errno. */
static int sys_turn(struct ql *q);
static void sys_fini(struct ql *q);
/* The record's identifying keys, e.g. "\"system\":\"kernel\",\"case\":\"ppoll\"". */
static const char *sys_json(void);
/* The program's own options (argv is the whole command line). 0 or an exit code. */
static int sys_options(int argc, char **argv);

/* What a callback does with fd i's readiness: read the byte (and count it). */
static inline void ql_consume(struct ql *q, int fd)
{
    char buf[16];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r > 0)
        q->got += r;
}

static struct rounds_hist ql_hist;

static int ql_turn(struct ql *q, long t, int64_t *ns)
{
    int r = (int)(t % q->n);
    long before = q->got;
    int64_t t0 = bench_now_ns();
    if (write(q->wfd[r], "x", 1) != 1) {
        perror("write");
        return -1;
    }
    for (int j = 0; j < QL_CHANGES; j++) {
        int i = (int)((t * QL_CHANGES + j) % q->n);
        q->wr[i] ^= 1;
        int e = sys_change(q, i);
        if (e < 0) {
            fprintf(stderr, "interest change: %s\n", strerror(-e));
            return -1;
        }
    }
    int e = sys_turn(q);
    int64_t t1 = bench_now_ns();
    if (e < 0) {
        fprintf(stderr, "turn: %s\n", strerror(-e));
        return -1;
    }
    if (q->got != before + 1) {
        fprintf(stderr, "turn %ld: %ld byte(s) read, expected 1\n", t, q->got - before);
        return -1;
    }
    if (ns)
        *ns = t1 - t0;
    return 0;
}

static int ql_size(struct ql *q, int n, const struct frame_opts *o, int id)
{
    memset(q, 0, sizeof *q);
    q->n = n;
    int own[2 * QL_MAXN];
    frame_pipes(n, q->rfd, q->wfd, own);
    int rc = sys_init(q);
    long t = 0;
    char keys[512];
    snprintf(keys, sizeof keys, "\"bench\":\"qemu-loop\",%s,\"fds\":%d,\"changes\":%d", sys_json(), n, QL_CHANGES);
    long warm = o->count > 0 ? 100 : 2000; /* registrations applied, caches and lists built */
    for (; rc == 0 && t < warm; t++)
        if (ql_turn(q, t, NULL) < 0)
            rc = 1;
    if (rc == 0 && o->count > 0) {
        count_begin(id, "syscalls_per_turn", keys, o->count, own, 2 * n);
        for (long c = 0; rc == 0 && c < o->count; c++, t++)
            if (ql_turn(q, t, NULL) < 0)
                rc = 1;
        count_end(id);
    } else if (rc == 0) {
        rounds_hist_reset(&ql_hist);
        int64_t stop = bench_now_ns() + (int64_t)o->ms * 1000000;
        for (;; t++) {
            int64_t ns;
            if (ql_turn(q, t, &ns) < 0) {
                rc = 1;
                break;
            }
            rounds_hist_add(&ql_hist, ns);
            if ((t & 63) == 0 && bench_now_ns() >= stop)
                break;
        }
        if (rc == 0)
            rounds_emit_hist(keys, "ns_per_turn", &ql_hist, 1);
    }
    sys_fini(q);
    frame_pipes_close(n, q->rfd, q->wfd);
    return rc;
}

int main(int argc, char **argv)
{
    struct frame_opts o = frame_parse(argc, argv, "--fds", 300);
    int rc = sys_options(argc, argv);
    if (rc != 0)
        return rc;
    static struct ql q;
    for (int i = 0; i < o.nlist; i++) {
        if (o.list[i] < QL_CHANGES || o.list[i] > QL_MAXN) {
            fprintf(stderr, "fds must be %d..%d\n", QL_CHANGES, QL_MAXN);
            return 2;
        }
        rc = ql_size(&q, o.list[i], &o, i);
        if (rc != 0)
            return rc;
    }
    return 0;
}

#endif
