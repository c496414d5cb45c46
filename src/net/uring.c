/* Sockets on the io_uring backend: every request is an io_uring operation that rides
 * the turn's one io_uring_enter (src/ring). What a request costs here:
 *   receive  a multishot RECV with IOSQE_BUFFER_SELECT, armed once per stream: each
 *            arrival is one completion naming the pool buffer the kernel filled (the
 *            pool is a provided-buffer ring, group 0, refilled by vigil_buf_put with a
 *            store to the ring's tail: no system call). An empty pool ends the
 *            multishot (-ENOBUFS); it is armed again when a buffer comes back;
 *   send     SEND (SENDMSG for vectors and datagrams, SEND_ZC for zero-copy) with
 *            MSG_WAITALL, so the kernel itself finishes a short send on a stream; one
 *            send per socket is in the kernel at a time (the queue keeps the order);
 *   accept   a multishot ACCEPT; connect a CONNECT; cancel an ASYNC_CANCEL.
 * No system call of its own: an echo round trip is one completion for the data and one
 * for the send, both read by the turn's one io_uring_enter. If the kernel refuses the
 * provided-buffer ring (before 5.19), the loop's sockets use the readiness engine
 * (ready.c) instead, through the backend's polls.
 */
#include "net/net_int.h"

#ifdef VIGIL_HAVE_LIBURING
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BGID 0

static struct vigil__sock *of_rx(struct vigil__ring_op *op)
{
    return (struct vigil__sock *)((char *)op - offsetof(struct vigil__sock, rx_op));
}
static struct vigil__nreq *of_op(struct vigil__ring_op *op)
{
    return (struct vigil__nreq *)((char *)op - offsetof(struct vigil__nreq, op));
}

/* ---------------------------------------------------------- multishot rx */

static void rx_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags);
static void recv_submit(vigil_loop *loop, struct vigil__sock *s, struct vigil__nreq *r);
static void ring_taken(struct vigil__npool *p);
static bool ring_widen(struct vigil__npool *p);

static void rx_arm(vigil_loop *loop, struct vigil__sock *s)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe)
        return; /* the ring is broken: the loop reports it */
    if (s->state & VIGIL__S_ACCEPT) {
        s->rx_kind = VIGIL__RX_ACCEPT;
        io_uring_prep_multishot_accept(sqe, s->fd, NULL, NULL, SOCK_CLOEXEC);
    } else if (s->state & VIGIL__S_DGRAM) {
        s->rx_kind = VIGIL__RX_RECVMSG;
        memset(&s->rx_msg, 0, sizeof s->rx_msg);
        s->rx_msg.msg_namelen = sizeof(struct sockaddr_storage);
        io_uring_prep_recvmsg_multishot(sqe, s->fd, &s->rx_msg, 0);
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = BGID;
    } else {
        s->rx_kind = VIGIL__RX_RECV;
        io_uring_prep_recv_multishot(sqe, s->fd, NULL, 0, 0);
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = BGID;
    }
    s->rx_op.complete = rx_complete;
    vigil__ring_op_prep(loop->ring, sqe, &s->rx_op);
    s->ops++;
    s->state |= VIGIL__S_ARMED_RX;
}

static bool rx_wanted(const struct vigil__sock *s)
{
    return (s->state & VIGIL__S_OPEN) &&
           (((s->state & VIGIL__S_ACCEPT) && !(s->state & VIGIL__S_PAUSED)) ||
            ((s->state & VIGIL__S_RECV) && !(s->state & VIGIL__S_STARVED)));
}

static void u_rx_update(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    (void)n;
    bool want = rx_wanted(s);
    if (s->state & VIGIL__S_ARMED_RX) {
        /* Armed for something no longer wanted (stopped, or accept <-> receive): cancel;
         * its last completion arms again if needed. */
        uint32_t kind = (s->state & VIGIL__S_ACCEPT) ? VIGIL__RX_ACCEPT
                        : (s->state & VIGIL__S_DGRAM) ? VIGIL__RX_RECVMSG
                                                      : VIGIL__RX_RECV;
        if ((!want || kind != s->rx_kind) && !(s->state & VIGIL__S_RX_CANCEL)) {
            if (vigil__ring_cancel(loop->ring, &s->rx_op) == 0)
                s->state |= VIGIL__S_RX_CANCEL;
        }
        return;
    }
    if (want)
        rx_arm(loop, s);
}

