/* qemu-loop, system "liburing": hand-written io_uring loops, one io_uring_enter per turn,
 * the two designs the issue asks the io_uring backend to weigh (a reference for vigil's
 * uring backend, measured in the same run):
 *   --case epoll  the fds live in an epoll set; a turn submits the 4 changes as
 *                 IORING_OP_EPOLL_CTL SQEs (IOSQE_CQE_SKIP_SUCCESS: no completion unless
 *                 one fails) and one IORING_OP_EPOLL_WAIT (kernel 6.15+), then
 *                 io_uring_submit_and_wait_timeout(1) (IORING_ENTER_EXT_ARG: the timeout
 *                 rides in the same enter). Level-triggered as epoll is.
 *   --case poll   one one-shot IORING_OP_POLL_ADD per fd; a change is a poll update
 *                 (IORING_OP_POLL_REMOVE with IORING_POLL_UPDATE_EVENTS, CQE skipped on
 *                 success); a poll that fired is re-armed in the next turn's submission
 *                 (one-shot + re-arm keeps level-triggered semantics).
 * Setup flags SINGLE_ISSUER|DEFER_TASKRUN (one thread owns the ring), retried without
 * them when refused; LAB_URING_FLAGS overrides.
 */
#include <liburing.h>
#include <poll.h>
#include <sys/epoll.h>

#include "qloop.h"

#define OP_EPOLL_WAIT 59 /* IORING_OP_EPOLL_WAIT (6.15); the installed 6.1 uapi lacks it */
#define UD_WAIT 0xffff0001ull
#define UD_CTL 0xffff0002ull
#define UD_UPDATE 0xffff0003ull /* + 1 + fd index */

static int use_poll;
static struct io_uring ring;
static int ring_up;
static int epfd = -1;
static char json[128];

/* epoll case: the kernel copies each change's event while preparing the SQE (inside
 * the turn's io_uring_enter), so 4 slots reused every turn are enough. */
static struct epoll_event chg[QL_CHANGES * 2];
static int nchg;
static struct epoll_event out[64];

/* poll case */
static uint32_t mask[QL_MAXN];
static unsigned char armed[QL_MAXN];
static int rearm[QL_MAXN], nrearm;

static int sys_options(int argc, char **argv)
{
    use_poll = frame_case(argc, argv, "epoll", "poll");
    if (use_poll < 0)
        return 2;
    snprintf(json, sizeof json, "\"system\":\"liburing\",\"case\":\"%s\"",
             use_poll ? "poll SQEs (one-shot, re-armed)" : "EPOLL_CTL + EPOLL_WAIT SQEs");
    return 0;
}

static struct io_uring_sqe *sqe_get(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) { /* cannot happen with QL_MAXN entries and <= n + 5 SQEs a turn */
        io_uring_submit(&ring);
        sqe = io_uring_get_sqe(&ring);
    }
    return sqe;
}

static void arm(struct ql *q, int i)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_poll_add(sqe, q->rfd[i], mask[i]);
    sqe->user_data = (uint64_t)i;
    armed[i] = 1;
}

static int sys_init(struct ql *q)
{
    const char *fl = getenv("LAB_URING_FLAGS");
    unsigned flags = fl ? (unsigned)strtoul(fl, NULL, 0) : IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    int r = io_uring_queue_init(2 * QL_MAXN, &ring, flags);
    if (r == -EINVAL && !fl)
        r = io_uring_queue_init(2 * QL_MAXN, &ring, 0);
    if (r < 0) {
        fprintf(stderr, "skip: io_uring_queue_init: %s\n", strerror(-r));
        return 77;
    }
    ring_up = 1;
    if (!(ring.features & IORING_FEAT_EXT_ARG)) {
        fprintf(stderr, "skip: io_uring without IORING_FEAT_EXT_ARG\n");
        return 77;
    }
    struct io_uring_probe *p = io_uring_get_probe_ring(&ring);
    int ok = p && (use_poll ? io_uring_opcode_supported(p, IORING_OP_POLL_REMOVE)
                            : io_uring_opcode_supported(p, IORING_OP_EPOLL_CTL) &&
                                  io_uring_opcode_supported(p, OP_EPOLL_WAIT));
    if (p)
        io_uring_free_probe(p);
    if (!ok) {
        fprintf(stderr, "skip: this kernel's io_uring lacks the %s operations\n", use_poll ? "poll" : "epoll");
        return 77;
    }
    if (use_poll) {
        nrearm = 0;
        for (int i = 0; i < q->n; i++) {
            mask[i] = POLLIN;
            arm(q, i);
        }
        io_uring_submit(&ring);
        return 0;
    }
    epfd = frame_epoll_watch(q->n, q->rfd);
    if (epfd < 0)
        return 1;
    return 0;
}

