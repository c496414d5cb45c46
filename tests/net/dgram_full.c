/* Datagram sends are all or nothing, also when the receiver's queue is full. 2000
 * datagrams of random sizes (1..4000 bytes; each one's bytes are a function of its
 * sequence number, which its first 4 bytes hold when it has 4) are queued as
 * requests at once, each its own vigil_net_req, while the receiver does not read; the
 * loop runs a little (the sender hits the full queue), then the receiver (a plain fd,
 * read with recv(2) from an io watcher: the oracle is the kernel's view) drains. Every
 * send's callback must run exactly once with the datagram's whole length, and:
 *   pair      socketpair(AF_UNIX, SOCK_DGRAM), vigil_sock_sendto without an address;
 *   bound     a bound AF_UNIX receiver, an unconnected non-blocking sender using
 *             vigil_sock_sendto with the address (the receiver's queue holds
 *             net.unix.max_dgram_qlen datagrams: the 11th send waits);
 *   connected the same receiver, a connected blocking sender using vigil_sock_send;
 *   udp       loopback UDP, the receiver's SO_RCVBUF small;
 *   close     the connected case, the sender closed while it waits for room: each
 *             request ends once, sent whole or -ECANCELED.
 * AF_UNIX is reliable: every datagram arrives exactly once, whole, in order. UDP may
 * drop, but what arrives must be whole, in order, never empty or twice.
 * On io_uring (kernel 6.18) the bound and connected cases sent an empty datagram for
 * each send that found the queue full, and its callback said 0 (src/net/uring.c,
 * send_wait). Every backend. */
#include "nt.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/un.h>

#define N 2000
#define MAXSZ 4000

static uint32_t size_of[N];
static int calls[N];
static ssize_t results[N];
static vigil_net_req reqs[N];
static unsigned char bufs[N][MAXSZ];
static int next_rx, received, bad;
static int reliable, closing;

static unsigned char byte_of(uint32_t seq, uint32_t i)
{
    return nt_pat(((uint64_t)seq << 20) + i);
}

static void make(uint32_t seq)
{
    unsigned char *p = bufs[seq];
    for (uint32_t i = 0; i < size_of[seq]; i++)
        p[i] = byte_of(seq, i);
    if (size_of[seq] >= 4)
        memcpy(p, &seq, 4);
}

static bool matches(uint32_t seq, const unsigned char *p, size_t len)
{
    return len == size_of[seq] && memcmp(p, bufs[seq], len) == 0;
}

static void on_sent(vigil_loop *loop, vigil_net_req *r, ssize_t res)
{
    (void)loop;
    size_t i = (size_t)(r - reqs);
    CHECK(i < N);
    calls[i]++;
    results[i] = res;
    if (calls[i] != 1 || (res != (ssize_t)size_of[i] && !(closing && res == -ECANCELED))) {
        fprintf(stderr, "send %zu: call %d, result %zd, want %u\n", i, calls[i], res, size_of[i]);
        bad++;
    }
}

static void on_readable(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)loop;
    CHECK(ev > 0);
    static unsigned char in[MAXSZ + 16];
    for (;;) {
        ssize_t k = recv(w->fd, in, sizeof in, MSG_DONTWAIT);
        if (k < 0) {
            CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
            return;
        }
        received++;
        int j = next_rx;
        if (reliable) {
            if (j >= N || !matches((uint32_t)j, in, (size_t)k)) {
                fprintf(stderr, "datagram %d: %zd bytes, want %u (empty, cut, lost or out of order)\n", j, k,
                        j < N ? size_of[j] : 0);
                bad++;
            }
        } else {
            while (j < N && !matches((uint32_t)j, in, (size_t)k))
                j++;
            if (j == N) {
                fprintf(stderr, "udp datagram after %d: %zd bytes match no later datagram\n", next_rx, k);
                bad++;
                j = next_rx;
            }
        }
        next_rx = j + 1;
        if (bad > 20)
            exit(1);
    }
}

static bool all_called(void)
{
    for (int i = 0; i < N; i++)
        if (!calls[i])
            return false;
    return true;
}

/* close: the sender waits for room (on io_uring its POLLOUT op is in the kernel) and is
 * closed. Every request ends once: sent whole (what the receiver then has, in order) or
 * -ECANCELED (nothing of it sent), the sent ones first. */
