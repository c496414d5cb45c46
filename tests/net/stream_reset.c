/* A receive stream at a reset: the peer, with bytes it was sent still unread, closes
 * with SO_LINGER {1, 0}; the stream gets -ECONNRESET with buf NULL once, then nothing
 * more. */
#include "nt.h"

static int calls, resets;

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)l, (void)s;
    calls++;
    if (n > 0)
        fprintf(stderr, "unexpected %zd bytes\n", n);
    CHECK_EQ(n, -ECONNRESET);
    CHECK(b == NULL);
    resets++;
}

int main(void)
{
    int p[2];
    vigil_sock s = {0};
    vigil_loop *loop = nt_stream_test(&s, p, on_data);
    nt_run_for(loop, 10); /* the stream waits (armed on io_uring) */
    CHECK_EQ(write(p[1], "unread", 6), 6);
    usleep(10000);
    nt_reset(p[0]);
    NT_RUN_UNTIL(loop, calls == 1, 3000);
    nt_run_for(loop, 30);
    CHECK_EQ(calls, 1);
    CHECK_EQ(resets, 1);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("reset once on %s\n", nt_backend());
    return 0;
}