static int sys_change(struct ql *q, int i)
{
    struct io_uring_sqe *sqe;
    if (use_poll) {
        mask[i] = q->wr[i] ? POLLIN | POLLOUT : POLLIN;
        if (!armed[i])
            return 0; /* re-armed with the new mask in the turn */
        sqe = sqe_get();
        io_uring_prep_poll_update(sqe, (uint64_t)i, 0, mask[i], IORING_POLL_UPDATE_EVENTS); /* new_user_data must be 0 without UPDATE_USER_DATA */
        sqe->user_data = UD_UPDATE + 1 + (uint64_t)i;
        sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
        return 0;
    }
    struct epoll_event *ev = &chg[nchg++];
    ev->events = q->wr[i] ? EPOLLIN | EPOLLOUT : EPOLLIN;
    ev->data.u32 = (uint32_t)i;
    sqe = sqe_get();
    io_uring_prep_epoll_ctl(sqe, epfd, q->rfd[i], EPOLL_CTL_MOD, ev);
    sqe->user_data = UD_CTL;
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    return 0;
}

static int sys_turn(struct ql *q)
{
    struct io_uring_sqe *sqe;
    if (use_poll) {
        for (int j = 0; j < nrearm; j++)
            arm(q, rearm[j]);
        nrearm = 0;
    } else {
        sqe = sqe_get();
        io_uring_prep_rw(OP_EPOLL_WAIT, sqe, epfd, out, 64, 0);
        sqe->user_data = UD_WAIT;
        nchg = 0;
    }
    struct __kernel_timespec ts = {QL_TIMEOUT_S, 0};
    struct io_uring_cqe *cqe;
    int r = io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts, NULL);
    if (r < 0 && r != -ETIME && r != -EINTR)
        return r;
    unsigned head, seen = 0;
    int err = 0;
    io_uring_for_each_cqe(&ring, head, cqe)
    {
        seen++;
        uint64_t ud = cqe->user_data;
        if (ud == UD_WAIT) {
            for (int e = 0; e < cqe->res; e++)
                if (out[e].events & EPOLLIN)
                    ql_consume(q, q->rfd[out[e].data.u32]);
            if (cqe->res < 0)
                err = cqe->res;
        } else if (ud == UD_CTL) {
            err = cqe->res; /* only failures post a completion */
        } else if (ud > UD_UPDATE && ud <= UD_UPDATE + QL_MAXN) {
            /* -ENOENT/-EALREADY: the poll fired before the update reached it; it is
             * re-armed with the current mask anyway. */
            if (cqe->res != -ENOENT && cqe->res != -EALREADY)
                err = cqe->res;
        } else if (ud < (uint64_t)q->n) {
            int i = (int)ud;
            armed[i] = 0;
            rearm[nrearm++] = i;
            if (cqe->res > 0 && (cqe->res & POLLIN))
                ql_consume(q, q->rfd[i]);
        }
    }
    io_uring_cq_advance(&ring, seen);
    return err;
}

static void sys_fini(struct ql *q)
{
    (void)q;
    if (ring_up)
        io_uring_queue_exit(&ring);
    ring_up = 0;
    if (epfd >= 0)
        close(epfd);
    epfd = -1;
}

static const char *sys_json(void)
{
    return json;
}
