/* VIGIL_NET_REUSEPORT: two listeners on one TCP address, the kernel spreading the
 * connections between them; a third listener without the flag is refused (-EADDRINUSE),
 * as is a second one when the first did not ask. 64 connections from the test (plain
 * blocking connects) are all accepted, by both listeners, through vigil on the backend
 * VIGIL_BACKEND names. (The kernel hashes each connection's addresses and ports to pick
 * a listener: that 64 distinct source ports all land on one of two is a 2^-63 event.) */
#include "nt.h"
#include "fds.h"

static vigil_sock ls[2];
static int accepted[2];

static void on_accept(vigil_loop *l, vigil_sock *s, int fd)
{
    (void)l;
    CHECK(fd >= 0);
    accepted[s == &ls[1]]++;
    close(fd);
}

static int reuseport_of(int fd)
{
    int v = -1;
    socklen_t vl = sizeof v;
    CHECK_SYS(getsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &v, &vl));
    return v;
}

int main(void)
{
    alarm(60);
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    int a = vigil_net_listen("127.0.0.1:0", 128, VIGIL_NET_REUSEPORT);
    CHECK(a >= 0);
    CHECK_EQ(reuseport_of(a), 1);
    char text[64];
    snprintf(text, sizeof text, "127.0.0.1:%d", nt_port_of(a));
    int b = vigil_net_listen(text, 128, VIGIL_NET_REUSEPORT);
    if (b < 0) {
        fprintf(stderr, "second listener on %s: %s\n", text, strerror(-b));
        return 1;
    }
    CHECK_EQ(vigil_net_listen(text, 128, 0), -EADDRINUSE);

    /* Without the flag on the first, a second is refused even with it. */
    int c = vigil_net_listen("127.0.0.1:0", 128, 0);
    CHECK(c >= 0);
    char text2[64];
    snprintf(text2, sizeof text2, "127.0.0.1:%d", nt_port_of(c));
    CHECK_EQ(vigil_net_listen(text2, 128, VIGIL_NET_REUSEPORT), -EADDRINUSE);
    close(c);

    CHECK_EQ(vigil_sock_open(loop, &ls[0], a), 0);
    CHECK_EQ(vigil_sock_open(loop, &ls[1], b), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &ls[0], on_accept), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &ls[1], on_accept), 0);
    struct sockaddr_storage ss;
    int len = vigil_net_addr_parse(text, &ss);
    CHECK(len > 0);
    int cl[64];
    for (int i = 0; i < 64; i++) {
        cl[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK_SYS(cl[i]);
        CHECK_SYS(connect(cl[i], (struct sockaddr *)&ss, (socklen_t)len));
    }
    NT_RUN_UNTIL(loop, accepted[0] + accepted[1] == 64, 10000);
    printf("reuseport on %s (%s): %d + %d connections\n", text, vigil_loop_backend(loop), accepted[0], accepted[1]);
    CHECK(accepted[0] > 0 && accepted[1] > 0);
    for (int i = 0; i < 64; i++)
        close(cl[i]);
    CHECK_EQ(vigil_loop_free(loop), 0); /* closes both listeners */
    CHECK_EQ(vt_count_fds(), fds0);
    printf("net listen_reuseport: pass\n");
    return 0;
}