/* Fairness across connections. The loop's ring runs with DEFER_TASKRUN: a socket's
 * readiness becomes task work that the kernel runs only inside io_uring_enter, and
 * newer kernels (6.13 on) run at most 20 such items per enter (IO_LOCAL_TW_DEFAULT_MAX,
 * or min_complete if larger). A turn's one enter waits for one completion, so with many
 * busy connections a turn served about 20 of them; the rest waited in the kernel's
 * queue, armed, with data, and no buffer taken, while a receive armed afresh (after
 * -ENOBUFS, or a stream just started) ran inline at submission, ahead of that queue,
 * every turn: 1,000 connections against http_hello, one got 147 MB while hundreds got
 * nothing for seconds (issue 26; tests/net/fair_turns.c saw 20 of 700 served a turn,
 * each waiting 35 turns). So at the completion point of a turn that had receives, if
 * the kernel still flags task work (IORING_SQ_TASKRUN) and the turn's enter may have
 * stopped at that cap, one more enter runs it, with a zero timeout; its completions are
 * read by the next turn, which does not sleep while they wait.
 *
 * When the turn's enter may have stopped at the cap. What an enter runs (upstream
 * io_uring/io_uring.c: io_uring_enter, io_cqring_wait, __io_run_local_work): with SQEs
 * to submit, after the submission, up to max(20, min_complete) items; then, before
 * waiting, up to max(20, min_complete) more; each run takes the whole queue, runs its
 * share of it and keeps the rest first in line for the next run, flagging
 * IORING_SQ_TASKRUN again. If the enter then sleeps, a wake-up runs only as many items
 * as completions are still wanted (1 here) and returns. So the flag after a turn means
 * one of three things: the cap stopped a run (the enter then ran at least 20 items),
 * a wake-up ran its one item and left the rest, or the work arrived after the kernel
 * last took the queue. Only the first is the unfairness above: in the other two the
 * queue is short or new, and the next turn's enter runs it first (ahead of everything
 * but the SQEs it submits) at no extra system call, as the hand-written liburing server
 * does. The turn cannot see how many items ran, only how many completions its enters
 * posted; the backend's be_turn counts those beyond one per SQE the enter submitted
 * (struct vigil__ring turn_posted), since a turn's sends mostly complete inline at
 * submission, which is no task work (counting them too, net-echo at 100 x 64 B still
 * drained after about a third of its waits).
 * Fewer than TW_BATCH counted: the drain is skipped. The count is a guess either way:
 * an item that posts several completions (a multishot receive draining a socket)
 * counts more than once, which only drains more; an item that posts none (a wake-up
 * that found nothing) and an SQE that posted nothing inline (a receive armed before
 * data came) count one too few, so a run cut by the cap can go undrained for a turn;
 * its leftover is then first in line at the next turn's enter, whose count decides
 * again (tests/net/fair_turns.c still sees every connection served at least every
 * K turns, and lab/net-fair stays fair). Without this gate the drain ran after most
 * busy turns: net-echo at 100 x 64 B made 0.048 system calls per request against
 * hand-written liburing's 0.028 (the run of record); with it, perf trace of the
 * server's io_uring_enter calls there counted 0.0068 drains per request against
 * 0.0136 before (medians of 7 and 9 runs).
 *
 * How much it asks for. The kernel runs task work until it has run min_complete items
 * (or none is left), then returns at once if the CQ ring holds min_complete completions;
 * if not, it arms the zero timeout: an hrtimer started already expired, which on a VM
 * costs a timer reprogramming and an interrupt (lab/net-echo's 2-core guest: 15-17 us
 * of CPU per enter against 0.2-0.3 us without, 200,000 enters in a row; at 1000 x 4 KiB
 * under load the echo server took it about once per 93 requests, some 2% of its CPU).
 * Asking for everything (VIGIL__RING_DONE_CAP, as this did first) ran all the work but
 * paid that timer nearly every time. So it asks for the completions that are sure to
 * come (the SQEs this enter submits: a turn's sends, which on a stream mostly complete
 * inline) plus tw_guess, the leftover work expected: runs of it that end short of the
 * request (the timer was taken: the kernel ran everything) set the guess to 3/4 of what
 * they found, and runs that leave work flagged double it. Work left over is not lost:
 * the kernel keeps it first in line for the next enter, so a connection waits at most
 * a turn longer, and a queue deeper than the guess is drained within a few turns. */
#define TW_BATCH 20 /* the kernel's IO_LOCAL_TW_DEFAULT_MAX: task work run per enter */

