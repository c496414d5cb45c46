/* Helpers for the sockets tests (tests/net): real loopback TCP/UDP sockets, forked
 * peers, a byte pattern as oracle, and running the loop until a condition holds. */
#ifndef VIGIL_NT_H
#define VIGIL_NT_H

#include "vigil/net.h"
#include "vt.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <time.h>

/* The stream's byte at offset i: no short period, so a lost, repeated or reordered
 * piece shows. */
static inline unsigned char nt_pat(uint64_t i)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
    return (unsigned char)((x >> 56) ^ (i >> 17));
}

static inline void nt_fill(unsigned char *p, size_t n, uint64_t from)
{
    for (size_t i = 0; i < n; i++)
        p[i] = nt_pat(from + i);
}

/* The first offset in p[0..n) (stream offsets from..) that differs, or -1. */
static inline long long nt_check(const unsigned char *p, size_t n, uint64_t from)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != nt_pat(from + i))
            return (long long)(from + i);
    return -1;
}

/* n bytes of the pattern stream (nt_fill from 0) received in b: checks that they
 * continue where *got left off (a byte lost or out of order fails), counts them and
 * gives b back. */
static inline void nt_take_pattern(vigil_loop *l, vigil_buf *b, ssize_t n, uint64_t *got)
{
    CHECK(n > 0);
    long long bad = nt_check((unsigned char *)b->data, (size_t)n, *got);
    if (bad >= 0)
        fprintf(stderr, "byte %lld lost or out of order\n", bad);
    CHECK(bad < 0);
    *got += (uint64_t)n;
    vigil_buf_put(l, b);
}

static inline int64_t nt_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline const char *nt_backend(void)
{
    const char *b = getenv("VIGIL_BACKEND");
    return b && *b ? b : "auto";
}

static inline struct sockaddr_in nt_loopback(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return sa;
}

static inline int nt_port_of(int fd)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    CHECK_SYS(getsockname(fd, (struct sockaddr *)&sa, &sl));
    return ntohs(sa.sin_port);
}

/* A loopback TCP listener (blocking, close-on-exec); rcvbuf > 0 is inherited by the
 * connections it accepts. */
static inline int nt_listener(int backlog, int rcvbuf, int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(fd);
    if (rcvbuf > 0)
        CHECK_SYS(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf));
    struct sockaddr_in sa = nt_loopback(0);
    CHECK_SYS(bind(fd, (struct sockaddr *)&sa, sizeof sa));
    CHECK_SYS(listen(fd, backlog));
    *port = nt_port_of(fd);
    return fd;
}

/* A connected loopback TCP pair: fds[0] the connecting end, fds[1] the accepted one,
 * both blocking. small: socket buffers of about 64 KiB both ways (no autotuning), so a
 * peer that does not read stops a sender after a little data. */
static inline void nt_pair(int fds[2], int small)
{
    int port, sz = 65536;
    int l = nt_listener(1, small ? sz : 0, &port);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(c);
    if (small) {
        CHECK_SYS(setsockopt(c, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz));
        CHECK_SYS(setsockopt(c, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz));
    }
    struct sockaddr_in sa = nt_loopback(port);
    CHECK_SYS(connect(c, (struct sockaddr *)&sa, sizeof sa));
    int a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    CHECK_SYS(a);
    if (small)
        CHECK_SYS(setsockopt(a, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz));
    int one = 1;
    CHECK_SYS(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
    CHECK_SYS(setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
    close(l);
    fds[0] = c;
    fds[1] = a;
}

/* Closes fd so that its peer gets a reset (SO_LINGER {1, 0}). */
static inline void nt_reset(int fd)
{
    struct linger lg = {1, 0};
    CHECK_SYS(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
    CHECK_SYS(close(fd));
}

/* Forks a peer running child(); it dies with the test (PR_SET_PDEATHSIG) and after
 * 20 s at most, so a failed test never leaves it blocked. */
static inline pid_t nt_spawn(int (*child)(void))
{
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(20);
        _exit(child());
    }
    return pid;
}

/* A connected pair (nt_pair) whose end *peer_fd goes to a child process running
 * child() (nt_spawn; the parent closes its copy). Returns the parent's end; *pid is the
 * child's. */
static inline int nt_peer_pair(int small, int *peer_fd, int (*child)(void), pid_t *pid)
{
    int p[2];
    nt_pair(p, small);
    *peer_fd = p[0];
    *pid = nt_spawn(child);
    close(p[0]);
    return p[1];
}

/* A connected pair (nt_pair, default buffers) whose end fds[1] is opened as s on loop,
 * receiving into cb; fds[0] is the test's peer. */
static inline void nt_receiving_pair(vigil_loop *loop, vigil_sock *s, int fds[2], vigil_recv_cb cb)
{
    nt_pair(fds, 0);
    CHECK_EQ(vigil_sock_open(loop, s, fds[1]), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, s, cb), 0);
}

/* The start of a test of one receive stream: a 20 s alarm, a loop (vt_loop: the backend
 * VIGIL_BACKEND names), and s receiving fds[1]'s bytes into cb. */
static inline vigil_loop *nt_stream_test(vigil_sock *s, int fds[2], vigil_recv_cb cb)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    nt_receiving_pair(loop, s, fds, cb);
    return loop;
}

