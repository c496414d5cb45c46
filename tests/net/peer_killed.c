/* A forked peer reads a little of a 32 MiB send, then is killed (SIGKILL) mid-transfer:
 * the send ends once with -EPIPE or -ECONNRESET, the receive stream on the same socket
 * reports the end (0 or -ECONNRESET) once, and no SIGPIPE is raised (SIGPIPE is left at
 * its default: it would kill this test). */
#include "nt.h"

#define LEN (32u << 20)

static int cbs, ends;
static ssize_t sres, rres;
static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r; cbs++, sres = res; }
static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s;
    if (n > 0) {
        vigil_buf_put(l, b);
        return;
    }
    ends++, rres = n;
}

static int peer_fd, ready[2];
static int peer(void)
{
    static char b[65536];
    size_t got = 0;
    while (got < (1u << 20)) {
        ssize_t k = read(peer_fd, b, sizeof b);
        if (k <= 0)
            return 2;
        got += (size_t)k;
    }
    if (write(ready[1], "r", 1) != 1)
        return 3;
    pause(); /* until killed */
    return 4;
}

int main(void)
{
    alarm(20);
    CHECK(signal(SIGPIPE, SIG_DFL) != SIG_ERR);
    unsigned char *data = malloc(LEN);
    CHECK(data);
    memset(data, 'x', LEN);
    CHECK_SYS(pipe(ready));
    pid_t pid;
    int fd = nt_peer_pair(1, &peer_fd, peer, &pid);
    vigil_loop *loop = vt_loop();
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, fd), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0);
    vigil_net_req r = {0};
    CHECK_EQ(vigil_sock_send(loop, &s, &r, data, LEN, on_sent), 0);
    struct pollfd pf = {.fd = ready[0], .events = POLLIN};
    int64_t end = nt_ms() + 5000;
    while (poll(&pf, 1, 0) == 0) { /* the loop sends until the peer has 1 MiB */
        CHECK(nt_ms() < end);
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    }
    CHECK_EQ(cbs, 0); /* mid-transfer */
    CHECK_SYS(kill(pid, SIGKILL));
    CHECK_EQ(vt_child_exit(pid), -SIGKILL);
    NT_RUN_UNTIL(loop, cbs == 1 && ends == 1, 5000);
    nt_run_for(loop, 20);
    CHECK_EQ(cbs, 1);
    CHECK_EQ(ends, 1);
    if (sres != -EPIPE && sres != -ECONNRESET)
        fprintf(stderr, "send ended with %zd\n", sres);
    CHECK(sres == -EPIPE || sres == -ECONNRESET);
    CHECK(rres == 0 || rres == -ECONNRESET);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(data);
    close(ready[0]), close(ready[1]);
    printf("send %zd, stream %zd, no SIGPIPE on %s\n", sres, rres, nt_backend());
    return 0;
}