static void taskrun_rest(vigil_loop *loop, struct vigil__deferred *d)
{
    (void)d;
    struct vigil__ring *r = loop->ring;
    if (!r || r->turn_posted < TW_BATCH || !(IO_URING_READ_ONCE(*r->ring.sq.kflags) & IORING_SQ_TASKRUN))
        return; /* no run was cut short by the cap: the next turn's enter runs what is left */
    struct vigil__net *n = vigil__net_of(loop);
    unsigned before = io_uring_cq_ready(&r->ring);
    unsigned sub = r->ring.sq.sqe_tail - io_uring_smp_load_acquire(r->ring.sq.khead);
    unsigned want = before + sub + n->tw_guess;
    if (want > VIGIL__RING_DONE_CAP)
        want = VIGIL__RING_DONE_CAP;
    struct __kernel_timespec ts = {0, 0};
    struct io_uring_getevents_arg arg = {.ts = (uint64_t)(uintptr_t)&ts};
    (void)vigil__ring_enter(r, want, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg);
    unsigned got = io_uring_cq_ready(&r->ring) - before;
    if (before + got < want) /* short: everything ran */
        n->tw_guess = got > sub ? (got - sub) * 3 / 4 : 0;
    else if (IO_URING_READ_ONCE(*r->ring.sq.kflags) & IORING_SQ_TASKRUN) /* work left */
        n->tw_guess = n->tw_guess >= VIGIL__RING_DONE_CAP / 2 ? VIGIL__RING_DONE_CAP : 2 * n->tw_guess + 20;
}

static void rx_general(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, int32_t res, uint32_t flags);

static void rx_tw_defer(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags);

static void rx_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags)
{
    struct vigil__sock *s = of_rx(op);
    struct vigil__net *n = vigil__net_of(loop);
    /* Once per turn, taskrun_rest, and only when it may do something: a turn whose enters
     * posted fewer than TW_BATCH completions beyond their SQEs leaves it nothing to do
     * (its first test), and the count is final by now (be_turn sets it before any
     * completion runs; nothing at the completion point changes it). Tested here, such a
     * turn skips the deferral and its run (callgrind, echo_server under net-echo 1 x 64 B
     * on io_uring, where every turn is such a turn: 65 instructions per request less).
     * The deferral is made by rx_tw_defer, which comes back here: every call this
     * function makes is then its last act (a tail call), and it saves no registers. */
    if (__builtin_expect(loop->ring->turn_posted >= TW_BATCH && !n->tw_later.queued, 0)) {
        rx_tw_defer(loop, op, res, flags);
        return;
    }
    /* The common case first, a stream's bytes in a pool buffer while the program
     * receives: the op stays armed, nothing is stashed, nothing closes. It is what the
     * general path below does for it, without its ladder of checks and the call to
     * vigil__net_deliver (the figures: send_complete). */
    if ((flags & (IORING_CQE_F_MORE | IORING_CQE_F_BUFFER)) == (IORING_CQE_F_MORE | IORING_CQE_F_BUFFER) && res > 0 &&
        s->rx_kind == VIGIL__RX_RECV &&
        (s->state & (VIGIL__S_OPEN | VIGIL__S_RECV | VIGIL__S_DGRAM)) == (VIGIL__S_OPEN | VIGIL__S_RECV) &&
        !s->stash_head) {
        ring_taken(&n->pool);
        vigil_buf *b = vigil__net_lend(n, flags >> IORING_CQE_BUFFER_SHIFT, (uint32_t)res, 0);
        /* A tail call, not through VIGIL__NET_CALL: an op's completion runs inside the
         * ring's completion walk, which counts as a callback of the loop already
         * (vigil__ring_complete, loop/turn.h step 5); nothing is left to do after it, so
         * this frame saves no registers (callgrind, echo_server under net-echo 100 x 64 B
         * on io_uring: rx_complete 73 -> 63 instructions per receive, with the deferral
         * of taskrun_rest made by rx_tw_defer and ring_fill inline). */
        s->recv_cb(loop, vigil__sock_pub(s), res, b);
        return;
    }
    rx_general(loop, n, s, res, flags);
}

/* rx_complete's once-a-turn deferral of taskrun_rest, then the completion itself. */
static __attribute__((noinline)) void rx_tw_defer(vigil_loop *loop, struct vigil__ring_op *op, int32_t res,
                                                  uint32_t flags)
{
    vigil__defer(loop, &vigil__net_of(loop)->tw_later);
    rx_complete(loop, op, res, flags);
}

/* Every other completion of the multishot op (kept out of line: the fast path above
 * then saves few registers). */
