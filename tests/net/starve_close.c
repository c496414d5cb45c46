/* Buffers that come back to the pool because a socket closes wake the sockets that
 * waited for one. A pool of 4 buffers of 64 bytes: socket B receives 256 bytes, holds
 * the first buffer and stops; on io_uring the other three are already received and kept
 * for B (its stash), so the pool is empty and socket A, whose peer then sends 10 bytes,
 * waits for a buffer. Closing B gives the kept three back: A must receive its bytes
 * without any vigil_buf_put (the program still holds B's first buffer). Every backend
 * (on epoll and poll B's later bytes stay in the kernel, so A never waits). */
#include "nt.h"

static vigil_buf *held;
static int b_calls, a_calls;
static unsigned char a_got[64];

static void on_b(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf)
{
    CHECK(res > 0);
    b_calls++;
    held = buf; /* kept: the pool stays empty */
    CHECK_EQ(vigil_sock_recv_stop(loop, s), 0);
}

static void on_a(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf)
{
    (void)s;
    CHECK_EQ(res, 10);
    memcpy(a_got, buf->data, 10);
    a_calls++;
    vigil_buf_put(loop, buf);
}

static int closed;
static void on_closed(vigil_loop *loop, vigil_sock *s) { (void)loop, (void)s; closed = 1; }

int main(void)
{
    alarm(20);
    vigil_loop *loop = nt_loop_pool(4, 64);

    int pb[2], pa[2];
    nt_pair(pb, 0);
    nt_pair(pa, 0);
    vigil_sock b = {0}, a = {0};
    CHECK_EQ(vigil_sock_open(loop, &b, pb[1]), 0);
    CHECK_EQ(vigil_sock_open(loop, &a, pa[1]), 0);

    unsigned char out[256];
    nt_fill(out, sizeof out, 0);
    CHECK_EQ(write(pb[0], out, sizeof out), (ssize_t)sizeof out);
    usleep(5000);
    CHECK_EQ(vigil_sock_recv_start(loop, &b, on_b), 0);
    NT_RUN_UNTIL(loop, b_calls == 1, 3000);

    CHECK_EQ(vigil_sock_recv_start(loop, &a, on_a), 0);
    CHECK_EQ(write(pa[0], out, 10), 10);
    nt_run_for(loop, 20);
    /* On io_uring A now waits for a buffer; elsewhere it may have its bytes already. */
    CHECK_EQ(vigil_sock_close(loop, &b, on_closed), 0);
    NT_RUN_UNTIL(loop, closed && a_calls == 1, 3000);
    CHECK(nt_check(a_got, 10, 0) < 0);
    CHECK_EQ(b_calls, 1);

    vigil_buf_put(loop, held);
    vigil_buf_put(loop, held); /* a second put of one buffer is ignored */
    CHECK_EQ(vigil_net_bufs_lent(loop), 0u);
    CHECK_EQ(vigil_sock_close(loop, &a, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(pa[0]), close(pb[0]);
    printf("a closing socket's kept buffers wake a starved socket, on %s\n", nt_backend());
    return 0;
}
