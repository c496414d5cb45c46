/* An echo server on the sockets API against a real peer: a forked process opens 16
 * connections with plain blocking sockets and, for 400 rounds, writes a random number of
 * random-sized messages on random connections (pipelined, up to 64 KiB, larger than one
 * pool buffer), reading back and comparing every byte with what it wrote (the oracle).
 * Then it half-closes each connection; the server must see end of stream on each, close
 * them, and give every buffer back. Run on every backend (VIGIL_BACKEND). */
#include "vt.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#define CONNS 16
#define SENDS 4

struct conn {
    vigil_sock sock;
    vigil_net_req send[SENDS];
    int receiving;
};

static int accepted, closed, eofs;
static uint64_t echoed;

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf);

static void on_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    closed++;
    free(s->data);
}

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct conn *c = req->sock->data;
    vigil_buf *b = req->data;
    CHECK(res == (ssize_t)b->len);
    echoed += (uint64_t)res;
    vigil_buf_put(loop, b);
    req->data = NULL;
    if (!c->receiving) {
        CHECK_EQ(vigil_sock_recv_start(loop, &c->sock, on_data), 0);
        c->receiving = 1;
    }
}

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    struct conn *c = s->data;
    if (n == 0) {
        CHECK(buf == NULL);
        eofs++;
        c->receiving = 0;
        CHECK_EQ(vigil_sock_close(loop, s, on_closed), 0);
        return;
    }
    if (n < 0)
        fprintf(stderr, "receive: %s\n", strerror((int)-n));
    CHECK(n > 0 && buf && buf->len == (uint32_t)n);
    vigil_net_req *req = NULL;
    int busy = 0;
    for (int i = 0; i < SENDS; i++) {
        if (!c->send[i].data && !req)
            req = &c->send[i];
        busy += c->send[i].data != NULL;
    }
    CHECK(req != NULL);
    req->data = buf;
    CHECK_EQ(vigil_sock_send(loop, s, req, buf->data, buf->len, on_sent), 0);
    if (busy + 1 == SENDS) {
        CHECK_EQ(vigil_sock_recv_stop(loop, s), 0);
        c->receiving = 0;
    }
}

static void on_accept(vigil_loop *loop, vigil_sock *l, int fd)
{
    (void)l;
    CHECK(fd >= 0);
    int one = 1; /* no Nagle wait behind the peer's delayed ACK */
    CHECK_SYS(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
    struct conn *c = calloc(1, sizeof *c);
    CHECK(c);
    CHECK_EQ(vigil_sock_open(loop, &c->sock, fd), 0);
    c->sock.data = c;
    CHECK_EQ(vigil_sock_recv_start(loop, &c->sock, on_data), 0);
    c->receiving = 1;
    accepted++;
}

static void xfull(int fd, void *p, size_t n, int wr)
{
    char *c = p;
    while (n) {
        ssize_t k = wr ? write(fd, c, n) : read(fd, c, n);
        if (k <= 0) {
            fprintf(stderr, "peer: %s: %s\n", wr ? "write" : "read", k < 0 ? strerror(errno) : "end of stream");
            _exit(2);
        }
        c += k, n -= (size_t)k;
    }
}

static int peer(int port)
{
    int fds[CONNS];
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < CONNS; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fds[i], (struct sockaddr *)&sa, sizeof sa) < 0)
            return 3;
    }
    static char out[8][65536], in[65536];
    unsigned seed = 12345;
    for (int round = 0; round < 400; round++) {
        int c = rand_r(&seed) % CONNS, k = 1 + rand_r(&seed) % 3; /* pipelined messages */
        size_t len[8];
        for (int m = 0; m < k; m++) {
            int kind = rand_r(&seed) % 4;
            len[m] = kind == 0 ? 1 : kind == 1 ? 64 : kind == 2 ? 4096 : 1 + (size_t)rand_r(&seed) % 16000;
            for (size_t j = 0; j < len[m]; j++)
                out[m][j] = (char)rand_r(&seed);
            xfull(fds[c], out[m], len[m], 1);
        }
        for (int m = 0; m < k; m++) {
            xfull(fds[c], in, len[m], 0);
            if (memcmp(in, out[m], len[m]) != 0) {
                fprintf(stderr, "peer: round %d: echo differs\n", round);
                return 4;
            }
        }
    }
    for (int i = 0; i < CONNS; i++) {
        shutdown(fds[i], SHUT_WR);
        char x;
        if (read(fds[i], &x, 1) != 0) /* the server closes after our end of stream */
            return 5;
        close(fds[i]);
    }
    return 0;
}

static int child_status = -1;
static pid_t child;

static void on_child(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w, (void)si;
    int st;
    if (waitpid(child, &st, WNOHANG) == child) {
        child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        vigil_loop_stop(loop);
    }
}

int main(void)
{
    vigil_loop *loop = vt_loop_opts(NULL);
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_SYS(bind(lfd, (struct sockaddr *)&sa, sizeof sa));
    CHECK_SYS(listen(lfd, 64));
    socklen_t sl = sizeof sa;
    CHECK_SYS(getsockname(lfd, (struct sockaddr *)&sa, &sl));
    vigil_sock l = {0};
    CHECK_EQ(vigil_sock_open(loop, &l, lfd), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &l, on_accept), 0);
    vigil_signal sigchld = {0};
    CHECK_EQ(vigil_signal_start(loop, &sigchld, SIGCHLD, on_child), 0);
    child = fork();
    CHECK_SYS(child);
    if (child == 0)
        _exit(peer(ntohs(sa.sin_port)));
    CHECK(vigil_loop_run(loop, VIGIL_RUN_DEFAULT) >= 0);
    CHECK_EQ(child_status, 0);
    /* The server saw every end of stream; its closes complete in the turns after. */
    while (closed < CONNS)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(accepted, CONNS);
    CHECK_EQ(eofs, CONNS);
    CHECK(echoed > 0);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &l, NULL), 0);
    CHECK_EQ(vigil_sock_close(loop, &l, NULL), -EBADF);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("echoed %llu bytes on %s\n", (unsigned long long)echoed, getenv("VIGIL_BACKEND") ? getenv("VIGIL_BACKEND") : "auto");
    return 0;
}
