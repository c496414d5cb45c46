/* vigil_net_listen and vigil_net_connect, one round trip per kind of address, on the
 * backend VIGIL_BACKEND names: TCP over IPv4, over IPv6 (where the machine has ::1), a
 * dual-stack IPv6 listener reached over IPv4 and the same with VIGIL_NET_V6ONLY refused,
 * an AF_UNIX path, an abstract AF_UNIX name. For each: the listener is close-on-exec,
 * non-blocking, listening, a stream socket, SO_REUSEADDR on TCP, IPV6_V6ONLY as asked;
 * a client connects through vigil_net_connect (text) or vigil_net_connect_addr, sends
 * "hello", and the accepted side receives it. And the backlog reaches listen(2): an
 * AF_UNIX listener that never accepts takes backlog (+1, the kernel's count) connections,
 * then refuses with EAGAIN. Every fd is closed at the end (/proc/self/fd). */
#include "nt.h"
#include "fds.h"

#include <netinet/in.h>
#include <sys/un.h>

static vigil_sock listener, conn, client;
static vigil_net_req creq, sreq;
static int accepted, connect_res, connect_done, closed;
static char got[16];
static size_t ngot;

static void on_closed(vigil_loop *l, vigil_sock *s)
{
    (void)l, (void)s;
    closed++;
}

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s;
    if (n <= 0)
        return;
    CHECK(ngot + (size_t)n <= sizeof got);
    memcpy(got + ngot, b->data, (size_t)n);
    ngot += (size_t)n;
    vigil_buf_put(l, b);
}

static void on_accept(vigil_loop *l, vigil_sock *ls, int fd)
{
    (void)ls;
    CHECK(fd >= 0);
    CHECK_EQ(vigil_sock_open(l, &conn, fd), 0);
    CHECK_EQ(vigil_sock_recv_start(l, &conn, on_data), 0);
    accepted++;
}

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r;
    CHECK_EQ(res, 5);
}

static void on_connected(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)r;
    connect_res = (int)res;
    connect_done = 1;
    if (res == 0)
        CHECK_EQ(vigil_sock_send(l, &client, &sreq, "hello", 5, on_sent), 0);
}

static int sockopt(int fd, int level, int name)
{
    int v = -1;
    socklen_t vl = sizeof v;
    CHECK_SYS(getsockopt(fd, level, name, &v, &vl));
    return v;
}

static int port_of(int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    CHECK_SYS(getsockname(fd, (struct sockaddr *)&ss, &sl));
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

/* Listens on ltext (flags), checks the listener, connects to ctext ("%d": the port the
 * listener got) and expects connect result want (0: then "hello" goes through). */
static void round_trip(vigil_loop *loop, const char *ltext, uint32_t flags, const char *cfmt, int want, int by_addr)
{
    int fd = vigil_net_listen(ltext, 16, flags);
    if (fd < 0) {
        fprintf(stderr, "vigil_net_listen(%s): %s\n", ltext, strerror(-fd));
        exit(1);
    }
    CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
    CHECK_EQ(sockopt(fd, SOL_SOCKET, SO_ACCEPTCONN), 1);
    CHECK_EQ(sockopt(fd, SOL_SOCKET, SO_TYPE), SOCK_STREAM);
    int family = sockopt(fd, SOL_SOCKET, SO_DOMAIN);
    if (family != AF_UNIX)
        CHECK_EQ(sockopt(fd, SOL_SOCKET, SO_REUSEADDR), 1);
    if (family == AF_INET6) {
        /* On "[::]" the option is as asked; bound to one IPv6 address (not a v4-mapped
         * one) the kernel sets it to 1 itself: no IPv4 connection can reach it anyway. */
        int any = !strncmp(ltext, "[::]", 4);
        CHECK_EQ(sockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY), !any || (flags & VIGIL_NET_V6ONLY) ? 1 : 0);
    }
    char ctext[200];
    snprintf(ctext, sizeof ctext, cfmt, family == AF_UNIX ? 0 : port_of(fd));

    memset(&listener, 0, sizeof listener);
    memset(&conn, 0, sizeof conn);
    memset(&client, 0, sizeof client);
    accepted = connect_done = closed = 0;
    connect_res = 1;
    ngot = 0;
    CHECK_EQ(vigil_sock_open(loop, &listener, fd), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &listener, on_accept), 0);
    if (by_addr) {
        struct sockaddr_storage ss;
        int len = vigil_net_addr_parse(ctext, &ss);
        CHECK(len > 0);
        CHECK_EQ(vigil_net_connect_addr(loop, &client, &creq, (struct sockaddr *)&ss, (socklen_t)len, 5000000000LL,
                                        on_connected), 0);
    } else
        CHECK_EQ(vigil_net_connect(loop, &client, &creq, ctext, 5000000000LL, on_connected), 0);
    CHECK(client.fd >= 0);
    NT_RUN_UNTIL(loop, connect_done, 10000);
    if (connect_res != want) {
        fprintf(stderr, "%s -> %s: connect %d (%s), want %d\n", ltext, ctext, connect_res, strerror(-connect_res),
                want);
        exit(1);
    }
    int closes = 2;
    if (want == 0) {
        NT_RUN_UNTIL(loop, ngot == 5, 10000);
        CHECK(memcmp(got, "hello", 5) == 0);
        CHECK_EQ(accepted, 1);
        CHECK_EQ(vigil_sock_close(loop, &conn, on_closed), 0);
        closes = 3;
    }
    CHECK_EQ(vigil_sock_close(loop, &client, on_closed), 0);
    CHECK_EQ(vigil_sock_close(loop, &listener, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == closes, 10000);
    printf("  %-28s <- %-28s %s\n", ltext, ctext, want ? strerror(-want) : "hello");
}

