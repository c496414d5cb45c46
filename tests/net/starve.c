/* A pool of 4 buffers of 256 bytes, all held by the program while the peer sends 64
 * KiB: receiving stops with nothing lost (the bytes wait in the kernel), no fifth
 * buffer is lent, and giving the buffers back one at a time brings the rest, each put
 * at most one more buffer, every byte in order (compared with what was sent). */
#include "nt.h"

#define TOTAL 65536

static vigil_buf *held[4];
static int nheld, calls;
static unsigned char got[TOTAL];
static size_t ngot;

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)l, (void)s;
    CHECK(n > 0 && n <= 256);
    CHECK(nheld < 4);
    CHECK((size_t)n + ngot <= TOTAL);
    memcpy(got + ngot, b->data, (size_t)n);
    ngot += (size_t)n;
    held[nheld++] = b;
    calls++;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = nt_loop_pool(4, 256);
    int p[2];
    vigil_sock s = {0};
    nt_receiving_pair(loop, &s, p, on_data);
    static unsigned char out[TOTAL];
    nt_fill(out, TOTAL, 0);
    CHECK_EQ(write(p[0], out, TOTAL), TOTAL); /* fits in the socket buffers */

    NT_RUN_UNTIL(loop, nheld == 4, 3000);
    nt_run_for(loop, 30); /* starved: nothing more */
    CHECK_EQ(nheld, 4);
    CHECK_EQ(vigil_net_bufs_lent(loop), 4);

    int puts = 0;
    while (ngot < TOTAL) {
        vigil_buf *b = held[0];
        memmove(held, held + 1, sizeof held[0] * 3);
        nheld--;
        vigil_buf_put(loop, b);
        puts++;
        int before = calls;
        NT_RUN_UNTIL(loop, calls > before, 3000);
        CHECK_EQ(calls, before + 1);
        CHECK(vigil_net_bufs_lent(loop) <= 4);
    }
    CHECK_EQ(ngot, TOTAL);
    long long bad = nt_check(got, TOTAL, 0);
    if (bad >= 0)
        fprintf(stderr, "byte %lld lost or out of order\n", bad);
    CHECK(bad < 0);
    while (nheld)
        vigil_buf_put(loop, held[--nheld]);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    printf("%d buffers of 256 bytes for 64 KiB (%d puts) on %s\n", calls, puts, nt_backend());
    return 0;
}