static __attribute__((noinline)) void rx_general(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s,
                                                 int32_t res, uint32_t flags)
{
    bool more = flags & IORING_CQE_F_MORE;
    bool ours = s->state & VIGIL__S_RX_CANCEL; /* we cancelled it: -ECANCELED is no news */
    if (!more) {
        s->ops--;
        s->state &= ~(VIGIL__S_ARMED_RX | VIGIL__S_RX_CANCEL);
    }
    bool closing = !(s->state & VIGIL__S_OPEN);
    if (s->rx_kind == VIGIL__RX_ACCEPT) {
        if (closing) {
            if (res >= 0)
                close(res);
        } else if (res != -ECANCELED || !ours)
            vigil__net_accepted(loop, n, s, res);
    } else {
        uint32_t id = (flags & IORING_CQE_F_BUFFER) ? flags >> IORING_CQE_BUFFER_SHIFT : UINT32_MAX;
        if (id != UINT32_MAX)
            ring_taken(&n->pool);
        if (closing) {
            if (id != UINT32_MAX)
                vigil__net_buf_back(loop, n, id);
        } else if (res == -ENOBUFS) {
            /* The ring ran dry: a wider window when free buffers wait in the stack (the
             * receive is armed again below), else armed again when one comes back. */
            if (!ring_widen(&n->pool))
                vigil__net_starve(n, s);
        } else if (res == -ECANCELED && ours) {
            /* our own cancel (the stream stopped, maybe started again since) */
        } else if (s->rx_kind == VIGIL__RX_RECVMSG && res >= 0 && id != UINT32_MAX) {
            char *base = n->pool.mem + (size_t)id * n->pool.size;
            struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(base, res, &s->rx_msg);
            if (!o) {
                vigil__net_buf_back(loop, n, id);
            } else if (o->flags & MSG_TRUNC) { /* cut to the buffer: reported, not delivered */
                socklen_t nl = o->namelen > s->rx_msg.msg_namelen ? s->rx_msg.msg_namelen : o->namelen;
                vigil__net_buf_back(loop, n, id);
                vigil__net_deliver(loop, n, s, -EMSGSIZE, UINT32_MAX, 0,
                                   (struct sockaddr *)io_uring_recvmsg_name(o), nl);
            } else {
                char *payload = io_uring_recvmsg_payload(o, &s->rx_msg);
                uint32_t plen = io_uring_recvmsg_payload_length(o, res, &s->rx_msg);
                socklen_t nl = o->namelen > s->rx_msg.msg_namelen ? s->rx_msg.msg_namelen : o->namelen;
                vigil__net_deliver(loop, n, s, plen, id, (uint32_t)(payload - base),
                                   (struct sockaddr *)io_uring_recvmsg_name(o), nl);
            }
        } else {
            vigil__net_deliver(loop, n, s, res, id, 0, NULL, 0);
        }
    }
    if (!more) {
        if (s->state & VIGIL__S_RECV_HELD) {
            /* The stopped stream's op has ended: what it received is in the stash, and
             * the own-buffer receive that waited for this takes it first. */
            s->state &= ~VIGIL__S_RECV_HELD;
            if (!vigil__net_recv_stash(loop, n, s, s->rreq))
                recv_submit(loop, s, s->rreq);
        }
        if (s->state & VIGIL__S_CLOSING)
            vigil__net_close_maybe(loop, n, s);
        else if (s->state & VIGIL__S_OPEN)
            u_rx_update(loop, n, s);
    }
}

/* ---------------------------------------------------------------- sends */

static void send_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags);

/* Datagram sends are all or nothing, and io_uring must never retry one itself. A
 * send that finds the receiver's queue full fails -EAGAIN after the kernel already
 * copied the payload out of the request's iterator (AF_UNIX: unix_dgram_sendmsg copies,
 * then checks the peer's queue, max_dgram_qlen); io_uring then waits for room (its
 * internal poll, or an io-wq worker for a blocking fd) and sends again with that
 * consumed iterator: an empty datagram, its completion 0 (seen on kernel 6.18, both
 * IORING_OP_SEND and SENDMSG, blocking or not; tests/net/dgram_full.c). So a
 * datagram socket's sends carry MSG_DONTWAIT (io_uring then ends the op -EAGAIN
 * instead of retrying it), and the library waits for POLLOUT with an op of its own
 * (send_polled) and starts a fresh send, built again from the request. */
static void send_polled(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags);

static void send_wait(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe) {
        vigil__net_send_done(loop, n, s, -EIO);
        return;
    }
    io_uring_prep_poll_add(sqe, s->fd, POLLOUT);
    r->op.complete = send_polled;
    vigil__ring_op_prep(loop->ring, sqe, &r->op);
    s->ops++;
}

static __attribute__((noinline)) void send_start(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s,
                                                 struct vigil__nreq *r);

/* A send's SQE. The common kind, a plain send (vigil_sock_send), first and alone: its
 * SQE filled with no switch and no saved registers; every other kind, and a full SQ
 * ring, take send_start (callgrind, echo_server under net-echo 100 x 64 B on
 * io_uring: 75 -> 55 instructions per send). */
