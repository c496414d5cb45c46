/* vigil_sock_connect: to a listener (0), to a port bound but not listening
 * (-ECONNREFUSED), and with a 200 ms timeout to a listener whose accept queue is full
 * (the kernel drops the SYN: checked first with a probe, else a skip) (-ETIMEDOUT,
 * not before 200 ms). Each callback once. */
#include "nt.h"

static int calls, closed;
static void on_closed(vigil_loop *l, vigil_sock *s) { (void)l, (void)s; closed++; }
static ssize_t last;
static void on_conn(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r; calls++, last = res; }

static void one(vigil_loop *loop, int port, int64_t timeout_ns, ssize_t want)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(fd);
    vigil_sock s = {0};
    vigil_net_req r = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, fd), 0);
    struct sockaddr_in sa = nt_loopback(port);
    int before = calls;
    int64_t t0 = nt_ms();
    CHECK_EQ(vigil_sock_connect(loop, &s, &r, (struct sockaddr *)&sa, sizeof sa, timeout_ns, on_conn), 0);
    CHECK_EQ(vigil_sock_connect(loop, &s, &r, (struct sockaddr *)&sa, sizeof sa, timeout_ns, on_conn), -EBUSY);
    CHECK_EQ(calls, before);
    NT_RUN_UNTIL(loop, calls == before + 1, 5000);
    int64_t took = nt_ms() - t0;
    if (last != want)
        fprintf(stderr, "connect: %zd (%s), want %zd\n", last, strerror((int)-last), want);
    CHECK_EQ(last, want);
    if (timeout_ns)
        CHECK(took >= timeout_ns / 1000000 - 1);
    nt_run_for(loop, 10);
    CHECK_EQ(calls, before + 1);
    int c0 = closed;
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == c0 + 1, 2000); /* s is about to go */
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    int port;
    int l = nt_listener(4, 0, &port);
    one(loop, port, 0, 0);

    int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(b);
    struct sockaddr_in sa = nt_loopback(0);
    CHECK_SYS(bind(b, (struct sockaddr *)&sa, sizeof sa));
    one(loop, nt_port_of(b), 0, -ECONNREFUSED);

    int fills[8], nfill, fport;
    int f = nt_full_listener(&fport, fills, &nfill);
    one(loop, fport, 200 * 1000000LL, -ETIMEDOUT);

    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < nfill; i++)
        close(fills[i]);
    close(f), close(b), close(l);
    printf("connect, refused, timed out on %s\n", nt_backend());
    return 0;
}
