/* The lab's hand-written liburing server (system "liburing", case "multishot
 * defer_taskrun"): a ring set up with IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN, one
 * multishot accept, one multishot receive per connection that picks its buffers from a
 * provided-buffer ring, and a send SQE straight from the received buffer (the buffer goes
 * back to the ring when its send completes). One io_uring_submit_and_wait per turn.
 * A connection has at most one send in flight (later buffers queue behind it, so bytes
 * keep their order); a short send is sent on from where it stopped; a receive ended by
 * ENOBUFS (every buffer in a send queue) is armed again once buffers come back.
 * With `http` (net-fair http) it answers each request read with SRV_HTTP_ANSWER instead:
 * a received buffer goes back to the ring at once, its requests are counted as owed
 * answers, and one send at a time carries up to SRV_HTTP_MANY of them from one static
 * buffer. CLI: srv.h. */
#include "srv.h"

#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <sys/mman.h>

#define ENTRIES 4096
#define NBUF 4096 /* provided buffers (a power of two) */
#define BUFSZ 4096
#define BGID 0

enum { OP_ACCEPT, OP_RECV, OP_SEND, OP_SIGNAL, OP_IGNORE }; /* user_data: pointer | op (conns are 8-aligned) */

struct conn {
    int fd;
    int head, tail;   /* queued buffers (ids, linked by next_bid), head in flight when sending */
    unsigned off;     /* bytes of head already sent */
    int sending;      /* a send SQE is in flight */
    int receiving;    /* the multishot receive is armed */
    int closing;      /* EOF or error: close once nothing is in flight */
    struct conn *rearm_next;
    int on_rearm;
    int http_state;   /* HTTP mode: srv_http_ends()'s state, */
    unsigned owed;    /* answers not yet sent, */
    unsigned batch;   /* answers in the send in flight */
};

static struct io_uring ring;
static struct io_uring_buf_ring *br;
static char *bufs;
static int next_bid[NBUF];
static unsigned buf_len[NBUF];
static int returned; /* buffers added to the ring this turn, not yet advanced */
static struct conn *rearm;
static int http;

static struct io_uring_sqe *sqe_get(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    while (!sqe) { /* the SQ is full: submit what is there */
        io_uring_submit(&ring);
        sqe = io_uring_get_sqe(&ring);
    }
    return sqe;
}

static void *tag(void *p, int op)
{
    return (void *)((uintptr_t)p | (uintptr_t)op);
}

static void give_back(int bid)
{
    io_uring_buf_ring_add(br, bufs + (size_t)bid * BUFSZ, BUFSZ, (unsigned short)bid, io_uring_buf_ring_mask(NBUF),
                          returned++);
}

static void arm_recv(struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = BGID;
    io_uring_sqe_set_data(sqe, tag(c, OP_RECV));
    c->receiving = 1;
}

static void send_head(struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_send(sqe, c->fd, bufs + (size_t)c->head * BUFSZ + c->off, buf_len[c->head] - c->off,
                       MSG_NOSIGNAL);
    io_uring_sqe_set_data(sqe, tag(c, OP_SEND));
    c->sending = 1;
}

/* HTTP mode: sends the next batch of owed answers (from c->off on, after a short send). */
static void send_answers(struct conn *c)
{
    if (!c->batch)
        c->batch = c->owed < SRV_HTTP_MANY ? c->owed : SRV_HTTP_MANY;
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_send(sqe, c->fd, srv_http_many() + c->off, c->batch * SRV_HTTP_ANSWER_LEN - c->off, MSG_NOSIGNAL);
    io_uring_sqe_set_data(sqe, tag(c, OP_SEND));
    c->sending = 1;
}

static void maybe_free(struct conn *c)
{
    if (!c->closing || c->sending || c->receiving || c->on_rearm)
        return;
    while (c->head >= 0) {
        int b = c->head;
        c->head = next_bid[b];
        give_back(b);
    }
    close(c->fd);
    free(c);
}

static void on_recv(struct conn *c, struct io_uring_cqe *cqe)
{
    int more = cqe->flags & IORING_CQE_F_MORE;
    if (!more)
        c->receiving = 0;
    if (cqe->res > 0 && http) {
        int bid = (int)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        c->owed += srv_http_ends(&c->http_state, bufs + (size_t)bid * BUFSZ, (size_t)cqe->res);
        give_back(bid);
        if (c->owed && !c->sending && !c->closing)
            send_answers(c);
        if (!more && !c->closing)
            arm_recv(c);
    } else if (cqe->res > 0) {
        int bid = (int)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        buf_len[bid] = (unsigned)cqe->res;
        next_bid[bid] = -1;
        if (c->head < 0)
            c->head = bid;
        else
            next_bid[c->tail] = bid;
        c->tail = bid;
        if (!c->sending && !c->closing) {
            c->off = 0;
            send_head(c);
        }
        if (!more && !c->closing)
            arm_recv(c); /* the kernel ended the multishot receive: start it again */
    } else if (cqe->res == -ENOBUFS) {
        if (!c->on_rearm) { /* armed again at the end of the turn, once buffers came back */
            c->on_rearm = 1;
            c->rearm_next = rearm;
            rearm = c;
        }
    } else { /* EOF or an error */
        c->closing = 1;
        if (more) /* an error that did not end the receive: cannot happen, but be safe */
            return;
    }
    maybe_free(c);
}

