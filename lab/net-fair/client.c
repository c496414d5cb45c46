/* net-fair's client: `conns` closed loops over loopback from one thread (level-triggered
 * epoll, non-blocking sockets), each sending a request, waiting for its whole answer and
 * sending the next, with a byte counter per connection.
 *
 *   net_fair_client --port P --conns N --workload echo|http --seconds S --warmup W
 *                   --late-at T [--server-pid PID ...]
 *
 * echo: a request is 4,096 bytes, its answer the same 4,096 bytes back. http: a request is
 * `GET / HTTP/1.1` with a Host header (keep-alive), its answer a head up to the blank line
 * and Content-Length bytes of body. Every connection is opened first (at most 64 connects
 * in flight); once all are up, each sends its first request; after W seconds of warm-up
 * the client measures for S seconds, in windows of one second:
 *   - the bytes each connection received in the measured time (answers' bytes as they
 *     arrive);
 *   - starved: connections that received nothing in at least one window;
 *   - at T seconds into the measured time a late client connects and sends one request:
 *     late_ms is the time from its connect() to the last byte of its answer; if it is not
 *     answered by the end, the loops keep running (counters no longer move) for up to
 *     10 s more, and late_answered says whether it ever was;
 *   - server_busy: the CPU time of the --server-pid processes (every thread, from
 *     /proc/<pid>/task/<tid>/schedstat) over the measured wall time; client_busy: this
 *     process's CPU time over the same wall time. The server is the limit when its busy
 *     share is near 1 and the client's is not.
 * One ready connection gets one read (up to 64 KiB) per turn; level-triggered epoll hands
 * back the connections still ready after the others, so the client serves them in turn.
 * Prints one line, `lab-fair {json}`, on stdout; progress on stderr. Raises its own
 * RLIMIT_NOFILE soft limit up to the hard one when N needs it (no other process's). */
#include "bench.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define ECHO_BYTES 4096
#define HEAD_MAX 2048
#define CONNECTING_MAX 64
#define MAX_PIDS 8

struct conn {
    int fd;
    int up;           /* connected */
    int dead;         /* closed by the peer or failed */
    size_t sent;      /* bytes of the current request written */
    int want_out;     /* EPOLLOUT armed: the request did not fit in one write */
    size_t got;       /* echo: bytes of the current answer received */
    size_t hlen;      /* http: bytes of the answer's head gathered in head[] */
    long need;        /* http: body bytes still to come; -1 while the head is incomplete */
    int64_t answers;  /* complete answers */
    int64_t bytes;    /* bytes received in total */
    int64_t mark;     /* bytes at the start of the current window */
    int starved;      /* a window with nothing received */
    int once;         /* the late client: one request, no loop */
    char head[HEAD_MAX];
};

static int http, port, ep;
static const char *req;
static size_t req_len;
static char echo_req[ECHO_BYTES];
static const char http_req[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
static char rbuf[65536];
static int64_t errors;
static int draining; /* the run is over: answers end the loops */

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static int64_t server_ns(const int *pids, int npids)
{
    int64_t total = 0;
    for (int i = 0; i < npids; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", pids[i]);
        DIR *d = opendir(path);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char p2[320];
            snprintf(p2, sizeof p2, "/proc/%d/task/%s/schedstat", pids[i], e->d_name);
            FILE *f = fopen(p2, "r");
            long long ns = 0;
            if (f) {
                if (fscanf(f, "%lld", &ns) == 1)
                    total += ns;
                fclose(f);
            }
        }
        closedir(d);
    }
    return total;
}

static void arm(struct conn *c, uint32_t events, int op)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(ep, op, c->fd, &ev) < 0)
        die("epoll_ctl");
}

static void start_connect(struct conn *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS)
        die("connect");
    c->need = -1;
    arm(c, EPOLLOUT, EPOLL_CTL_ADD);
}

static void kill_conn(struct conn *c, const char *why)
{
    if (c->dead)
        return;
    c->dead = 1;
    errors++;
    if (errors <= 5)
        fprintf(stderr, "net-fair client: a connection ended: %s\n", why);
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
}

/* Writes the rest of the current request; EPOLLOUT while it does not fit. */
static void send_req(struct conn *c)
{
    while (c->sent < req_len) {
        ssize_t n = write(c->fd, req + c->sent, req_len - c->sent);
        if (n < 0) {
            if (errno == EAGAIN)
                break;
            kill_conn(c, strerror(errno));
            return;
        }
        c->sent += (size_t)n;
    }
    int out = c->sent < req_len;
    if (out != c->want_out) {
        c->want_out = out;
        arm(c, EPOLLIN | (out ? EPOLLOUT : 0), EPOLL_CTL_MOD);
    }
}

static void answered(struct conn *c)
{
    c->answers++;
    c->sent = 0;
    c->got = 0;
    c->hlen = 0;
    c->need = -1;
    if (!c->once && !draining)
        send_req(c);
}

/* An http answer's head is complete in c->head[0 .. hlen): its Content-Length, or -1. */
static long content_length(const struct conn *c)
{
    const char *p = c->head, *end = c->head + c->hlen;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        if ((size_t)(nl - p) > 15 && strncasecmp(p, "Content-Length:", 15) == 0)
            return strtol(p + 15, NULL, 10);
        p = nl + 1;
    }
    return -1;
}