/* Runs turns until cond holds; fails after ms milliseconds. */
#define NT_RUN_UNTIL(loop, cond, ms)                                                    \
    do {                                                                                \
        int64_t nt_end_ = nt_ms() + (ms);                                               \
        while (!(cond)) {                                                               \
            if (vigil_loop_run((loop), VIGIL_RUN_ONCE) < 0 || nt_ms() > nt_end_) {      \
                fprintf(stderr, "%s:%d: not reached within %d ms: %s\n", __FILE__,      \
                        __LINE__, (int)(ms), #cond);                                    \
                exit(1);                                                                \
            }                                                                           \
        }                                                                               \
    } while (0)

/* Runs turns for ms milliseconds (a timer ends the wait). */
static inline void nt_timer_cb_(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    *(int *)t->data = 1;
}
static inline void nt_run_for(vigil_loop *loop, int ms)
{
    vigil_timer t = {0};
    int done = 0;
    t.data = &done;
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, (int64_t)ms * 1000000, 0, 0, nt_timer_cb_), 0);
    NT_RUN_UNTIL(loop, done, ms + 5000);
}

/* A peer's writing: writes total bytes of the pattern from offset 0 to fd, in write()s
 * of at most piece bytes (short writes continued). Returns 0, or 2 if a write failed. */
static inline int nt_write_pattern(int fd, uint64_t total, size_t piece)
{
    unsigned char b[65536];
    if (piece > sizeof b)
        piece = sizeof b;
    for (uint64_t off = 0; off < total;) {
        size_t len = total - off < piece ? (size_t)(total - off) : piece;
        nt_fill(b, len, off);
        for (size_t w = 0; w < len;) {
            ssize_t k = write(fd, b + w, len - w);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                return 2;
            w += (size_t)k;
        }
        off += len;
    }
    return 0;
}

/* A peer's reading: reads fd to end of stream in chunks of at most chunk bytes,
 * checking every byte against the pattern from offset 0; sleeps pause_us every 16
 * reads. Returns 0 when exactly want bytes came, else a nonzero code (printed). */
static inline int nt_read_check(int fd, uint64_t want, size_t chunk, int pause_us)
{
    unsigned char *b = malloc(chunk);
    uint64_t got = 0;
    for (long reads = 0;; reads++) {
        ssize_t k = read(fd, b, chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fprintf(stderr, "peer: read: %s after %llu bytes\n", strerror(errno), (unsigned long long)got);
            return 2;
        }
        if (k == 0)
            break;
        long long bad = nt_check(b, (size_t)k, got);
        if (bad >= 0) {
            fprintf(stderr, "peer: byte %lld differs from the pattern\n", bad);
            return 3;
        }
        got += (uint64_t)k;
        if (pause_us && reads % 16 == 0)
            usleep((useconds_t)pause_us);
    }
    free(b);
    if (got != want) {
        fprintf(stderr, "peer: %llu bytes, want %llu\n", (unsigned long long)got, (unsigned long long)want);
        return 4;
    }
    return 0;
}

/* A loopback listener whose accept queue is full: backlog 0, filled with connections
 * nobody accepts (their fds in fills[], *nfill of them; close them after). The kernel
 * then drops a new connection's SYN, so a connect to it hangs until the SYN retries run
 * out. Checked on this kernel with a probe connect that must stay unanswered for 200
 * ms; skips (77) with the reason if it does not. No system-wide setting is touched. */
static inline int nt_full_listener(int *port, int fills[8], int *nfill)
{
    int l = nt_listener(0, 0, port);
    struct sockaddr_in sa = nt_loopback(*port);
    for (*nfill = 0;;) {
        int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        CHECK_SYS(c);
        if (connect(c, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS)
            CHECK_SYS(-1);
        struct pollfd pf = {.fd = c, .events = POLLOUT};
        int k = poll(&pf, 1, 200);
        CHECK_SYS(k);
        if (k == 0) { /* unanswered: the queue is full */
            close(c);
            return l;
        }
        int err = 0;
        socklen_t el = sizeof err;
        CHECK_SYS(getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el));
        CHECK_EQ(err, 0);
        if (*nfill == 8)
            vt_skip("a listener with backlog 0 still completes connections after 8 unaccepted ones: "
                    "cannot make a connect hang on this kernel without system-wide changes");
        fills[(*nfill)++] = c;
    }
}

/* A loop (vt_loop) whose socket buffer pool has count buffers of size bytes. */
static inline vigil_loop *nt_loop_pool(unsigned count, unsigned size)
{
    vigil_loop *loop = vt_loop();
    struct vigil_net_options o;
    vigil_net_options_init(&o);
    o.buf_count = count;
    o.buf_size = size;
    CHECK_EQ(vigil_net_setup(loop, &o), 0);
    return loop;
}

#endif
