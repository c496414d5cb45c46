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
 * Servers side by side (lab/net-echo/driver.py): --port, --pid and --keys repeated, one
 * of each per server, and --slice L: `conns` connections to each server, all open
 * throughout, and the servers take turns: in a turn only one server's connections make
 * requests; its first SETTLE_S is not counted (the loops come back into step), then L
 * seconds are, then its requests drain (no new one, the ones in flight finish) before the
 * next server's turn. round(S / L) turns per server, in order on even passes and in
 * reverse on odd ones (A B C C B A ...), so a slow spell of the machine falls on every
 * server alike. Each server's records cover its own turns only (its requests, its CPU,
 * the client's CPU and time during them). Without --slice one server makes one turn of S.
 * A counting run (a driver traces the server meanwhile) warms up, lets every connection
 * go idle, prints "warm", waits for a line on stdin, makes exactly N requests, lets them
 * finish, prints "done N" and waits for a line on stdin before it closes its sockets. */
#include "echowin.h"
#include "rounds.h"

#include <errno.h>
#include <liburing.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

enum { OP_SEND = 0, OP_RECV = 1, MAX_SERVERS = 16 };

#define SETTLE_S 0.05 /* the start of a turn that is not counted */

/* One server's port, process, record keys and the sums over its counted turns. */
struct server {
    int port, pid;
    const char *keys;
    struct rounds_hist hist;
    long reqs;
    int64_t wall_ns, cpu_ns, client_ns;
};

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
static struct server servers[MAX_SERVERS];
static int nservers;
static int active = -1;       /* the server whose turn it is: only its connections make requests */
static struct rounds_hist *hist; /* where the round trips go: the active server's */
static struct rounds_hist null_hist; /* ... outside counted windows */
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
    if (stopping || (limit >= 0 && issued >= limit) || (c - conns) / opt.conns != active)
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
    rounds_hist_add(hist, now - c->t_send);
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

/* Takes the repeated --port, --pid and --keys (one per server, in order) and --slice out
 * of argv into servers[] and *slice; leaves the first of each for echowin_setup's checks.
 * -1 when they are wrong (too many servers, not one of each per server). */
static int take_servers(int *argc, char **argv, double *slice)
{
    int ports = 0, pids = 0, keys = 0, out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        int first = 0;
        if (i + 1 < *argc && !strcmp(a, "--port")) {
            if (ports >= MAX_SERVERS)
                return -1;
            first = ports == 0;
            servers[ports++].port = atoi(argv[i + 1]);
        } else if (i + 1 < *argc && !strcmp(a, "--pid")) {
            if (pids >= MAX_SERVERS)
                return -1;
            first = pids == 0;
            servers[pids++].pid = atoi(argv[i + 1]);
        } else if (i + 1 < *argc && !strcmp(a, "--keys")) {
            if (keys >= MAX_SERVERS)
                return -1;
            first = keys == 0;
            servers[keys++].keys = argv[i + 1];
        } else if (i + 1 < *argc && !strcmp(a, "--slice")) {
            *slice = atof(argv[++i]);
            continue;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        if (first) {
            argv[out++] = argv[i];
            argv[out++] = argv[i + 1];
        }
        i++;
    }
    *argc = out;
    argv[out] = NULL;
    nservers = ports;
    if (ports == 0)
        return 0; /* echowin_setup says what is missing */
    if ((pids && pids != ports) || (keys && keys != ports) || *slice < 0)
        return -1;
    return 0;
}

/* Server k's turn: its connections start, SETTLE_S uncounted, then `secs` counted
 * (when counted), then its requests drain. */
