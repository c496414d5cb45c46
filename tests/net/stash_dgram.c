/* Datagrams a stopped datagram stream already holds come first, one per receive, with
 * their boundaries. A UDP socket gets six datagrams before its first turn (sizes 10,
 * 20, 0, 30, 40, 50; the bytes say which one); the datagram stream's first callback
 * stops it (on io_uring the others are then already received and kept). Then receives
 * into the program's buffer: each must return the next datagram whole and alone (the
 * empty one as 0), in order, then one cut to a 16-byte buffer (as recv(2) cuts it), and
 * a datagram sent afterwards comes after them. Then three more datagrams, a stream
 * stopped by its first callback and started again: the kept datagrams come with their
 * sender's address too (io_uring keeps it in the buffer). Every backend. */
#include "nt.h"

static const int sizes[] = {10, 20, 0, 30, 40, 50};
#define NDG 6
#define LATE_SIZE 25

static int first_len = -1, stream_calls, own_calls;
static ssize_t own_res;
static unsigned char own_buf[1000];

static void fill(unsigned char *p, int n, int which)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(which * 16 + i);
}

static void on_dgram(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf, const struct sockaddr *from,
                     socklen_t fl)
{
    (void)from, (void)fl;
    CHECK(res >= 0 && buf);
    stream_calls++;
    first_len = (int)res;
    unsigned char want[64];
    fill(want, (int)res, 0);
    CHECK(memcmp(buf->data, want, (size_t)res) == 0);
    vigil_buf_put(loop, buf);
    CHECK_EQ(vigil_sock_recv_stop(loop, s), 0);
}

static struct sockaddr_in tx_addr;
static int again_calls;

static void on_again(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf, const struct sockaddr *from,
                     socklen_t fl)
{
    (void)s;
    CHECK(res > 0 && buf);
    CHECK(from != NULL);
    CHECK(fl >= (socklen_t)sizeof(struct sockaddr_in));
    const struct sockaddr_in *sin = (const struct sockaddr_in *)from;
    CHECK_EQ(sin->sin_family, AF_INET);
    CHECK_EQ(sin->sin_port, tx_addr.sin_port);
    CHECK_EQ(sin->sin_addr.s_addr, tx_addr.sin_addr.s_addr);
    unsigned char want[64];
    fill(want, (int)res, 10 + again_calls);
    CHECK_EQ(res, 11 + again_calls);
    CHECK(memcmp(buf->data, want, (size_t)res) == 0);
    again_calls++;
    vigil_buf_put(loop, buf);
}

static void on_first(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf, const struct sockaddr *from,
                     socklen_t fl)
{
    on_again(loop, s, res, buf, from, fl);
    CHECK_EQ(vigil_sock_recv_stop(loop, s), 0);
}

static void on_own(vigil_loop *loop, vigil_net_req *r, ssize_t res)
{
    (void)loop, (void)r;
    own_calls++;
    own_res = res;
}

static ssize_t own_recv(vigil_loop *loop, vigil_sock *s, vigil_net_req *r, size_t len)
{
    int before = own_calls;
    CHECK_EQ(vigil_sock_recv(loop, s, r, own_buf, len, on_own), 0);
    NT_RUN_UNTIL(loop, own_calls == before + 1, 3000);
    return own_res;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = nt_loop_pool(16, 256);

    int rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(rx);
    CHECK_SYS(tx);
    struct sockaddr_in sa = nt_loopback(0);
    CHECK_SYS(bind(rx, (struct sockaddr *)&sa, sizeof sa));
    sa = nt_loopback(nt_port_of(rx));
    CHECK_SYS(connect(tx, (struct sockaddr *)&sa, sizeof sa));
    vigil_sock s = {0};
    vigil_net_req r = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, rx), 0);

    unsigned char out[64];
    for (int k = 0; k < NDG; k++) {
        fill(out, sizes[k], k);
        CHECK_EQ(send(tx, out, (size_t)sizes[k], 0), sizes[k]);
    }
    usleep(5000);
    CHECK_EQ(vigil_sock_recvfrom_start(loop, &s, on_dgram), 0);
    NT_RUN_UNTIL(loop, stream_calls == 1, 3000);
    CHECK_EQ(first_len, sizes[0]);

    /* The late datagram is sent now: it must come after the kept ones. */
    fill(out, LATE_SIZE, NDG);
    CHECK_EQ(send(tx, out, LATE_SIZE, 0), LATE_SIZE);
    usleep(2000);
    for (int k = 1; k < NDG; k++) {
        size_t len = k == NDG - 1 ? 16 : sizeof own_buf; /* the last kept one cut to 16 bytes */
        ssize_t res = own_recv(loop, &s, &r, len);
        ssize_t want = sizes[k] < (int)len ? sizes[k] : (int)len;
        if (res != want)
            fprintf(stderr, "datagram %d: got %zd bytes, expected %zd\n", k, res, want);
        CHECK_EQ(res, want);
        unsigned char exp[64];
        fill(exp, (int)want, k);
        CHECK(memcmp(own_buf, exp, (size_t)want) == 0);
    }
    ssize_t res = own_recv(loop, &s, &r, sizeof own_buf);
    CHECK_EQ(res, LATE_SIZE);
    unsigned char exp[64];
    fill(exp, LATE_SIZE, NDG);
    CHECK(memcmp(own_buf, exp, LATE_SIZE) == 0);

    socklen_t tl = sizeof tx_addr;
    CHECK_SYS(getsockname(tx, (struct sockaddr *)&tx_addr, &tl));
    for (int k = 0; k < 3; k++) {
        fill(out, 11 + k, 10 + k);
        CHECK_EQ(send(tx, out, (size_t)(11 + k), 0), 11 + k);
    }
    usleep(5000);
    CHECK_EQ(vigil_sock_recvfrom_start(loop, &s, on_first), 0);
    NT_RUN_UNTIL(loop, again_calls == 1, 3000);
    CHECK_EQ(vigil_sock_recvfrom_start(loop, &s, on_again), 0);
    NT_RUN_UNTIL(loop, again_calls == 3, 3000);
    CHECK_EQ(vigil_sock_recv_stop(loop, &s), 0);

    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    nt_run_for(loop, 5);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0u);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(tx);
    printf("a stopped datagram stream's kept datagrams come first, one per receive, on %s\n", nt_backend());
    return 0;
}