static void close_case(vigil_loop *loop, vigil_sock *s, int rx)
{
    closing = 1;
    CHECK_EQ(vigil_sock_close(loop, s, NULL), 0);
    NT_RUN_UNTIL(loop, all_called(), 3000);
    nt_run_for(loop, 5);
    int sent = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ(calls[i], 1);
        if (results[i] == (ssize_t)size_of[i]) {
            CHECK_EQ(sent, i); /* no hole before a sent one */
            sent++;
        } else {
            CHECK_EQ(results[i], -ECANCELED);
        }
    }
    vigil_io w = {.fd = rx};
    on_readable(loop, &w, VIGIL_READ);
    fprintf(stderr, "close (%s): %d sent, %d received, %d faults\n", nt_backend(), sent, received, bad);
    CHECK_EQ(bad, 0);
    CHECK_EQ(received, sent);
    CHECK(sent > 0 && sent < N);
    close(rx);
    CHECK_EQ(vigil_loop_free(loop), 0);
}

enum { PAIR, BOUND, CONNECTED, UDP, CLOSE };
static const char *const names[] = {"pair", "bound", "connected", "udp", "close"};

static void run_case(int kind)
{
    vigil_loop *loop = vt_loop();
    int tx = -1, rx = -1;
    struct sockaddr_storage to;
    socklen_t tolen = 0;
    if (kind == PAIR) {
        int sv[2];
        CHECK_SYS(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
        tx = sv[0], rx = sv[1];
    } else if (kind == BOUND || kind == CONNECTED || kind == CLOSE) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "vigil-dgram-full-%d-%d", (int)getpid(), kind);
        tolen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
        rx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK_SYS(rx);
        CHECK_SYS(bind(rx, (struct sockaddr *)&a, tolen));
        tx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | (kind == BOUND ? SOCK_NONBLOCK : 0), 0);
        CHECK_SYS(tx);
        if (kind != BOUND)
            CHECK_SYS(connect(tx, (struct sockaddr *)&a, tolen));
        memcpy(&to, &a, tolen);
    } else {
        rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK_SYS(rx);
        CHECK_SYS(tx);
        int small = 16384;
        CHECK_SYS(setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof small));
        struct sockaddr_in sa = nt_loopback(0);
        CHECK_SYS(bind(rx, (struct sockaddr *)&sa, sizeof sa));
        sa = nt_loopback(nt_port_of(rx));
        memcpy(&to, &sa, sizeof sa);
        tolen = sizeof sa;
    }
    reliable = kind != UDP;
    memset(calls, 0, sizeof calls);
    next_rx = received = bad = 0;

    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, tx), 0);
    for (int i = 0; i < N; i++) {
        if (kind == CONNECTED || kind == CLOSE)
            CHECK_EQ(vigil_sock_send(loop, &s, &reqs[i], bufs[i], size_of[i], on_sent), 0);
        else
            CHECK_EQ(vigil_sock_sendto(loop, &s, &reqs[i], bufs[i], size_of[i],
                                       kind == PAIR ? NULL : (struct sockaddr *)&to, kind == PAIR ? 0 : tolen,
                                       on_sent),
                     0);
    }
    /* The sender fills the receiver's queue and waits. */
    for (int t = 0; t < 20; t++)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    CHECK(!reliable || !all_called()); /* UDP never waits: the kernel drops instead */
    if (kind == CLOSE) {
        close_case(loop, &s, rx);
        return;
    }

    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, rx, VIGIL_READ, on_readable), 0);
    NT_RUN_UNTIL(loop, all_called() && (!reliable || next_rx >= N || bad), 8000);
    on_readable(loop, &w, VIGIL_READ); /* UDP: what is still queued */
    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    nt_run_for(loop, 5); /* a callback running twice would run here */
    fprintf(stderr, "%s (%s): %d of %d datagrams received, %d faults\n", names[kind], nt_backend(), received, N,
            bad);
    CHECK_EQ(bad, 0);
    for (int i = 0; i < N; i++)
        CHECK_EQ(calls[i], 1);
    if (reliable)
        CHECK_EQ(received, N);
    CHECK(received > 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    nt_run_for(loop, 5);
    close(rx);
    CHECK_EQ(vigil_loop_free(loop), 0);
}

int main(void)
{
    alarm(60);
    uint64_t x = 0x243F6A8885A308D3ull;
    for (uint32_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_of[i] = 1 + (uint32_t)((x >> 33) % MAXSZ);
        make(i);
    }
    for (int k = PAIR; k <= CLOSE; k++)
        run_case(k);
    return 0;
}