static void on_send(struct conn *c, struct io_uring_cqe *cqe)
{
    c->sending = 0;
    if (cqe->res < 0) {
        c->closing = 1;
        if (c->receiving) { /* stop the receive: the connection is done */
            struct io_uring_sqe *sqe = sqe_get();
            io_uring_prep_cancel(sqe, tag(c, OP_RECV), 0);
            io_uring_sqe_set_data(sqe, tag(NULL, OP_IGNORE));
        }
        maybe_free(c);
        return;
    }
    c->off += (unsigned)cqe->res;
    if (http) {
        if (c->off < c->batch * SRV_HTTP_ANSWER_LEN) { /* a short send: the rest */
            send_answers(c);
            return;
        }
        c->owed -= c->batch;
        c->batch = 0;
        c->off = 0;
        if (c->owed && !c->closing)
            send_answers(c);
        maybe_free(c);
        return;
    }
    if (c->off < buf_len[c->head]) { /* a short send: the rest */
        send_head(c);
        return;
    }
    int b = c->head;
    c->head = next_bid[b];
    give_back(b);
    c->off = 0;
    if (c->head >= 0 && !c->closing)
        send_head(c);
    maybe_free(c);
}

int main(int argc, char **argv)
{
    int port = srv_args(argc, argv, &http);
    int sfd = srv_signalfd(0);
    int lfd = srv_listen(port, 0);
    struct io_uring_params p = {.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                                .cq_entries = 4 * ENTRIES};
    p.flags |= IORING_SETUP_CQSIZE;
    int r = io_uring_queue_init_params(ENTRIES, &ring, &p);
    if (r < 0) {
        fprintf(stderr, "skip: io_uring_queue_init (single issuer, defer taskrun): %s\n", strerror(-r));
        return 77;
    }
    size_t rsz = NBUF * sizeof(struct io_uring_buf);
    br = mmap(NULL, rsz, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    bufs = malloc((size_t)NBUF * BUFSZ);
    if (br == MAP_FAILED || !bufs) {
        perror("buffers");
        return 1;
    }
    io_uring_buf_ring_init(br);
    struct io_uring_buf_reg reg = {.ring_addr = (uintptr_t)br, .ring_entries = NBUF, .bgid = BGID};
    r = io_uring_register_buf_ring(&ring, &reg, 0);
    if (r < 0) {
        fprintf(stderr, "skip: io_uring_register_buf_ring: %s\n", strerror(-r));
        return 77;
    }
    for (int b = 0; b < NBUF; b++)
        give_back(b);
    io_uring_buf_ring_advance(br, returned);
    returned = 0;

    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, SOCK_CLOEXEC);
    io_uring_sqe_set_data(sqe, tag(NULL, OP_ACCEPT));
    struct signalfd_siginfo si;
    sqe = sqe_get();
    io_uring_prep_read(sqe, sfd, &si, sizeof si, 0);
    io_uring_sqe_set_data(sqe, tag(NULL, OP_SIGNAL));
    srv_ready();

    for (;;) {
        r = io_uring_submit_and_wait(&ring, 1);
        if (r < 0 && r != -EINTR) {
            fprintf(stderr, "io_uring_submit_and_wait: %s\n", strerror(-r));
            return 1;
        }
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe)
        {
            seen++;
            uintptr_t ud = (uintptr_t)io_uring_cqe_get_data(cqe);
            struct conn *c = (struct conn *)(ud & ~(uintptr_t)7);
            switch ((int)(ud & 7)) {
            case OP_ACCEPT:
                if (cqe->res >= 0) {
                    struct conn *nc = calloc(1, sizeof *nc);
                    nc->fd = cqe->res;
                    nc->head = nc->tail = -1;
                    arm_recv(nc);
                }
                if (!(cqe->flags & IORING_CQE_F_MORE)) {
                    sqe = sqe_get();
                    io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, SOCK_CLOEXEC);
                    io_uring_sqe_set_data(sqe, tag(NULL, OP_ACCEPT));
                }
                break;
            case OP_RECV:
                on_recv(c, cqe);
                break;
            case OP_SEND:
                on_send(c, cqe);
                break;
            case OP_SIGNAL:
                return 0;
            default: /* a cancel's own completion */
                break;
            }
        }
        io_uring_cq_advance(&ring, seen);
        if (returned) {
            io_uring_buf_ring_advance(br, returned);
            returned = 0;
        }
        while (rearm) {
            struct conn *c = rearm;
            rearm = c->rearm_next;
            c->on_rearm = 0;
            if (!c->closing)
                arm_recv(c);
            maybe_free(c);
        }
    }
}
