/* libFuzzer harness for the connection side of the sockets API (<vigil/net.h>):
 * listening, accepting, connecting, their timeouts, cancels and closes, and running out
 * of descriptors, on real kernel sockets (loopback TCP or AF_UNIX), on the backend the
 * input picks, checked against a model of what the API promises. net_fuzz.c covers the
 * data side on connected pairs; this one covers how the pairs come to be.
 *
 * The model, whatever the sequence:
 *   - every connect's callback runs exactly once, before its socket's close callback,
 *     with 0 (and then the socket is connected: getpeername succeeds), -ECONNREFUSED
 *     (only to the address nobody listens on, or to a listener closed since), -ETIMEDOUT
 *     (only with a timeout, and never before it passed), or -ECANCELED (only after a
 *     cancel or close);
 *   - every accepted connection is one a connector here started to that listener, and
 *     none is accepted twice; no accept callback after accepting stopped or the listener
 *     closed; -EMFILE only while descriptors are short, and once per shortage;
 *   - calls are refused exactly as documented (a second connect -EBUSY, accepting on a
 *     socket that does not listen -EINVAL, a bad address length or timeout -EINVAL,
 *     accepting twice -EBUSY, a call on a closed socket -EBADF, cancelling an idle
 *     request -ENOENT);
 *   - at the end, with descriptors back and accepting on: every connector still open
 *     whose connect succeeded is accepted within DRAIN_MS (none lost, e.g. taken by a
 *     multishot accept racing a stop), every connect with a timeout has ended, and once
 *     everything is closed and the loop freed, the process holds exactly the descriptors
 *     it held before the input (none leaked: not an accepted one, not a connector).
 * Any disagreement aborts (a crash for libFuzzer).
 *
 * INPUT FORMAT
 *   byte 0        configuration: bits 0-1 the backend (0 io_uring, 1 epoll, 2 poll,
 *                 3 epoll; io_uring refused by the kernel falls back to the default);
 *                 bit 2 AF_UNIX (abstract names) instead of loopback TCP; bit 3 a
 *                 listen backlog of 1 instead of 64; bit 4 connectors' fds non-blocking
 *                 when handed to vigil (as Python's are; vigil makes them so on epoll
 *                 and poll anyway).
 *   then 4-byte records [op, a, b, c], at most MAX_OPS, run in order; connector a % NCONN:
 *     0, 1, 2  connect to the listener's address (opening the connector first if it is
 *              free); c & 3: a timeout of (b % 8 + 1) * 250 us, else none
 *     3        connect to an address nobody listens on (timeout as 0)
 *     4        start accepting
 *     5        stop accepting
 *     6        close the connector
 *     7        close accepted connection b % NACC
 *     8, 9     a turn that never sleeps
 *     10       a turn that may sleep, at most (b % 8) * 100 us (a timer ends it)
 *     11       c & 1: lower this process's RLIMIT_NOFILE to its lowest free descriptor
 *              (no new descriptor can be had); else raise it back
 *     12       c & 1: close the listener; else reopen it if closed (a new address)
 *     13       cancel the connector's connect
 *     14       calls that must be refused (see above), on the connector
 *     15       sleep (b % 4) * 50 us: the kernel moves meanwhile
 *
 * Built as net_fuzz.c is: with clang's libFuzzer (fuzz/CMakeLists.txt, VIGIL_FUZZ;
 * scripts/fuzz.sh) and with conn_driver.c, a random driver ctest runs under gcc's
 * ASan/UBSan on every backend. Only this process's descriptor limit ever changes, and it
 * is restored before each input ends.
 */
#include "vigil/net.h"
#include "vigil.h"
#define FUZZ_NAME "conn_fuzz"
#include "net_loop.h"
#include "fds.h" /* tests/common */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NCONN 8
#define NACC 16
#define MAX_OPS 120
#define MAX_STARTS 256
#define DRAIN_MS 3000

unsigned long conn_fuzz_inputs, conn_fuzz_calls, conn_fuzz_refused, conn_fuzz_connected, conn_fuzz_accepted,
    conn_fuzz_timedout, conn_fuzz_cancelled, conn_fuzz_conn_refused, conn_fuzz_emfile, conn_fuzz_backend[4];


