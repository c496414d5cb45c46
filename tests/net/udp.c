/* Datagrams: vigil_sock_recvfrom_start on a UDP socket; a forked peer, bound to its own
 * address, sends 200 datagrams of random sizes (every tenth empty), each waiting for
 * the reply: every one arrives whole (size and bytes), with the peer's address as
 * sender, and the vigil_sock_sendto reply (its number) reaches the peer. Then a
 * datagram larger than a pool buffer (6000 bytes, buffers of 4096): it is reported
 * with -EMSGSIZE (buf NULL, the sender's address given) and the stream goes on: the
 * next datagram arrives as usual. */
#include "nt.h"

#define N 200
#define BIGDG 6000

static int child_fd, parent_port;
static struct sockaddr_in peer_addr;
static int count, truncs, done;
static vigil_net_req rep[16];
static int rep_calls;
static uint32_t rep_no[16];

static size_t size_of(int i, unsigned *seed) { return i % 10 == 0 ? 0 : 1 + (size_t)rand_r(seed) % 1400; }

static int peer(void)
{
    struct sockaddr_in to = nt_loopback(parent_port);
    static unsigned char out[BIGDG];
    unsigned seed = 7;
    for (int i = 0; i <= N + 1; i++) {
        size_t len = i < N ? size_of(i, &seed) : i == N ? BIGDG : 3;
        nt_fill(out, len, (uint64_t)i * 4096);
        if (sendto(child_fd, out, len, 0, (struct sockaddr *)&to, sizeof to) != (ssize_t)len)
            return 2;
        uint32_t no;
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        if (recvfrom(child_fd, &no, sizeof no, 0, (struct sockaddr *)&from, &fl) != sizeof no)
            return 3;
        if (no != (uint32_t)i || from.sin_port != to.sin_port)
            return 4;
    }
    return 0;
}

static void on_rep(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r;
    CHECK_EQ(res, 4);
    rep_calls++;
}

static void on_dgram(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b, const struct sockaddr *from,
                     socklen_t fl)
{
    static unsigned seed = 7;
    int i = count++;
    CHECK(from && fl == sizeof peer_addr);
    const struct sockaddr_in *f = (const struct sockaddr_in *)from;
    CHECK(f->sin_family == AF_INET && f->sin_port == peer_addr.sin_port &&
          f->sin_addr.s_addr == peer_addr.sin_addr.s_addr);
    if (i == N) {
        if (n != -EMSGSIZE)
            fprintf(stderr, "a %d-byte datagram into %d-byte buffers: res %zd\n", BIGDG, 4096, n);
        CHECK_EQ(n, -EMSGSIZE);
        CHECK(b == NULL);
        truncs++;
    } else {
        size_t want = i < N ? size_of(i, &seed) : 3;
        CHECK_EQ(n, (ssize_t)want);
        CHECK(b != NULL && b->len == (uint32_t)n);
        CHECK(nt_check((unsigned char *)b->data, (size_t)n, (uint64_t)i * 4096) < 0);
        vigil_buf_put(l, b);
    }
    vigil_net_req *r = &rep[i % 16];
    CHECK(i < 16 || rep[i % 16].result == 4); /* the reply 16 back has completed */
    rep_no[i % 16] = (uint32_t)i;
    CHECK_EQ(vigil_sock_sendto(l, s, r, &rep_no[i % 16], 4, from, fl, on_rep), 0);
    if (i == N + 1)
        done = 1;
}

int main(void)
{
    alarm(20);
    int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), c = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(u);
    CHECK_SYS(c);
    struct sockaddr_in sa = nt_loopback(0);
    CHECK_SYS(bind(u, (struct sockaddr *)&sa, sizeof sa));
    CHECK_SYS(bind(c, (struct sockaddr *)&sa, sizeof sa));
    parent_port = nt_port_of(u);
    peer_addr = nt_loopback(nt_port_of(c));
    child_fd = c;
    pid_t pid = nt_spawn(peer);
    close(c);
    vigil_loop *loop = vt_loop();
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, u), 0);
    CHECK_EQ(vigil_sock_recvfrom_start(loop, &s, on_dgram), 0);
    NT_RUN_UNTIL(loop, done && rep_calls == N + 2, 10000);
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(count, N + 2);
    CHECK_EQ(truncs, 1);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("%d datagrams and replies, the oversized one reported, on %s\n", count, nt_backend());
    return 0;
}
