/* ctl-batch, system "liburing": the hand-written reference the issue names. k SQEs of
 * IORING_OP_EPOLL_CTL, one io_uring_submit_and_wait(k) (one io_uring_enter), then the k
 * completions are checked and consumed. The ring uses no setup flags, as liburing's own
 * examples do: EPOLL_CTL runs inline during the submit, so flags that change how
 * completions are delivered hardly matter (LAB_URING_FLAGS=<setup flags> overrides; on
 * 6.18, SINGLE_ISSUER, COOP_TASKRUN, DEFER_TASKRUN and SUBMIT_ALL were all within 1% of
 * no flags at k = 1, 32, 256). */
#include <liburing.h>
#include <sys/epoll.h>

#include "ctlb.h"

static int epfd = -1;
static struct io_uring ring;
static int ring_up;
/* The kernel copies each epoll_event when it prepares the SQE (at submit), so one
 * array reused batch after batch is enough. */
static struct epoll_event evs[CTLB_MAXK];
/* LAB_URING_LINK=1 chains the SQEs with IOSQE_IO_LINK, as a batch that must stop at its
 * first failure has to: the record's case says so, to price the link apart. */
static int chain;
/* LAB_URING_SKIP=1 (with LAB_URING_LINK=1) adds IOSQE_CQE_SKIP_SUCCESS to every entry but
 * the last: one completion per batch, the last entry's or the failure's. Not in the
 * lab's plan: on a DEFER_TASKRUN ring it is slower (src/epoll1/epoll1.c says why). */
static int skip;
static unsigned setup_flags;
static char json[160];

static int sys_init(int n, const int *rfd)
{
    epfd = frame_epoll_watch(n, rfd);
    if (epfd < 0)
        return 1;
    const char *fl = getenv("LAB_URING_FLAGS");
    setup_flags = fl ? (unsigned)strtoul(fl, NULL, 0) : 0;
    int r = io_uring_queue_init(CTLB_MAXK, &ring, setup_flags);
    if (r < 0) {
        fprintf(stderr, "skip: io_uring_queue_init: %s\n", strerror(-r));
        return 77;
    }
    ring_up = 1;
    chain = getenv("LAB_URING_LINK") && atoi(getenv("LAB_URING_LINK")) != 0;
    skip = chain && getenv("LAB_URING_SKIP") && atoi(getenv("LAB_URING_SKIP")) != 0;
    if (chain || setup_flags)
        snprintf(json, sizeof json, "\"system\":\"liburing\",\"case\":\"IORING_OP_EPOLL_CTL%s, setup flags 0x%x\"",
                 skip ? " linked (IOSQE_IO_LINK), CQE_SKIP_SUCCESS" : chain ? " linked (IOSQE_IO_LINK)" : "", setup_flags);
    else
        snprintf(json, sizeof json, "\"system\":\"liburing\",\"case\":\"IORING_OP_EPOLL_CTL\"");
    struct io_uring_probe *p = io_uring_get_probe_ring(&ring);
    int ok = p && io_uring_opcode_supported(p, IORING_OP_EPOLL_CTL);
    if (p)
        io_uring_free_probe(p);
    if (!ok) {
        fprintf(stderr, "skip: this kernel's io_uring has no IORING_OP_EPOLL_CTL\n");
        return 77;
    }
    return 0;
}

static int sys_batch(const int *rfd, int k, int on)
{
    for (int i = 0; i < k; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        evs[i].events = on ? EPOLLIN | EPOLLOUT : EPOLLIN;
        evs[i].data.u64 = (uint64_t)i;
        io_uring_prep_epoll_ctl(sqe, epfd, rfd[i], EPOLL_CTL_MOD, &evs[i]);
        sqe->user_data = (uint64_t)i;
        if (chain && i + 1 < k)
            sqe->flags |= skip ? IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS : IOSQE_IO_LINK;
    }
    unsigned want = skip ? 1 : (unsigned)k;
    int r = io_uring_submit_and_wait(&ring, want);
    if (r < 0)
        return r;
    unsigned head, seen = 0;
    struct io_uring_cqe *cqe;
    int err = 0;
    io_uring_for_each_cqe(&ring, head, cqe)
    {
        if (cqe->res < 0 && !err)
            err = cqe->res;
        seen++;
    }
    io_uring_cq_advance(&ring, seen);
    if (seen != want && !err)
        err = -EPROTO;
    return err;
}

static void sys_fini(void)
{
    if (ring_up)
        io_uring_queue_exit(&ring);
    close(epfd);
}

static const char *sys_json(void)
{
    return json;
}