static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* An address and its length: where the listener listens, or nobody does. */
struct addr {
    struct sockaddr_storage sa;
    socklen_t len;
};

struct conn {
    vigil_sock s;
    vigil_net_req req;
    bool open, closing, used; /* used: connect was called on it (a socket connects once) */
    bool in_flight, cancel_asked, to_listener;
    unsigned lgen;       /* the listener's generation the connect went to */
    int64_t started, timeout;
    int result;          /* the connect's result, once in_flight ended */
    uint64_t key;        /* its own address (port, or autobound name) */
    int start;           /* its entry in starts[] (to_listener) */
};

static struct {
    vigil_sock s;
    bool open, closing, accepting, told; /* told: -EMFILE reported in this shortage */
    unsigned gen;
    struct addr addr;
} L;

/* Every connect started to a listener: who may be accepted, and once. */
static struct start {
    uint64_t key;
    unsigned lgen;
    bool accepted;
} starts[MAX_STARTS];
static int nstarts;

static vigil_loop *loop;
static struct conn conns[NCONN];
static int acc[NACC];
static bool unix_dom, small_backlog, nonblock, uring;
static struct addr nobody;
static int nobody_fd = -1; /* TCP: holds nobody's port (bound, not listening) for the input */
static bool limit_low;
static unsigned turns_since_raise; /* -EMFILE may still come from the turn the limit was raised in */
/* io_uring reads the limit when an accept is submitted: a multishot accept armed while
 * the limit was low fails with -EMFILE after it is raised (and accepts below the low
 * limit meanwhile), until vigil arms it again (after the back-off that follows a
 * report, or a stop and start). Set while that may be. */
static bool armed_low;
static struct rlimit old_limit;
static bool trace; /* CONN_FUZZ_TRACE: each operation and accept on stderr */

/* ------------------------------------------------------------ addresses */

static uint64_t key_of(const struct sockaddr_storage *sa, socklen_t len)
{
    if (sa->ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)sa)->sin_port);
    const struct sockaddr_un *u = (const struct sockaddr_un *)sa;
    size_t n = len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
    uint64_t k = 0x5a;
    for (size_t i = 0; i < n && i < sizeof u->sun_path; i++)
        k = k * 131 + (uint8_t)u->sun_path[i];
    return k;
}

