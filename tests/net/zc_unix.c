/* vigil_sock_send_zc on an AF_UNIX stream socket, where the kernel has no zero-copy
 * (io_uring's SEND_ZC fails there with -EOPNOTSUPP): as documented, the bytes go as a
 * copy, so each of three queued sends completes whole once, in order, its release runs
 * once after its callback, and the peer reads every byte in order. Before the fix, on
 * io_uring, each send ended with -EOPNOTSUPP (found by fuzz/net_fuzz.c: its input
 * fuzz/crashes/net/zero-copy-send-on-unix-socket-uring.bin). */
#include "nt.h"

#define NS 3
#define LEN 50000

static unsigned char data[NS * LEN];
static vigil_net_req req[NS];
static int cbs[NS], rels[NS], next_cb;
static ssize_t res_cb[NS];

static void on_release(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)res;
    int k = (int)(r - req);
    CHECK_EQ(cbs[k], 1);
    rels[k]++;
}

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l;
    int k = (int)(r - req);
    CHECK_EQ(rels[k], 0);
    CHECK_EQ(k, next_cb); /* in the order started */
    next_cb++;
    cbs[k]++;
    res_cb[k] = res;
}

int main(void)
{
    alarm(20);
    nt_fill(data, sizeof data, 0);
    int fds[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    CHECK_EQ(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
    vigil_loop *loop = vt_loop();
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, fds[0]), 0);
    for (int k = 0; k < NS; k++)
        CHECK_EQ(vigil_sock_send_zc(loop, &s, &req[k], data + k * LEN, LEN, on_sent, on_release), 0);
    static unsigned char got[NS * LEN];
    size_t have = 0;
    for (int i = 0; i < 5000 && (have < sizeof got || rels[NS - 1] == 0 || next_cb < NS); i++) {
        if (next_cb > 0 && res_cb[next_cb - 1] != LEN)
            break; /* a send failed: checked below */
        ssize_t n = read(fds[1], got + have, sizeof got - have);
        if (n > 0)
            have += (size_t)n;
        nt_run_for(loop, 1);
    }
    for (int k = 0; k < NS; k++) {
        CHECK_EQ(cbs[k], 1);
        CHECK_EQ(res_cb[k], LEN);
        CHECK_EQ(rels[k], 1);
    }
    CHECK_EQ(have, sizeof got);
    CHECK(memcmp(got, data, sizeof got) == 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(fds[1]);
    printf("three zero-copy sends on AF_UNIX sent whole, each released once, on %s\n", nt_backend());
    return 0;
}