static void take_turn(int k, double secs, int counted)
{
    struct server *sv = &servers[k];
    active = k;
    hist = &null_hist;
    int64_t now = bench_now_ns();
    for (int i = 0; i < opt.conns; i++)
        start(&conns[k * opt.conns + i], now);
    run_until(now + (int64_t)((counted ? SETTLE_S : secs) * 1e9));
    if (counted) {
        hist = &sv->hist;
        done_reqs = 0;
        int64_t s0 = echowin_proc_cpu_ns(sv->pid), c0 = echowin_self_cpu_ns(), t0 = bench_now_ns();
        run_until(t0 + (int64_t)(secs * 1e9));
        int64_t t1 = bench_now_ns(), c1 = echowin_self_cpu_ns(), s1 = echowin_proc_cpu_ns(sv->pid);
        if (s0 < 0 || s1 < 0) {
            fprintf(stderr, "net_echo_client: cannot read the server's /proc/%d/task: %s\n", sv->pid, strerror(errno));
            exit(1);
        }
        sv->reqs += done_reqs;
        sv->wall_ns += t1 - t0;
        sv->cpu_ns += s1 - s0;
        sv->client_ns += c1 - c0;
        hist = &null_hist;
    }
    drain();
    active = -1;
}

/* The timed run over every server: warm-ups, then the turns, then each server's records. */
static int measure_turns(double slice)
{
    int turns = 1;
    if (slice > 0) {
        turns = (int)lround(opt.seconds / slice);
        turns = turns < 1 ? 1 : turns;
    } else {
        slice = opt.seconds;
    }
    for (int k = 0; k < nservers; k++)
        take_turn(k, opt.warmup, 0);
    for (int t = 0; t < turns; t++)
        for (int j = 0; j < nservers; j++)
            take_turn(t % 2 ? nservers - 1 - j : j, slice, 1);
    int rc = 0;
    for (int k = 0; k < nservers; k++) {
        struct server *sv = &servers[k];
        double wall = (double)sv->wall_ns, n = (double)sv->reqs;
        fprintf(stderr, "net_echo_client: port %d: %ld requests in %.3f s (%d turns): %.0f/s, server %.0f ns/request, "
                "client busy %.2f\n", sv->port, sv->reqs, wall / 1e9, turns, n / (wall / 1e9),
                n ? (double)sv->cpu_ns / n : 0.0, (double)sv->client_ns / wall);
        if (sv->reqs == 0) {
            fprintf(stderr, "net_echo_client: port %d: no request completed in its turns: %s\n", sv->port,
                    strerror(ETIMEDOUT));
            rc = 1;
            continue;
        }
        rounds_emit_total(sv->keys, "requests_per_s", n, wall / 1e9);
        rounds_emit_total(sv->keys, "server_cpu_ns_per_request", (double)sv->cpu_ns, n);
        rounds_emit_hist(sv->keys, "rtt_us", &sv->hist, 1000.0);
        rounds_emit_total(sv->keys, "client_busy", (double)sv->client_ns, wall);
    }
    return rc;
}

int main(int argc, char **argv)
{
    double slice = 0;
    if (take_servers(&argc, argv, &slice) < 0 ||
        echowin_setup(argc, argv, &opt, "net_echo_client", 1, UINT_MAX) < 0) {
        fprintf(stderr, "net_echo_client: several servers: --port, --pid and --keys once per server (at most %d), "
                "[--slice L]\n", MAX_SERVERS);
        return 2;
    }
    if (opt.count >= 0 && nservers != 1) {
        fprintf(stderr, "net_echo_client: a counting run is against one server\n");
        return 2;
    }
    if (nservers > 1) /* the alarm for every server's warm-up and turns */
        alarm((unsigned)(nservers * (opt.warmup + opt.seconds + 2 * SETTLE_S * (opt.seconds / (slice > 0 ? slice : opt.seconds) + 1))) + 60);
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max; /* a connection per server: up to thousands of sockets */
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    int total = nservers * opt.conns;
    conns = calloc((size_t)total, sizeof *conns);
    sendbuf = malloc(opt.msg);
    recvbuf = malloc(opt.msg);
    memset(sendbuf, 'x', opt.msg);
    for (int i = 0; i < total; i++) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)servers[i / opt.conns].port)};
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
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
    hist = &null_hist;

    if (opt.count >= 0) { /* a counting run */
        active = 0;
        int64_t now = bench_now_ns();
        for (int i = 0; i < opt.conns; i++)
            start(&conns[i], now);
        run_until(now + (int64_t)(opt.warmup * 1e9));
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
    return measure_turns(slice);
}