static int new_socket(void)
{
    return socket(unix_dom ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/* Binds fd to a fresh local address (loopback port 0, or an autobound abstract name). */
static int bind_any(int fd)
{
    if (unix_dom) {
        struct sockaddr_un u = {.sun_family = AF_UNIX};
        return bind(fd, (struct sockaddr *)&u, sizeof(sa_family_t));
    }
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return bind(fd, (struct sockaddr *)&in, sizeof in);
}

static void name_of(int fd, struct addr *a)
{
    a->len = sizeof a->sa;
    if (getsockname(fd, (struct sockaddr *)&a->sa, &a->len) < 0)
        fail("getsockname: %s", strerror(errno));
}

/* An address nobody listens on: a port bound and held by a socket that does not listen
 * (TCP: no other program can take it meanwhile), or a name never bound. */
static void make_nobody(void)
{
    if (unix_dom) {
        struct sockaddr_un *u = (struct sockaddr_un *)&nobody.sa;
        memset(u, 0, sizeof *u);
        u->sun_family = AF_UNIX;
        int n = snprintf(u->sun_path + 1, sizeof u->sun_path - 1, "vigil-conn-fuzz-nobody-%d", (int)getpid());
        nobody.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
        return;
    }
    int fd = new_socket();
    if (fd < 0 || bind_any(fd) < 0)
        fail("a socket for the refused address: %s", strerror(errno));
    name_of(fd, &nobody);
    nobody_fd = fd;
}

/* ------------------------------------------------------------- listener */

static void on_accept(vigil_loop *l, vigil_sock *s, int fd);
static int count_fds(void);

/* TCP: every port a listener of this input had stays bound here until the input ends,
 * by a socket that never listens. Otherwise another program (ctest runs conn_fuzz.epoll
 * and .poll side by side) could get a closed listener's port for its own listener, and
 * this input's connects to "a listener closed since" would reach it: there, a connection
 * no connector started; here, a connect that should have been refused. */
static int holders[MAX_OPS + 2]; /* the first listener, then at most one per operation */
static int nholders;

static void holders_close(void)
{
    while (nholders > 0)
        close(holders[--nholders]);
}

/* A listening socket on a fresh loopback port with a holder on the same port (both
 * SO_REUSEADDR, the holder bound before the listen), or a fresh AF_UNIX name. -1 with
 * errno EMFILE when descriptors are short. */
static int listener_socket(void)
{
    int fd = new_socket();
    if (fd < 0)
        return -1;
    if (!unix_dom) {
        if (nholders == (int)(sizeof holders / sizeof holders[0]))
            fail("more listener ports than holders");
        int one = 1;
        struct addr a;
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 || bind_any(fd) < 0)
            fail("listener: %s", strerror(errno));
        name_of(fd, &a);
        int h = new_socket();
        if (h < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (setsockopt(h, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
            bind(h, (struct sockaddr *)&a.sa, a.len) < 0)
            fail("a holder for the listener's port: %s", strerror(errno));
        holders[nholders++] = h;
    } else if (bind_any(fd) < 0) {
        fail("listener: %s", strerror(errno));
    }
    if (listen(fd, small_backlog ? 1 : 64) < 0)
        fail("listener: %s", strerror(errno));
    return fd;
}

static void listener_open(void)
{
    int fd = listener_socket();
    if (fd < 0) {
        if (errno == EMFILE)
            return; /* descriptors are short: reopened later */
        fail("socket: %s", strerror(errno));
    }
    name_of(fd, &L.addr);
    memset(&L.s, 0, sizeof L.s);
    if (vigil_sock_open(loop, &L.s, fd) != 0)
        fail("vigil_sock_open(listener)");
    L.open = true;
    L.accepting = false;
    L.told = false;
    L.gen++;
}

static void on_listener_closed(vigil_loop *l, vigil_sock *s)
{
    (void)l;
    if (s != &L.s || !L.closing)
        fail("a listener close callback nobody asked for");
    L.closing = false;
}

static void keep_accepted(int fd)
{
    for (int i = 0; i < NACC; i++)
        if (acc[i] < 0) {
            acc[i] = fd;
            return;
        }
    close(acc[0]); /* full: the oldest goes */
    memmove(acc, acc + 1, sizeof acc[0] * (NACC - 1));
    acc[NACC - 1] = fd;
}

static void on_accept(vigil_loop *l, vigil_sock *s, int fd)
{
    (void)l;
    if (s != &L.s || !L.open)
        fail("an accept callback on a closed listener (fd %d)", fd);
    if (!L.accepting)
        fail("an accept callback after accepting stopped (fd %d)", fd);
    if (trace)
        fprintf(stderr, "conn_fuzz: accept callback %d (limit %s)\n", fd, limit_low ? "low" : "high");
    if (fd == -EMFILE || fd == -ENFILE) {
        if (!limit_low && turns_since_raise > 1 && !armed_low)
        {
            struct rlimit cur;
            getrlimit(RLIMIT_NOFILE, &cur);
            fail("%s with descriptors to spare (%u turns since the limit was raised; limit %llu, %d open)",
                 strerror(-fd), turns_since_raise, (unsigned long long)cur.rlim_cur, count_fds());
        }
        if (L.told)
            fail("-EMFILE reported twice in one shortage");
        L.told = true;
        if (!limit_low)
            armed_low = false; /* the multishot accept ended; armed again after the pause */
        conn_fuzz_emfile++;
        return;
    }
    if (fd < 0)
        fail("accept: %s", strerror(-fd));
    struct addr peer;
    peer.len = sizeof peer.sa;
    if (getpeername(fd, (struct sockaddr *)&peer.sa, &peer.len) < 0) {
        if (errno != ENOTCONN)
            fail("getpeername(accepted): %s", strerror(errno));
        close(fd); /* reset before it was accepted: nothing to match */
        return;
    }
    uint64_t k = key_of(&peer.sa, peer.len);
    /* The latest start from that address: a port whose connect never got through may be
     * a later connector's. */
    int i = nstarts - 1;
    while (i >= 0 && !(starts[i].key == k && !starts[i].accepted))
        i--;
    if (i < 0)
        fail("accepted a connection no connector started (or accepted it twice)");
    starts[i].accepted = true;
    L.told = false;
    conn_fuzz_accepted++;
    keep_accepted(fd);
}

/* ----------------------------------------------------------- connectors */


static void on_connect(vigil_loop *l, vigil_net_req *req, ssize_t res)
{
    (void)l;
    struct conn *c = req->data;
    if (!c || req != &c->req)
        fail("a connect callback for a request nobody started");
    if (!c->in_flight)
        fail("a connect callback twice (res %zd)", res);
    c->in_flight = false;
    c->result = (int)res;
    if (req->result != res)
        fail("req->result %zd, the callback's res %zd", req->result, res);
    if (res == 0) {
        if (!c->to_listener)
            fail("connected to an address nobody listens on");
        /* Connected means connected. (Not if the listener went away or its end of the
         * connection was accepted and closed since: a reset may have come.) */
        struct sockaddr_storage p;
        socklen_t pl = sizeof p;
        if (!c->closing && L.open && L.gen == c->lgen && !starts[c->start].accepted &&
            getpeername(c->s.fd, (struct sockaddr *)&p, &pl) < 0)
            fail("connect reported 0 but the socket is not connected: %s", strerror(errno));
        conn_fuzz_connected++;
    } else if (res == -ECONNREFUSED || res == -ECONNRESET) {
        if (c->to_listener && L.open && L.gen == c->lgen)
            fail("%s from a listener that is open", strerror((int)-res));
        conn_fuzz_conn_refused++;
    } else if (res == -ETIMEDOUT) {
        if (!c->timeout)
            fail("-ETIMEDOUT without a timeout");
        if (now_ns() - c->started < c->timeout)
            fail("-ETIMEDOUT %lld ns early", (long long)(c->timeout - (now_ns() - c->started)));
        conn_fuzz_timedout++;
    } else if (res == -ECANCELED) {
        if (!c->cancel_asked)
            fail("-ECANCELED with nothing cancelled");
        conn_fuzz_cancelled++;
    } else {
        fail("connect: %s", strerror((int)-res));
    }
}

static void on_closed(vigil_loop *l, vigil_sock *s)
{
    (void)l;
    struct conn *c = s->data;
    if (!c || s != &c->s || !c->closing)
        fail("a close callback nobody asked for");
    if (c->in_flight)
        fail("close callback before the connect's");
    if (s->fd != -1)
        fail("close callback with fd %d still set", s->fd);
    memset(c, 0, sizeof *c); /* the socket may be reused from here: zeroed first */
}

static void op_connect(struct conn *c, bool to_nobody, uint8_t b, uint8_t cc)
{
    if (c->closing)
        return;
    if (c->open && c->used && !c->in_flight) {
        /* A socket connects once; close it, a later op opens another. */
        c->closing = true;
        conn_fuzz_calls++;
        if (vigil_sock_close(loop, &c->s, on_closed) != 0)
            fail("vigil_sock_close(connector)");
        return;
    }
    const struct addr *to = to_nobody ? &nobody : &L.addr;
    int64_t timeout = (cc & 3) ? (int64_t)(b % 8 + 1) * 250000 : 0;
    if (c->in_flight) {
        conn_fuzz_calls++;
        vigil_net_req other = {0};
        if (vigil_sock_connect(loop, &c->s, &other, (const struct sockaddr *)&to->sa, to->len, 0, on_connect) != -EBUSY)
            fail("a second connect on a connecting socket was not refused with -EBUSY");
        conn_fuzz_refused++;
        return;
    }
    if (!c->open) {
        int fd = new_socket();
        if (fd < 0) {
            if (errno == EMFILE && limit_low)
                return;
            fail("socket: %s", strerror(errno));
        }
        if (bind_any(fd) < 0)
            fail("bind(connector): %s", strerror(errno));
        if (nonblock && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
            fail("fcntl");
        memset(c, 0, sizeof *c);
        c->s.data = c;
        c->req.data = c;
        if (vigil_sock_open(loop, &c->s, fd) != 0)
            fail("vigil_sock_open(connector)");
        c->s.data = c;
        c->open = true;
        struct addr me;
        name_of(fd, &me);
        c->key = key_of(&me.sa, me.len);
    }
    c->used = true;
    c->to_listener = to != &nobody;
    c->lgen = L.gen;
    c->timeout = timeout;
    c->cancel_asked = false;
    c->req.data = c;
    c->started = now_ns();
    conn_fuzz_calls++;
    int e = vigil_sock_connect(loop, &c->s, &c->req, (const struct sockaddr *)&to->sa, to->len, timeout, on_connect);
    if (e != 0)
        fail("vigil_sock_connect: %s", strerror(-e));
    c->in_flight = true;
    if (c->to_listener) {
        if (nstarts == MAX_STARTS)
            fail("MAX_STARTS");
        c->start = nstarts;
        starts[nstarts++] = (struct start){c->key, c->lgen, false};
    }
}

/* A call's result e, which must be the refusal (counted) when refused, else 0: whether
 * the call was taken. */
static bool taken(int e, bool refused, int refusal, const char *call)
{
    conn_fuzz_calls++;
    if (refused) {
        if (e != refusal)
            fail("%s: %d, not refused with %d", call, e, refusal);
        conn_fuzz_refused++;
        return false;
    }
    if (e != 0)
        fail("%s: %s", call, strerror(-e));
    return true;
}

static void op_close(struct conn *c)
{
    if (!c->open)
        return;
    if (!taken(vigil_sock_close(loop, &c->s, on_closed), c->closing, -EBADF, "vigil_sock_close (a second close)"))
        return;
    c->closing = true;
    if (c->in_flight)
        c->cancel_asked = true;
}

static void op_cancel(struct conn *c)
{
    if (!c->open || c->closing)
        return;
    if (taken(vigil_net_cancel(loop, &c->req), !c->in_flight, -ENOENT, "vigil_net_cancel (of an idle request)"))
        c->cancel_asked = true;
}

static void op_refused(struct conn *c, uint8_t b)
{
    if (c->open && !c->closing) {
        vigil_net_req scratch = {0};
        conn_fuzz_calls += 3;
        if (vigil_sock_accept_start(loop, &c->s, on_accept) != -EINVAL)
            fail("accepting on a socket that does not listen was not refused with -EINVAL");
        if (vigil_sock_connect(loop, &c->s, &scratch, (const struct sockaddr *)&L.addr.sa, 1, 0, on_connect) != -EINVAL)
            fail("a 1-byte address was not refused with -EINVAL");
        if (vigil_sock_connect(loop, &c->s, &scratch, (const struct sockaddr *)&L.addr.sa, L.addr.len, -1, on_connect) !=
            -EINVAL)
            fail("a negative timeout was not refused with -EINVAL");
        conn_fuzz_refused += 3;
    }
    if (!L.open && (b & 1)) {
        conn_fuzz_calls++;
        vigil_sock closed = {0};
        if (vigil_sock_accept_start(loop, &closed, on_accept) != -EBADF)
            fail("accepting on a socket never opened was not refused with -EBADF");
        conn_fuzz_refused++;
    }
}

/* --------------------------------------------------- listener operations */

static void op_accept_start(void)
{
    conn_fuzz_calls++;
    int e = vigil_sock_accept_start(loop, &L.s, on_accept);
    if (!L.open || L.closing) {
        if (L.gen && e != -EBADF)
            fail("accepting on a closed listener: %d, not -EBADF", e);
        conn_fuzz_refused += L.gen != 0;
        return;
    }
    if (L.accepting) {
        if (e != -EBUSY)
            fail("accepting twice: %d, not -EBUSY", e);
        conn_fuzz_refused++;
        return;
    }
    if (e != 0)
        fail("vigil_sock_accept_start: %s", strerror(-e));
    L.accepting = true;
    armed_low = limit_low && uring;
    if (!vigil_sock_accepting(&L.s))
        fail("vigil_sock_accepting() 0 after a start");
}

static void op_accept_stop(void)
{
    if (!L.open || L.closing)
        return;
    conn_fuzz_calls++;
    if (vigil_sock_accept_stop(loop, &L.s) != 0)
        fail("vigil_sock_accept_stop");
    L.accepting = false;
}

static void op_listener(uint8_t cc)
{
    if (cc & 1) {
        if (!L.open || L.closing)
            return;
        conn_fuzz_calls++;
        if (vigil_sock_close(loop, &L.s, on_listener_closed) != 0)
            fail("vigil_sock_close(listener)");
        L.closing = true;
        L.open = false;
        L.accepting = false;
    } else if (!L.open && !L.closing) {
        listener_open();
    }
}

static void set_limit(bool low)
{
    if (low == limit_low)
        return;
    if (low) {
        int probe = dup(0);
        if (probe < 0)
            return;
        close(probe);
        struct rlimit r = old_limit;
        r.rlim_cur = (rlim_t)probe; /* the lowest free descriptor is the first refused */
        if (setrlimit(RLIMIT_NOFILE, &r) < 0)
            fail("setrlimit: %s", strerror(errno));
        armed_low = uring && L.accepting;
    } else {
        if (setrlimit(RLIMIT_NOFILE, &old_limit) < 0)
            fail("setrlimit back: %s", strerror(errno));
        turns_since_raise = 0;
    }
    limit_low = low;
}

/* ---------------------------------------------------------------- turns */

static vigil_timer sleep_timer;
static void on_sleep_timer(vigil_loop *l, vigil_timer *t) { (void)l, (void)t; }

static void turn(int64_t sleep_ns)
{
    turns_since_raise++;
    if (sleep_ns > 0) {
        vigil_timer_start(loop, &sleep_timer, CLOCK_MONOTONIC, sleep_ns, 0, 0, on_sleep_timer);
        if (vigil_loop_run(loop, VIGIL_RUN_ONCE) < 0)
            fail("vigil_loop_run");
        vigil_timer_stop(loop, &sleep_timer);
        return;
    }
    if (vigil_loop_run(loop, VIGIL_RUN_NOWAIT) < 0)
        fail("vigil_loop_run");
}

static int count_fds(void)
{
    int n = vt_count_fds();
    if (n < 0)
        fail("/proc/self/fd: %s", strerror(errno));
    return n;
}

/* Still to settle: a connect with a timeout, or a successful connect not yet accepted. */
static bool unsettled(void)
{
    for (int i = 0; i < NCONN; i++) {
        const struct conn *c = &conns[i];
        if (!c->open || c->closing)
            continue;
        if (c->in_flight && (c->timeout || unix_dom || !small_backlog))
            return true;
        if (!c->in_flight && c->result == 0 && c->to_listener && c->lgen == L.gen && L.open &&
            !starts[c->start].accepted)
            return true;
    }
    return false;
}

static bool closing_any(void)
{
    if (L.closing)
        return true;
    for (int i = 0; i < NCONN; i++)
        if (conns[i].closing)
            return true;
    return false;
}

static void report_unsettled(void)
{
    for (int i = 0; i < NCONN; i++) {
        const struct conn *c = &conns[i];
        if (c->open && !c->closing)
            fprintf(stderr,
                    "conn_fuzz: connector %d: in flight %d, timeout %lld ns, result %d, to the listener %d (gen %u of "
                    "%u), accepted %d, started %.1f ms ago\n",
                    i, c->in_flight, (long long)c->timeout, c->result, c->to_listener, c->lgen, L.gen,
                    c->to_listener && starts[c->start].accepted, (double)(now_ns() - c->started) / 1e6);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t cfg = data[0];
    if (getrlimit(RLIMIT_NOFILE, &old_limit) < 0)
        fail("getrlimit");
    int fds_before = count_fds();
    if (!(loop = fuzz_net_loop(cfg, conn_fuzz_backend)))
        fail("vigil_loop_new");
    const char *bk = vigil_loop_backend(loop);
    uring = bk[0] == 'u';
    armed_low = false;
    conn_fuzz_inputs++;
    struct vigil_net_options no;
    vigil_net_options_init(&no);
    no.buf_count = 16;
    no.buf_size = 256;
    if (vigil_net_setup(loop, &no) != 0)
        fail("vigil_net_setup");
    unix_dom = cfg & 4;
    small_backlog = cfg & 8;
    nonblock = cfg & 16;
    memset(conns, 0, sizeof conns);
    memset(&L, 0, sizeof L);
    nstarts = 0;
    limit_low = false;
    turns_since_raise = 2;
    for (int i = 0; i < NACC; i++)
        acc[i] = -1;
    make_nobody();
    listener_open();
    turn(1000); /* the loop's timer machinery is set up before descriptors can run short */

    trace = getenv("CONN_FUZZ_TRACE") != NULL;
    size_t nops = fuzz_nops(size, MAX_OPS);
    for (size_t k = 0; k < nops; k++) {
        const uint8_t *r = data + 1 + 4 * k;
        struct conn *c = &conns[r[1] % NCONN];
        uint8_t b = r[2], cc = r[3];
        if (trace)
            fprintf(stderr, "conn_fuzz: op %zu: %u on connector %d (b %u, c %u); limit %s, listener gen %u %s%s\n", k,
                    r[0] % 16u, r[1] % NCONN, b, cc, limit_low ? "low" : "high", L.gen, L.open ? "open" : "closed",
                    L.accepting ? " accepting" : "");
        switch (r[0] % 16) {
        case 0:
        case 1:
        case 2: op_connect(c, false, b, cc); break;
        case 3: op_connect(c, true, b, cc); break;
        case 4: op_accept_start(); break;
        case 5: op_accept_stop(); break;
        case 6: op_close(c); break;
        case 7:
            if (acc[b % NACC] >= 0) {
                close(acc[b % NACC]);
                acc[b % NACC] = -1;
            }
            break;
        case 8:
        case 9: turn(0); break;
        case 10: turn((int64_t)(b % 8) * 100000); break;
        case 11: set_limit(cc & 1); break;
        case 12: op_listener(cc); break;
        case 13: op_cancel(c); break;
        case 14: op_refused(c, b); break;
        default: usleep((useconds_t)(b % 4) * 50); break;
        }
    }

    /* The end: descriptors back, a listener accepting; everything that must settle does. */
    set_limit(false);
    int64_t t0 = now_ns();
    while (L.closing && now_ns() - t0 < (int64_t)DRAIN_MS * 1000000)
        turn(200000);
    if (!L.open && !L.closing)
        listener_open();
    if (L.open && !L.accepting)
        op_accept_start();
    while (unsettled() && now_ns() - t0 < (int64_t)DRAIN_MS * 1000000)
        turn(500000);
    if (unsettled()) {
        report_unsettled();
        fail("not settled %d ms after the end (%s, %s): a connect with a timeout still in flight, or a connection "
             "that succeeded never accepted",
             DRAIN_MS, bk, unix_dom ? "AF_UNIX" : "TCP");
    }
    /* Then close everything: each request ends once, each close calls back once. */
    for (int i = 0; i < NCONN; i++)
        if (conns[i].open && !conns[i].closing)
            op_close(&conns[i]);
    if (L.open)
        op_listener(1);
    t0 = now_ns();
    while (closing_any() && now_ns() - t0 < (int64_t)DRAIN_MS * 1000000)
        turn(200000);
    if (closing_any())
        fail("a close callback has not come %d ms after the close", DRAIN_MS);
    for (int i = 0; i < NACC; i++)
        if (acc[i] >= 0)
            close(acc[i]);
    if (nobody_fd >= 0)
        close(nobody_fd);
    nobody_fd = -1;
    holders_close();
    if (vigil_loop_free(loop) != 0)
        fail("vigil_loop_free");
    loop = NULL;
    int fds_after = count_fds();
    if (fds_after != fds_before)
        fail("%d descriptors before the input, %d after (%s, %s): one leaked", fds_before, fds_after, bk,
             unix_dom ? "AF_UNIX" : "TCP");
    return 0;
}
