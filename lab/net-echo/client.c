/* net-echo's client, the same for every server: `conns` TCP connections to
 * 127.0.0.1:PORT, each a closed loop (send msg_bytes, wait for all msg_bytes of the echo,
 * which may come in pieces, send again). One io_uring (SINGLE_ISSUER | DEFER_TASKRUN),
 * one io_uring_submit_and_wait per turn: it submits every send and receive the last turn
 * made and waits for a completion; the clock is read once per turn (a round trip is
 * timed from the turn that queued its send to the turn that saw its last byte).
 *
 *   net_echo_client --port P --conns N --msg-bytes M --seconds S [--warmup W] [--cpu C]
 *                   [--pid PID] --keys '"bench":..,"system":..'      (a timed run)
 *   net_echo_client ... --count N                                   (a counting run)
 *
 * A timed run warms up for W seconds, then measures S seconds and prints, with the keys:
 * requests_per_s (total requests / seconds), server_cpu_ns_per_request (the CPU time of
 * every thread of process PID over the window, from /proc/PID/task/<tid>/schedstat, in
 * ns / requests), rtt_us (a histogram of round trips) and client_busy (this process's
 * CPU time / wall time: near 1 means the client, not the server, may be the limit).
 * rounds.h's totals and histograms: run.py pools the rounds.
 * A counting run (a driver traces the server meanwhile) warms up, lets every connection
 * go idle, prints "warm", waits for a line on stdin, makes exactly N requests, lets them
 * finish, prints "done N" and waits for a line on stdin before it closes its sockets. */
#include "echowin.h"
#include "rounds.h"

#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

enum { OP_SEND = 0, OP_RECV = 1 };

struct conn {
    int fd;
    unsigned sent, got; /* bytes of the current request sent and received */
    int64_t t_send;     /* the turn that queued its send */
    int busy;           /* a request is in flight */
};

static struct io_uring ring;
static struct conn *conns;
static struct echowin_opts opt; /* the command line */
static char *sendbuf, *recvbuf;
static struct rounds_hist hist;
static long done_reqs, issued, limit = -1; /* limit: stop issuing at this many (counting) */
static int inflight;

static struct io_uring_sqe *sqe_get(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    while (!sqe) {
        io_uring_submit(&ring);
        sqe = io_uring_get_sqe(&ring);
    }
    return sqe;
}

static void q_send(struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_send(sqe, c->fd, sendbuf + c->sent, opt.msg - c->sent, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, (uint64_t)(c - conns) << 1 | OP_SEND);
}

static void q_recv(struct conn *c)
{
    struct io_uring_sqe *sqe = sqe_get();
    io_uring_prep_recv(sqe, c->fd, recvbuf, opt.msg - c->got, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)(c - conns) << 1 | OP_RECV);
}

static int stopping; /* no new requests */

static void start(struct conn *c, int64_t now)
{
    if (stopping || (limit >= 0 && issued >= limit))
        return;
    c->sent = c->got = 0;
    c->t_send = now;
    c->busy = 1;
    issued++;
    inflight++;
    q_send(c);
    q_recv(c);
}

static void finish(struct conn *c, int64_t now)
{
    c->busy = 0;
    inflight--;
    done_reqs++;
    rounds_hist_add(&hist, now - c->t_send);
    start(c, now);
}

static void die(const char *what, int err)
{
    fprintf(stderr, "net_echo_client: %s: %s\n", what, strerror(err));
    exit(1);
}

/* One turn: submit, wait for a completion, handle every completion. */
static void turn(void)
{
    int r = io_uring_submit_and_wait(&ring, 1);
    if (r < 0 && r != -EINTR)
        die("io_uring_submit_and_wait", -r);
    int64_t now = bench_now_ns();
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe)
    {
        seen++;
        uint64_t ud = io_uring_cqe_get_data64(cqe);
        struct conn *c = &conns[ud >> 1];
        if (cqe->res <= 0)
            die((ud & 1) ? "recv (the server closed or failed)" : "send", cqe->res ? -cqe->res : EPIPE);
        if ((ud & 1) == OP_SEND) {
            c->sent += (unsigned)cqe->res;
            if (c->sent < opt.msg)
                q_send(c); /* a short send: the rest */
            else if (c->got == opt.msg)
                finish(c, now);
        } else {
            c->got += (unsigned)cqe->res;
            if (c->got < opt.msg)
                q_recv(c); /* the echo came in pieces */
            else if (c->sent == opt.msg)
                finish(c, now);
        }
    }
    io_uring_cq_advance(&ring, seen);
}

static void run_until(int64_t end)
{
    while (bench_now_ns() < end)
        turn();
}

static void drain(void)
{
    stopping = 1;
    while (inflight > 0)
        turn();
    stopping = 0;
}

static void wait_line(void)
{
    char line[64];
    if (!fgets(line, sizeof line, stdin))
        exit(1);
}

int main(int argc, char **argv)
{
    if (echowin_setup(argc, argv, &opt, "net_echo_client", 1, UINT_MAX) < 0)
        return 2;
    conns = calloc((size_t)opt.conns, sizeof *conns);
    sendbuf = malloc(opt.msg);
    recvbuf = malloc(opt.msg);
    memset(sendbuf, 'x', opt.msg);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opt.port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < opt.conns; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
            die("connect", errno);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conns[i].fd = fd;
    }
    unsigned entries = 64;
    while (entries < 2u * (unsigned)opt.conns + 16)
        entries *= 2;
    struct io_uring_params p = {.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
                                .cq_entries = 2 * entries};
    int r = io_uring_queue_init_params(entries, &ring, &p);
    if (r < 0) {
        fprintf(stderr, "skip: io_uring_queue_init (single issuer, defer taskrun): %s\n", strerror(-r));
        return 77;
    }
    int64_t now = bench_now_ns();
    for (int i = 0; i < opt.conns; i++)
        start(&conns[i], now);
    run_until(now + (int64_t)(opt.warmup * 1e9));

    if (opt.count >= 0) { /* a counting run */
        drain();
        printf("warm\n");
        fflush(stdout);
        wait_line();
        limit = opt.count;
        issued = done_reqs = 0;
        now = bench_now_ns();
        for (int i = 0; i < opt.conns; i++)
            start(&conns[i], now);
        while (inflight > 0)
            turn();
        printf("done %ld\n", done_reqs);
        fflush(stdout);
        wait_line();
        return 0;
    }

    return echowin_measure("net_echo_client", opt.keys, opt.pid, opt.seconds, run_until, &done_reqs, &hist);
}