/* Takes n received bytes of c's answer; returns 0, or -1 on a protocol error. */
static int take(struct conn *c, const char *p, size_t n)
{
    c->bytes += (int64_t)n;
    if (!http) {
        c->got += n;
        if (c->got > ECHO_BYTES)
            return -1;
        if (c->got == ECHO_BYTES)
            answered(c);
        return 0;
    }
    while (n) {
        if (c->need < 0) {
            /* gather the head up to CRLF CRLF */
            size_t i = 0;
            while (i < n && c->need < 0) {
                if (c->hlen == HEAD_MAX)
                    return -1;
                c->head[c->hlen++] = p[i++];
                if (c->hlen >= 4 && memcmp(c->head + c->hlen - 4, "\r\n\r\n", 4) == 0) {
                    c->need = content_length(c);
                    if (c->need < 0)
                        return -1;
                }
            }
            p += i;
            n -= i;
            if (c->need == 0) {
                if (n)
                    return -1; /* bytes beyond the answer of a closed loop */
                answered(c);
                return 0;
            }
            continue;
        }
        size_t k = n < (size_t)c->need ? n : (size_t)c->need;
        c->need -= (long)k;
        p += k;
        n -= k;
        if (c->need == 0) {
            if (n)
                return -1;
            answered(c);
            return 0;
        }
    }
    return 0;
}

static void on_ready(struct conn *c, uint32_t events, int *connecting, int *connected)
{
    if (c->dead)
        return;
    if (!c->up) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        (*connecting)--;
        if (err) {
            kill_conn(c, strerror(err));
            return;
        }
        c->up = 1;
        (*connected)++;
        arm(c, EPOLLIN, EPOLL_CTL_MOD);
        return;
    }
    if (events & EPOLLOUT)
        send_req(c);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        ssize_t n = read(c->fd, rbuf, sizeof rbuf);
        if (n == 0)
            kill_conn(c, "closed by the server");
        else if (n < 0 && errno != EAGAIN)
            kill_conn(c, strerror(errno));
        else if (n > 0 && take(c, rbuf, (size_t)n) < 0)
            kill_conn(c, "an answer not in the protocol's shape");
    }
}

static double arg_d(int argc, char **argv, const char *name, double dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtod(argv[i + 1], NULL);
    return dflt;
}

