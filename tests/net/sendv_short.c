/* Short sends continued inside vigil: a vectored send of about 8 MiB in 150 iovecs of
 * odd sizes (one empty, each in its own place in memory), then one 16 MiB
 * vigil_sock_send, to a forked peer with small socket buffers that reads slowly in 4
 * KiB chunks. Each callback gets its full length once; the peer checks every byte
 * against the pattern and the total. */
#include "nt.h"

#define NIOV 150
#define BIG (16u << 20)

static int vcalls, scalls;
static ssize_t vres, sres;
static void on_v(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r; vcalls++, vres = res; }
static void on_s(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r;
    CHECK_EQ(vcalls, 1); /* in start order */
    scalls++, sres = res;
}

static int peer_fd;
static uint64_t want;
static int peer(void) { return nt_read_check(peer_fd, want, 4096, 200); }

int main(void)
{
    alarm(30);
    static struct iovec iov[NIOV];
    size_t total = 0;
    for (int i = 0; i < NIOV; i++) {
        iov[i].iov_len = i == 75 ? 0 : 1 + ((size_t)i * 7919u) % 110000;
        total += iov[i].iov_len;
    }
    unsigned char *mem = malloc(total + NIOV * 16), *big = malloc(BIG);
    CHECK(mem && big);
    memset(mem, 0xEE, total + NIOV * 16);
    size_t off = 0;
    for (int i = 0; i < NIOV; i++) { /* 16 stray bytes between pieces */
        iov[i].iov_base = mem + off + (size_t)i * 16;
        nt_fill(iov[i].iov_base, iov[i].iov_len, off);
        off += iov[i].iov_len;
    }
    nt_fill(big, BIG, total);
    want = total + BIG;

    pid_t pid;
    int fd = nt_peer_pair(1, &peer_fd, peer, &pid);

    vigil_loop *loop = vt_loop();
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, fd), 0);
    vigil_net_req rv = {0}, rs = {0};
    CHECK_EQ(vigil_sock_sendv(loop, &s, &rv, iov, NIOV, on_v), 0);
    CHECK_EQ(vigil_sock_send(loop, &s, &rs, big, BIG, on_s), 0);
    NT_RUN_UNTIL(loop, scalls == 1, 20000);
    CHECK_EQ(vcalls, 1);
    CHECK_EQ(vres, (ssize_t)total);
    CHECK_EQ(sres, (ssize_t)BIG);
    CHECK_EQ(vigil_sock_shutdown(loop, &s, SHUT_WR), 0);
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(mem), free(big);
    printf("%zu + %u bytes sent whole on %s\n", total, BIG, nt_backend());
    return 0;
}
