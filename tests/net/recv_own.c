/* vigil_sock_recv into the caller's buffer: it gets what has arrived (100 bytes into
 * a 4096-byte buffer), then a part when the buffer is smaller than what is there, then
 * 0 at end of stream; on a second connection whose peer closes with SO_LINGER {1, 0}
 * while data it was sent lies unread, -ECONNRESET. Each callback once. */
#include "nt.h"

static int calls;
static ssize_t last;
static void on_recv(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r; calls++, last = res; }

static void recv_one(vigil_loop *loop, vigil_sock *s, vigil_net_req *r, void *buf, size_t len)
{
    int before = calls;
    CHECK_EQ(vigil_sock_recv(loop, s, r, buf, len, on_recv), 0);
    CHECK_EQ(calls, before);
    NT_RUN_UNTIL(loop, calls == before + 1, 3000);
    CHECK_EQ(r->result, last);
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    unsigned char out[300], in[4096];
    nt_fill(out, sizeof out, 0);
    int p[2];
    nt_pair(p, 0);
    vigil_sock s = {0};
    vigil_net_req r = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, p[1]), 0);

    CHECK_EQ(write(p[0], out, 100), 100);
    recv_one(loop, &s, &r, in, sizeof in);
    CHECK_EQ(last, 100);
    CHECK(nt_check(in, 100, 0) < 0);

    CHECK_EQ(write(p[0], out + 100, 200), 200);
    usleep(10000);
    recv_one(loop, &s, &r, in, 50); /* less than is there */
    CHECK_EQ(last, 50);
    CHECK(nt_check(in, 50, 100) < 0);
    recv_one(loop, &s, &r, in, sizeof in);
    CHECK_EQ(last, 150);
    CHECK(nt_check(in, 150, 150) < 0);

    CHECK_SYS(shutdown(p[0], SHUT_WR));
    recv_one(loop, &s, &r, in, sizeof in);
    CHECK_EQ(last, 0);

    /* A reset: the peer has unread data and closes with linger 0. */
    int q[2];
    nt_pair(q, 0);
    vigil_sock t = {0};
    CHECK_EQ(vigil_sock_open(loop, &t, q[1]), 0);
    CHECK_EQ(write(q[1], "unread", 6), 6);
    usleep(10000);
    nt_reset(q[0]);
    recv_one(loop, &t, &r, in, sizeof in);
    CHECK_EQ(last, -ECONNRESET);

    nt_run_for(loop, 20);
    CHECK_EQ(calls, 5);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_sock_close(loop, &t, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    printf("own-buffer receives as documented on %s\n", nt_backend());
    return 0;
}