int main(int argc, char **argv)
{
    const char *workload = NULL;
    int pids[MAX_PIDS], npids = 0;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--workload") == 0)
            workload = argv[i + 1];
        else if (strcmp(argv[i], "--server-pid") == 0 && npids < MAX_PIDS)
            pids[npids++] = atoi(argv[i + 1]);
    }
    port = (int)arg_d(argc, argv, "--port", 0);
    int n = (int)arg_d(argc, argv, "--conns", 1000);
    double seconds = arg_d(argc, argv, "--seconds", 10), warmup = arg_d(argc, argv, "--warmup", 1);
    double late_at = arg_d(argc, argv, "--late-at", 2);
    if (port <= 0 || n <= 0 || !workload || (strcmp(workload, "echo") && strcmp(workload, "http")) || seconds < 1) {
        fprintf(stderr, "usage: %s --port P --conns N --workload echo|http --seconds S (>= 1) --warmup W "
                        "--late-at T [--server-pid PID ...]\n", argv[0]);
        return 2;
    }
    http = strcmp(workload, "http") == 0;
    if (http) {
        req = http_req;
        req_len = sizeof http_req - 1;
    } else {
        for (int i = 0; i < ECHO_BYTES; i++)
            echo_req[i] = (char)('a' + i % 26);
        req = echo_req;
        req_len = ECHO_BYTES;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < (rlim_t)n + 64) {
            fprintf(stderr, "skip: %d connections need %d files; the hard limit is %llu\n", n, n + 64,
                    (unsigned long long)rl.rlim_max);
            return 77;
        }
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct conn *cs = calloc((size_t)n + 1, sizeof *cs);
    if (ep < 0 || !cs)
        die("setup");
    struct epoll_event *evs = calloc((size_t)n + 1, sizeof *evs);

    /* connect every connection, CONNECTING_MAX at a time */
    int64_t t0 = bench_now_ns();
    int next = 0, connecting = 0, connected = 0;
    while (connected + (int)errors < n) {
        while (next < n && connecting < CONNECTING_MAX) {
            start_connect(&cs[next++]);
            connecting++;
        }
        int k = epoll_wait(ep, evs, n + 1, 1000);
        for (int i = 0; i < k; i++)
            on_ready(evs[i].data.ptr, evs[i].events, &connecting, &connected);
        if (bench_now_ns() - t0 > 30 * 1000000000LL) {
            fprintf(stderr, "net-fair client: %d of %d connected after 30 s\n", connected, n);
            return 1;
        }
    }
    if (errors) {
        fprintf(stderr, "net-fair client: %lld connections failed to connect\n", (long long)errors);
        return 1;
    }
    double connect_s = (double)(bench_now_ns() - t0) / 1e9;
    fprintf(stderr, "net-fair client: %d connections up in %.2f s\n", n, connect_s);
    for (int i = 0; i < n; i++)
        send_req(&cs[i]);

    /* warm-up, then windows of one second; the late client at late_at */
    int64_t start = bench_now_ns() + (int64_t)(warmup * 1e9), end = start + (int64_t)(seconds * 1e9);
    int64_t window = start, late_t = start + (int64_t)(late_at * 1e9), late_t0 = 0, late_done = 0;
    int64_t srv0 = 0, cpu0 = 0, srv1 = 0, cpu1 = 0, wall = 0, answers0 = 0, answers1 = 0;
    int64_t *bytes = calloc((size_t)n, sizeof *bytes);
    int measuring = 0, finished = 0, windows = 0;
    struct conn *late = &cs[n];
    late->once = 1;
    int late_sent = 0;
    int64_t cap = end + 10 * 1000000000LL;
    for (;;) {
        int64_t now = bench_now_ns();
        if (!measuring && now >= start) {
            measuring = 1;
            srv0 = server_ns(pids, npids);
            cpu0 = bench_cpu_ns();
            for (int i = 0; i < n; i++) {
                cs[i].mark = cs[i].bytes;
                bytes[i] = cs[i].bytes;
                answers0 += cs[i].answers;
            }
            window = start + 1000000000LL;
        }
        if (measuring && !finished && now >= window) {
            /* a window ended (the last one may be shorter than a second if S is not whole) */
            windows++;
            for (int i = 0; i < n; i++) {
                if (cs[i].bytes == cs[i].mark)
                    cs[i].starved = 1;
                cs[i].mark = cs[i].bytes;
            }
            window += 1000000000LL;
            if (window > end)
                window = end;
        }
        if (measuring && !finished && now >= end) {
            finished = 1;
            srv1 = server_ns(pids, npids);
            cpu1 = bench_cpu_ns();
            wall = now - start;
            for (int i = 0; i < n; i++) {
                bytes[i] = cs[i].bytes - bytes[i];
                answers1 += cs[i].answers;
            }
        }
        if (measuring && !late_t0 && now >= late_t) {
            late_t0 = bench_now_ns();
            start_connect(late);
        }
        if (late_t0 && !late_done && late->answers) {
            late_done = bench_now_ns();
        }
        if (finished && (late_done || now >= cap || late->dead))
            break;
        if (late->up && !late_sent) {
            late_sent = 1;
            send_req(late);
        }
        int64_t due = !measuring ? start : !finished ? (window < end ? window : end) : cap;
        if (measuring && !late_t0 && late_t < due)
            due = late_t;
        int timeout = due > now ? (int)((due - now) / 1000000 + 1) : 0;
        int c1 = 0, c2 = 0;
        int k = epoll_wait(ep, evs, n + 1, timeout);
        for (int i = 0; i < k; i++)
            on_ready(evs[i].data.ptr, evs[i].events, &c1, &c2);
    }
    /* the end: let every loop finish the request it has out (no new ones), then close every
     * connection with a reset (SO_LINGER 0): idle, so nothing is lost, and no TIME_WAIT is
     * left on a local port (thousands per run would exhaust the machine's ephemeral ports) */
    draining = 1;
    int64_t late_end = late_done ? late_done : bench_now_ns();
    int64_t drain_end = bench_now_ns() + 3 * 1000000000LL;
    for (;;) {
        int out = 0;
        for (int i = 0; i <= n; i++)
            out += !cs[i].dead && cs[i].up && cs[i].sent > 0;
        if (!out || bench_now_ns() > drain_end)
            break;
        int c1 = 0, c2 = 0;
        int k = epoll_wait(ep, evs, n + 1, 100);
        for (int i = 0; i < k; i++)
            on_ready(evs[i].data.ptr, evs[i].events, &c1, &c2);
    }
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    for (int i = 0; i <= n; i++) {
        if (cs[i].fd > 0 && !cs[i].dead) {
            setsockopt(cs[i].fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
            close(cs[i].fd);
        }
    }
    int starved = 0, dead = 0;
    for (int i = 0; i < n; i++) {
        starved += cs[i].starved;
        dead += cs[i].dead;
    }
    printf("lab-fair {\"conns\":%d,\"connect_s\":%.3f,\"measured_s\":%.4f,\"windows\":%d,\"starved\":%d,"
           "\"dead\":%d,\"answers\":%lld,\"late_ms\":%.3f,\"late_answered\":%d,\"server_ns\":%lld,"
           "\"client_ns\":%lld,\"bytes\":[",
           n, connect_s, (double)wall / 1e9, windows, starved, dead, (long long)(answers1 - answers0),
           (double)(late_end - late_t0) / 1e6, late_done ? 1 : 0, (long long)(srv1 - srv0), (long long)(cpu1 - cpu0));
    for (int i = 0; i < n; i++)
        printf("%s%lld", i ? "," : "", (long long)bytes[i]);
    printf("]}\n");
    fflush(stdout);
    free(bytes);
    free(evs);
    free(cs);
    close(ep);
    return 0;
}