static int have_v6_loopback(void)
{
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return ok;
}

/* An AF_UNIX listener that never accepts: how many connects get in before EAGAIN. */
static int unix_admitted(const char *text, int backlog)
{
    int lfd = vigil_net_listen(text, backlog, 0);
    CHECK(lfd >= 0);
    struct sockaddr_storage ss;
    int len = vigil_net_addr_parse(text, &ss);
    CHECK(len > 0);
    int fds[64], n = 0;
    for (; n < 64; n++) {
        fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        CHECK_SYS(fds[n]);
        if (connect(fds[n], (struct sockaddr *)&ss, (socklen_t)len) < 0) {
            CHECK_EQ(errno, EAGAIN);
            close(fds[n]);
            break;
        }
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    close(lfd);
    return n;
}

int main(void)
{
    alarm(60);
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    printf("backend %s:\n", vigil_loop_backend(loop));
    round_trip(loop, "127.0.0.1:0", 0, "127.0.0.1:%d", 0, 0);
    round_trip(loop, "127.0.0.1:0", 0, "127.0.0.1:%d", 0, 1);
    if (have_v6_loopback()) {
        round_trip(loop, "[::1]:0", 0, "[::1]:%d", 0, 0);
        round_trip(loop, "[::1]:0", VIGIL_NET_V6ONLY, "[::1]:%d", 0, 1);
        /* Dual stack: an IPv6 listener takes IPv4 unless V6ONLY. */
        round_trip(loop, "[::]:0", 0, "127.0.0.1:%d", 0, 0);
        round_trip(loop, "[::]:0", VIGIL_NET_V6ONLY, "127.0.0.1:%d", -ECONNREFUSED, 0);
    } else
        printf("  IPv6: not tested, this machine has no ::1\n");

    char dir[] = "/tmp/vigil-listen-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[128], text[160];
    snprintf(path, sizeof path, "%s/s", dir);
    round_trip(loop, path, 0, path, 0, 0);
    CHECK_SYS(unlink(path));
    snprintf(text, sizeof text, "unix:%s", path);
    round_trip(loop, text, 0, text, 0, 1);
    CHECK_SYS(unlink(path));
    snprintf(text, sizeof text, "@vigil-listen-%d", (int)getpid());
    round_trip(loop, text, 0, text, 0, 0);
    round_trip(loop, text, 0, text, 0, 1); /* abstract: nothing to remove between */

    /* The backlog asked for is the one the kernel got (AF_UNIX admits backlog + 1). */
    for (int b = 1; b <= 8; b *= 2) {
        int n = unix_admitted(text, b);
        if (n < b || n > b + 1) {
            fprintf(stderr, "backlog %d: %d connections admitted\n", b, n);
            return 1;
        }
    }
    printf("  backlog 1, 2, 4, 8: as asked\n");
    CHECK_SYS(rmdir(dir));
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vt_count_fds(), fds0);
    printf("net listen_connect: pass\n");
    return 0;
}
