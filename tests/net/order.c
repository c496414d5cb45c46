/* 1000 sends of numbered messages (1 to 4000 bytes, consecutive slices of the pattern)
 * started back to back on one socket with small buffers, so most wait in vigil's queue:
 * they complete in start order (each callback is the next number) and the receiving
 * end (a vigil receive stream on the other socket of the pair) gets the bytes in
 * order. */
#include "nt.h"

#define N 1000

static vigil_net_req req[N];
static int next_done;
static uint64_t got, total;
static int eof;

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l;
    int i = (int)(intptr_t)r->data;
    CHECK_EQ(i, next_done);
    CHECK_EQ(res, 1 + (i * 37) % 4000);
    next_done++;
}

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s;
    if (n == 0) {
        eof = 1;
        return;
    }
    nt_take_pattern(l, b, n, &got);
}

int main(void)
{
    alarm(20);
    for (int i = 0; i < N; i++)
        total += 1 + (uint64_t)(i * 37) % 4000;
    unsigned char *data = malloc(total);
    CHECK(data);
    nt_fill(data, total, 0);
    vigil_loop *loop = vt_loop();
    int p[2];
    nt_pair(p, 1);
    vigil_sock tx = {0}, rx = {0};
    CHECK_EQ(vigil_sock_open(loop, &tx, p[1]), 0);
    CHECK_EQ(vigil_sock_open(loop, &rx, p[0]), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &rx, on_data), 0);
    size_t off = 0;
    for (int i = 0; i < N; i++) {
        size_t len = 1 + (size_t)(i * 37) % 4000;
        req[i].data = (void *)(intptr_t)i;
        CHECK_EQ(vigil_sock_send(loop, &tx, &req[i], data + off, len, on_sent), 0);
        off += len;
    }
    CHECK_EQ(next_done, 0);
    NT_RUN_UNTIL(loop, next_done == N, 10000);
    CHECK_EQ(vigil_sock_shutdown(loop, &tx, SHUT_WR), 0);
    NT_RUN_UNTIL(loop, eof, 5000);
    CHECK_EQ(got, total);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &tx, NULL), 0);
    CHECK_EQ(vigil_sock_close(loop, &rx, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(data);
    printf("%d sends, %llu bytes in order on %s\n", N, (unsigned long long)total, nt_backend());
    return 0;
}
