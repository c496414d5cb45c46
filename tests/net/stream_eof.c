/* A receive stream at an orderly close: the bytes sent, then res 0 with buf NULL once,
 * then nothing more; the stream has stopped (a new recv_start is allowed). */
#include "nt.h"

static int data_calls, eofs, after;
static unsigned char got[64];
static size_t ngot;

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s;
    if (eofs)
        after++;
    if (n == 0) {
        CHECK(b == NULL);
        eofs++;
        return;
    }
    CHECK(n > 0 && b && b->len == (uint32_t)n && ngot + (size_t)n <= sizeof got);
    memcpy(got + ngot, b->data, (size_t)n);
    ngot += (size_t)n;
    data_calls++;
    vigil_buf_put(l, b);
}

int main(void)
{
    int p[2];
    vigil_sock s = {0};
    vigil_loop *loop = nt_stream_test(&s, p, on_data);
    unsigned char out[40];
    nt_fill(out, sizeof out, 0);
    CHECK_EQ(write(p[0], out, sizeof out), (ssize_t)sizeof out);
    CHECK_SYS(shutdown(p[0], SHUT_WR));
    NT_RUN_UNTIL(loop, eofs == 1, 3000);
    nt_run_for(loop, 30);
    CHECK_EQ(eofs, 1);
    CHECK_EQ(after, 0);
    CHECK_EQ(ngot, sizeof out);
    CHECK(nt_check(got, ngot, 0) < 0);
    CHECK(data_calls >= 1);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0); /* stopped: may start again */
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    printf("end of stream once on %s\n", nt_backend());
    return 0;
}