static void u_send(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    struct vigil__ring *rg = loop->ring;
    struct io_uring_sqe *sqe;
    if (__builtin_expect(r->kind == VIGIL__NK_SEND, 1) && (sqe = vigil__ring_sqe_try(rg))) {
        const int fl = MSG_NOSIGNAL | ((s->state & VIGIL__S_DGRAM_SOCK) ? MSG_DONTWAIT : MSG_WAITALL);
        io_uring_prep_send(sqe, s->fd, r->buf + r->done, r->len - r->done, fl);
        r->op.complete = send_complete;
        vigil__ring_op_prep(rg, sqe, &r->op);
        s->ops++;
        return;
    }
    send_start(loop, n, s, r);
}

static __attribute__((noinline)) void send_start(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s,
                                                 struct vigil__nreq *r)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe) {
        vigil__net_defer(loop, n, r, -EIO);
        return;
    }
    const int fl = MSG_NOSIGNAL | ((s->state & VIGIL__S_DGRAM_SOCK) ? MSG_DONTWAIT : MSG_WAITALL);
    switch (r->kind) {
    case VIGIL__NK_SEND:
        io_uring_prep_send(sqe, s->fd, r->buf + r->done, r->len - r->done, fl);
        break;
    case VIGIL__NK_SENDZC:
        if (s->state & VIGIL__S_NO_ZC) { /* copied, as vigil_sock_send; release right after cb */
            io_uring_prep_send(sqe, s->fd, r->buf + r->done, r->len - r->done, fl);
            break;
        }
        io_uring_prep_send_zc(sqe, s->fd, r->buf + r->done, r->len - r->done, fl, 0);
        break;
    case VIGIL__NK_SENDV: {
        const struct iovec *iov;
        int cnt = vigil__net_send_iov(r, &iov);
        memset(&r->msg, 0, sizeof r->msg);
        r->msg.msg_iov = (struct iovec *)iov;
        r->msg.msg_iovlen = (size_t)cnt;
        io_uring_prep_sendmsg(sqe, s->fd, &r->msg, fl);
        break;
    }
    default: /* SENDTO */
        memset(&r->msg, 0, sizeof r->msg);
        r->one.iov_base = (void *)r->buf;
        r->one.iov_len = r->len;
        r->msg.msg_iov = &r->one;
        r->msg.msg_iovlen = 1;
        r->msg.msg_name = r->addrlen ? &r->addr : NULL;
        r->msg.msg_namelen = r->addrlen;
        io_uring_prep_sendmsg(sqe, s->fd, &r->msg, fl);
        break;
    }
    r->op.complete = send_complete;
    vigil__ring_op_prep(loop->ring, sqe, &r->op);
    s->ops++;
}

static void send_general(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r,
                         int32_t res, uint32_t flags);

static void send_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags)
{
    struct vigil__nreq *r = of_op(op);
    struct vigil__sock *s = r->sock;
    struct vigil__net *n = vigil__net_of(loop);
    /* The common case first: a plain stream send that the kernel finished whole. The
     * same end as send_general, without its checks for zero-copy, retries, datagrams
     * and vectors. With the receive's fast path in rx_complete (callgrind on the echo
     * server, net-echo 100 x 64 B on io_uring, 20,000 requests): user instructions per
     * request 644 -> 529 (the hand-written liburing server: 183). */
    if (!(flags & (IORING_CQE_F_NOTIF | IORING_CQE_F_MORE)) && res > 0 && r->kind == VIGIL__NK_SEND &&
        !(s->state & VIGIL__S_DGRAM_SOCK) && (size_t)res >= r->len - r->done) {
        s->ops--;
        r->done += (size_t)res;
        vigil__net_send_done(loop, n, s, (ssize_t)r->done);
        return;
    }
    send_general(loop, n, s, r, res, flags);
}

