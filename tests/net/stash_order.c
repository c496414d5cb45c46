/* Bytes a stopped receive stream already holds (its stash) come before newer bytes,
 * whichever way the program reads next. With 64-byte pool buffers and 256 bytes
 * waiting, one turn on io_uring completes four buffers at once; the first callback
 * stops the stream, so the other three are kept. The program then reads into its own
 * buffer (vigil_sock_recv) while the peer sends 100 more bytes: it must get the kept
 * bytes first, then the new ones, each byte once and in order. A second round does the
 * same and then starts the stream again before the own receive is done (the own
 * receive's bytes first, then the stream's). Every backend. */
#include "nt.h"

#define FIRST 256
#define MORE 100

static int peer = -1;
static unsigned char got[4096];
static size_t ngot;
static int stream_calls, own_calls;
static vigil_net_req own;
static unsigned char own_buf[1000];

static void take(const void *p, size_t n)
{
    CHECK(ngot + n <= sizeof got);
    memcpy(got + ngot, p, n);
    ngot += n;
}

static void on_own(vigil_loop *loop, vigil_net_req *r, ssize_t res)
{
    (void)loop, (void)r;
    CHECK(res > 0);
    take(own_buf, (size_t)res);
    own_calls++;
}

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf)
{
    CHECK(res > 0);
    take(buf->data, (size_t)res);
    vigil_buf_put(loop, buf);
    if (++stream_calls == 1) {
        /* Stop after the first buffer; newer bytes are written now, before the own
         * receive starts: the kept ones must still come first. */
        CHECK_EQ(vigil_sock_recv_stop(loop, s), 0);
        unsigned char more[MORE];
        nt_fill(more, MORE, FIRST);
        CHECK_EQ(write(peer, more, MORE), MORE);
        usleep(2000);
    }
}

int main(void)
{
    alarm(20);
    struct vigil_loop_options lo;
    vigil_loop_options_init(&lo);
    vigil_loop *loop = vt_loop_opts(&lo);
    struct vigil_net_options no;
    vigil_net_options_init(&no);
    no.buf_size = 64;
    no.buf_count = 16;
    CHECK_EQ(vigil_net_setup(loop, &no), 0);

    for (int round = 0; round < 2; round++) {
        int p[2];
        nt_pair(p, 0);
        peer = p[0];
        ngot = 0;
        stream_calls = own_calls = 0;
        vigil_sock s = {0};
        CHECK_EQ(vigil_sock_open(loop, &s, p[1]), 0);
        unsigned char first[FIRST];
        nt_fill(first, FIRST, 0);
        CHECK_EQ(write(peer, first, FIRST), FIRST);
        usleep(5000); /* all of it in the kernel before the first turn */
        CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0);
        NT_RUN_UNTIL(loop, stream_calls >= 1, 3000);
        CHECK_EQ(stream_calls, 1); /* stopped: no callback after the stop */
        if (round == 0) {
            while (ngot < FIRST + MORE) {
                int before = own_calls;
                CHECK_EQ(vigil_sock_recv(loop, &s, &own, own_buf, sizeof own_buf, on_own), 0);
                NT_RUN_UNTIL(loop, own_calls == before + 1, 3000);
            }
        } else {
            /* One own receive, then the stream again for the rest. */
            CHECK_EQ(vigil_sock_recv(loop, &s, &own, own_buf, 32, on_own), 0);
            NT_RUN_UNTIL(loop, own_calls == 1, 3000);
            CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0);
            NT_RUN_UNTIL(loop, ngot >= FIRST + MORE, 3000);
        }
        CHECK_EQ(ngot, FIRST + MORE);
        long long bad = nt_check(got, ngot, 0);
        if (bad >= 0)
            fprintf(stderr, "round %d: byte %lld out of order (own receives %d, stream calls %d)\n", round, bad,
                    own_calls, stream_calls);
        CHECK(bad < 0);
        CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
        close(peer);
        nt_run_for(loop, 5);
        CHECK_EQ(vigil_net_bufs_lent(loop), 0u);
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("a stopped stream's kept bytes come first, on %s\n", nt_backend());
    return 0;
}
