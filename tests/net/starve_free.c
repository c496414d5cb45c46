/* A socket closed and freed while it waited for a pool buffer: a pool of 2 buffers,
 * both held by the program (socket A's data), socket B's peer sends, so B waits for a
 * buffer; B is closed and its struct freed in its close callback; then A's buffers come
 * back. Before the fix B stayed on the loop's list of waiting sockets and the put
 * walked freed memory (ASan: heap-use-after-free); the list was also a stack, so the
 * last socket to wait was served first. Every backend. */
#include "nt.h"

static vigil_buf *held[2];
static int nheld, b_closed, a_calls;

static void on_a(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)l, (void)s;
    CHECK(n > 0);
    a_calls++;
    CHECK(nheld < 2);
    held[nheld++] = b;
}

static void on_b(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s, (void)n;
    vigil_buf_put(l, b);
}

static void on_b_closed(vigil_loop *l, vigil_sock *s)
{
    (void)l;
    free(s);
    b_closed++;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    struct vigil_net_options o;
    vigil_net_options_init(&o);
    o.buf_count = 2;
    o.buf_size = 64;
    CHECK_EQ(vigil_net_setup(loop, &o), 0);
    int pa[2], pb[2];
    nt_pair(pa, 0);
    nt_pair(pb, 0);
    vigil_sock a = {0}, *b = calloc(1, sizeof *b);
    CHECK_EQ(vigil_sock_open(loop, &a, pa[1]), 0);
    CHECK_EQ(vigil_sock_open(loop, b, pb[1]), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &a, on_a), 0);
    static char blk[128];
    CHECK_EQ(write(pa[0], blk, sizeof blk), (ssize_t)sizeof blk);
    NT_RUN_UNTIL(loop, nheld == 2, 3000);
    CHECK_EQ(vigil_sock_recv_start(loop, b, on_b), 0);
    CHECK_EQ(write(pb[0], "x", 1), 1);
    nt_run_for(loop, 20); /* B waits for a buffer */
    CHECK_EQ(vigil_sock_close(loop, b, on_b_closed), 0);
    NT_RUN_UNTIL(loop, b_closed, 3000);
    vigil_buf_put(loop, held[0]);
    vigil_buf_put(loop, held[1]);
    nt_run_for(loop, 10);
    struct vigil_net_pool_stats st;
    CHECK_EQ(vigil_net_pool_stats_get(loop, &st), 0);
    CHECK_EQ(st.free + st.in_ring, 2);
    CHECK_EQ(vigil_sock_close(loop, &a, NULL), 0);
    nt_run_for(loop, 10);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(pa[0]), close(pb[0]);
    printf("a waiting socket freed after its close: no dangling waiter on %s\n", nt_backend());
    return 0;
}