/* Every other send completion (out of line, as rx_general). */
static __attribute__((noinline)) void send_general(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s,
                                                   struct vigil__nreq *r, int32_t res, uint32_t flags)
{
    if (flags & IORING_CQE_F_NOTIF) {
        /* SEND_ZC: the kernel let go of the buffer. */
        s->ops--;
        s->zc_notifs--;
        if (--r->zc_notif == 0 && r->state == VIGIL__NR_IDLE && r->release)
            VIGIL__NET_CALL(loop, r->release(loop, vigil__nreq_pub(r), r->result));
        if (s->state & VIGIL__S_CLOSING)
            vigil__net_close_maybe(loop, n, s);
        return;
    }
    if (flags & IORING_CQE_F_MORE) {
        r->zc_notif++; /* a notification follows; the op stays counted until then */
        s->zc_notifs++;
    } else {
        s->ops--;
    }
    const bool dgram = s->state & VIGIL__S_DGRAM_SOCK;
    if ((res == -EAGAIN || res == -EINTR) && !r->cancel && (s->state & VIGIL__S_OPEN)) {
        if (dgram && res == -EAGAIN && !(flags & IORING_CQE_F_MORE))
            send_wait(loop, n, s, r); /* no room: wait for it, then a fresh send */
        else
            u_send(loop, n, s, r); /* again: the kernel had nothing to wait on */
        return;
    }
    if (res == -EAGAIN && r->cancel)
        res = -ECANCELED; /* cancelled while waiting for room: nothing was sent */
    if (res == -EOPNOTSUPP && r->kind == VIGIL__NK_SENDZC) {
        /* No zero-copy on this socket (AF_UNIX): a copy, as documented (nothing was sent). */
        s->state |= VIGIL__S_NO_ZC;
        if (!r->cancel && (s->state & VIGIL__S_OPEN)) {
            u_send(loop, n, s, r);
            return;
        }
        res = -ECANCELED;
    }
    ssize_t out = res;
    if (dgram && res >= 0) {
        /* One datagram, whole or not at all: its count is the result, never a "rest"
         * sent as another datagram. */
        if (r->kind == VIGIL__NK_SENDV)
            (void)vigil__net_advance(r, (size_t)res);
        else
            r->done = (size_t)res;
    } else if (r->kind != VIGIL__NK_SENDTO && res >= 0) {
        if (res == 0 && !r->cancel)
            out = -EPIPE; /* nothing taken and no error: the stream is gone */
        else if (!vigil__net_advance(r, (size_t)res) && !r->cancel && (s->state & VIGIL__S_OPEN)) {
            u_send(loop, n, s, r); /* the rest of a send cut short (a signal) */
            return;
        } else
            out = (ssize_t)r->done;
    }
    vigil__net_send_done(loop, n, s, out);
}

/* The POLLOUT wait of a datagram send that found no room (send_wait). */
static void send_polled(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags)
{
    (void)flags;
    struct vigil__nreq *r = of_op(op);
    struct vigil__sock *s = r->sock;
    struct vigil__net *n = vigil__net_of(loop);
    s->ops--;
    if (r->cancel || !(s->state & VIGIL__S_OPEN)) {
        vigil__net_send_done(loop, n, s, -ECANCELED); /* nothing of it was sent */
        return;
    }
    if (res < 0 && res != -EINTR && res != -ECANCELED) {
        vigil__net_send_done(loop, n, s, res);
        return;
    }
    u_send(loop, n, s, r); /* room (or an error the send itself reports) */
}

/* ------------------------------------------------ receive, connect, cancel */

static void single_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t flags)
{
    (void)flags;
    struct vigil__nreq *r = of_op(op);
    struct vigil__sock *s = r->sock;
    struct vigil__net *n = vigil__net_of(loop);
    s->ops--;
    if (r->kind == VIGIL__NK_RECV && (res == -EAGAIN || res == -EINTR) && !r->cancel && (s->state & VIGIL__S_OPEN)) {
        struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
        if (sqe) {
            io_uring_prep_recv(sqe, s->fd, (void *)r->buf, r->len, 0);
            vigil__ring_op_prep(loop->ring, sqe, op);
            s->ops++;
            return;
        }
    }
    vigil__net_single_done(loop, n, r, res);
}

static void recv_submit(vigil_loop *loop, struct vigil__sock *s, struct vigil__nreq *r)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe) {
        vigil__net_defer(loop, vigil__net_of(loop), r, -EIO);
        return;
    }
    io_uring_prep_recv(sqe, s->fd, (void *)r->buf, r->len, 0);
    r->op.complete = single_complete;
    vigil__ring_op_prep(loop->ring, sqe, &r->op);
    s->ops++;
}

/* An own-buffer receive. While the stopped stream's multishot op is still in the kernel
 * (its cancel on the way), bytes may yet land in pool buffers, older than what this
 * receive would read: it waits for the op's last completion (VIGIL__S_RECV_HELD), then
 * takes the stash first (rx_complete). */
static void u_recv(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    (void)n;
    if (s->state & VIGIL__S_ARMED_RX) {
        s->state |= VIGIL__S_RECV_HELD;
        return;
    }
    recv_submit(loop, s, r);
}

static void u_connect(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe) {
        vigil__net_defer(loop, n, r, -EIO);
        return;
    }
    io_uring_prep_connect(sqe, s->fd, (struct sockaddr *)&r->addr, r->addrlen);
    r->op.complete = single_complete;
    vigil__ring_op_prep(loop->ring, sqe, &r->op);
    s->ops++;
}

static void u_cancel(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r)
{
    if (r == s->rreq && (s->state & VIGIL__S_RECV_HELD)) {
        s->state &= ~VIGIL__S_RECV_HELD; /* never submitted: it ends now */
        vigil__net_defer(loop, n, r, -ECANCELED);
        return;
    }
    vigil__ring_cancel(loop->ring, &r->op);
}

static unsigned u_close(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s)
{
    if ((s->state & VIGIL__S_ARMED_RX) && !(s->state & VIGIL__S_RX_CANCEL) &&
        vigil__ring_cancel(loop->ring, &s->rx_op) == 0)
        s->state |= VIGIL__S_RX_CANCEL;
    struct vigil__nreq *rs[3] = {s->sq_head, s->rreq, s->creq};
    for (int i = 0; i < 3; i++) {
        if (rs[i] && rs[i]->state == VIGIL__NR_INFLIGHT && !rs[i]->cancel) {
            rs[i]->cancel = 1;
            u_cancel(loop, n, s, rs[i]);
        }
    }
    return s->ops;
}

/* -------------------------------------------------------------- the pool */

/* The kernel takes buffers from the ring in order, so a ring holding every free buffer
 * makes a busy server cycle through the whole pool: each receive lands in the buffer
 * used longest ago, out of the caches (4096 x 4 KiB is 16 MiB; the kernel's copy into
 * it was 7-8% of the echo server's CPU at 1000 connections x 4 KiB, 3.4% with a
 * 64-buffer window). So the ring holds only a window of the free buffers; the others
 * wait in the stack, the most recently returned (still cached) on top, and refill the
 * ring as the kernel takes from it: a buffer is used again about a window of receives
 * after it came back. The window starts at 64 (the pool, if smaller), doubles, up to
 * the pool, whenever a turn's receives empty the ring (-ENOBUFS), and halves again
 * after a long stretch without (a burst, such as 1000 connections' first messages
 * arriving at once, does not widen it for good); 64 sufficed for 1000 echo
 * connections here. Only with the stack empty too (every buffer lent or in the ring)
 * does a socket wait for a buffer to come back (vigil__net_starve). */
#define RING_WINDOW_MIN 64

static void ring_push(struct vigil__npool *p, uint32_t id)
{
    struct io_uring_buf_ring *br = p->br;
    io_uring_buf_ring_add(br, p->mem + (size_t)id * p->size, p->size, (unsigned short)id,
                          io_uring_buf_ring_mask(p->count), 0);
    io_uring_buf_ring_advance(br, 1);
    p->in_ring++;
}

/* Tops the ring up to the window from the stack's top (the most recently returned). */
static __attribute__((noinline)) void ring_fill(struct vigil__npool *p)
{
    while (p->in_ring < p->window && p->nfree)
        ring_push(p, p->stack[--p->nfree]);
}

/* The window changed: the count to its next halving starts again, and the level below
 * which a receive refills the ring (an eighth of the window under it, see ring_taken). */
static void ring_window_set(struct vigil__npool *p, uint32_t window)
{
    p->window = window;
    p->shrink_in = 256 * window;
    p->refill_below = window - window / 8;
}

/* 256 windows' worth of receives since the window last changed, none of them finding
 * the ring dry: the window halves (the buffers beyond it leave the ring as they are
 * used), down to RING_WINDOW_MIN; the count starts again either way. */
static __attribute__((noinline, cold)) void ring_narrow(struct vigil__npool *p)
{
    ring_window_set(p, p->window > RING_WINDOW_MIN ? p->window / 2 : p->window);
}

/* A completion carried a buffer out of the ring. The receives until the window halves
 * are counted down, one decrement and a branch (a count up compared with 256 windows,
 * then with the minimum, was 8 instructions a receive; callgrind, echo_server under
 * net-echo 100 x 4 KiB on io_uring).
 * The ring is topped up from the stack only once it is an eighth of the window short
 * (refill_below; a window under 8 refills at every take), not at every take: the buffer
 * the program gives back refills the place itself (u_buf_put: the ring has room), so
 * an echo server's buffers go ring -> program -> ring with no trip through the stack,
 * and a receive pays for no refill it does not make (the refill is out of line, so
 * this path saves no registers). A program that holds its buffers still has the ring
 * refilled, in runs of an eighth of the window. callgrind, echo_server under net-echo
 * on io_uring: 1 x 64 B 734 -> 718 instructions per request, 100 x 4 KiB 394.6 ->
 * 382.9 (each receive refilled from the stack and each put went onto it: 1 x 64 B;
 * four registers saved and restored per receive for the inline refill: 100 x 4 KiB). */
static inline void ring_taken(struct vigil__npool *p)
{
    p->in_ring--;
    if (__builtin_expect(--p->shrink_in == 0, 0))
        ring_narrow(p);
    if (__builtin_expect(p->in_ring < p->refill_below && p->nfree, 0))
        ring_fill(p);
}

/* -ENOBUFS: double the window and fill it; false when no free buffer was left to add. */
static bool ring_widen(struct vigil__npool *p)
{
    ring_window_set(p, p->window > p->count / 2 ? p->count : 2 * p->window);
    ring_fill(p);
    return p->in_ring > 0;
}

/* The ring has room (pool.c tests it before calling). */
static void u_buf_put(vigil_loop *loop, struct vigil__net *n, uint32_t id)
{
    (void)loop;
    ring_push(&n->pool, id);
}

static int u_setup(vigil_loop *loop, struct vigil__net *n)
{
    struct vigil__npool *p = &n->pool;
    size_t bytes = (size_t)p->count * sizeof(struct io_uring_buf);
    void *br = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (br == MAP_FAILED)
        return -ENOMEM;
    io_uring_buf_ring_init(br);
    struct io_uring_buf_reg reg = {.ring_addr = (uint64_t)(uintptr_t)br, .ring_entries = p->count, .bgid = BGID};
    int e = io_uring_register_buf_ring(&loop->ring->ring, &reg, 0);
    if (e < 0) {
        /* An older kernel: sockets go through readiness on this loop. */
        munmap(br, bytes);
        n->eng = &vigil__net_engine_ready;
        return n->eng->setup(loop, n);
    }
    p->br = br;
    p->br_bytes = bytes;
#ifdef MADV_HUGEPAGE
    /* Receives spread over the pool (a wide window, buffers held long): a TLB miss
     * with 4 KiB pages for the kernel's copy and another for the program's read. Huge
     * pages (THP "madvise" or "always") make the pool a handful of TLB entries.
     * net-echo at 1000 x 4 KiB, when the whole pool was in the ring, 14 alternated
     * pairs of 0.5-0.6 s: server CPU per request 0.89-0.90x without the advice.
     * Advice only: refused or unavailable, nothing changes. (On epoll and poll the free
     * buffers are a stack, the hot few are reused, and the pool stays in small pages.) */
    size_t pool_bytes = (size_t)p->size * p->count;
    if (pool_bytes >= ((size_t)2 << 20))
        (void)madvise(p->mem, pool_bytes, MADV_HUGEPAGE);
#endif
    n->tw_later.run = taskrun_rest;
    n->tw_guess = VIGIL__RING_DONE_CAP; /* the first run learns it */
    /* The first window; the stack (pool.c) has the lowest ids on top: they fill it. */
    ring_window_set(p, p->count < RING_WINDOW_MIN ? p->count : RING_WINDOW_MIN);
    p->in_ring = 0;
    ring_fill(p);
    return 0;
}

static void u_fini(vigil_loop *loop, struct vigil__net *n)
{
    if (!n->pool.br)
        return;
    if (loop->ring)
        io_uring_unregister_buf_ring(&loop->ring->ring, BGID);
    munmap(n->pool.br, n->pool.br_bytes);
    n->pool.br = NULL;
}

/* A kept datagram's sender: RECVMSG multishot wrote it into the buffer, after the
 * io_uring_recvmsg_out header and before the payload (rx_arm asked for a whole
 * sockaddr_storage), and a kept buffer is not written again until it is given back. */
static const struct sockaddr *u_dgram_from(struct vigil__net *n, uint32_t id, socklen_t *len)
{
    const struct io_uring_recvmsg_out *o = (const void *)(n->pool.mem + (size_t)id * n->pool.size);
    socklen_t max = (socklen_t)sizeof(struct sockaddr_storage);
    *len = o->namelen > max ? max : o->namelen;
    return *len ? (const struct sockaddr *)(o + 1) : NULL;
}

static int u_open(vigil_loop *loop, struct vigil__sock *s)
{
    (void)loop, (void)s;
    return 0;
}

const struct vigil__net_engine vigil__net_engine_uring = {
    .name = "uring",
    .setup = u_setup,
    .fini = u_fini,
    .open = u_open,
    .rx_update = u_rx_update,
    .send = u_send,
    .recv = u_recv,
    .connect = u_connect,
    .cancel = u_cancel,
    .buf_put = u_buf_put,
    .close = u_close,
    .dgram_from = u_dgram_from,
};

#else /* !VIGIL_HAVE_LIBURING: no loop ever runs io_uring */

static int u_none(vigil_loop *loop, struct vigil__net *n)
{
    n->eng = &vigil__net_engine_ready;
    return n->eng->setup(loop, n);
}
const struct vigil__net_engine vigil__net_engine_uring = {.name = "uring", .setup = u_none};

#endif
