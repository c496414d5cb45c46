/* A pool larger than the io_uring ring's first window (64 buffers): the program holds
 * every buffer it gets while 64 sockets each receive 4 KiB (1024 buffers' worth for a
 * pool of 512): it gets all 512, not just a window's worth (a ring that ran dry is
 * refilled from the free buffers, never left waiting for a put), and no more. Giving
 * them back brings the rest. Then a forked peer streams 24 MiB through one socket in
 * 256-byte buffers, given back at once (about 100,000 receives: long enough for the
 * window to narrow again). Every socket's bytes arrive whole and in order (compared
 * with what was sent). Runs on every backend; on epoll and poll the pool is a plain
 * stack and the same must hold. */
#include "nt.h"

#define NSOCK 64
#define EACH 4096
#define POOL 512
#define BUFSZ 256
#define STREAM (24u << 20)

static vigil_sock socks[NSOCK];
static unsigned char got[NSOCK][EACH];
static size_t ngot[NSOCK];
static vigil_buf *held[POOL];
static int nheld, holding = 1, ends;
static size_t streamed;
static long long stream_bad = -1;

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    int i = (int)(s - socks);
    CHECK(i >= 0 && i < NSOCK);
    if (n <= 0) {
        ends++;
        return;
    }
    CHECK(n <= BUFSZ);
    if (i == 0 && !holding && ngot[0] == EACH) { /* the stream phase */
        long long bad = nt_check((const unsigned char *)b->data, (size_t)n, streamed);
        if (bad >= 0 && stream_bad < 0)
            stream_bad = bad;
        streamed += (size_t)n;
        vigil_buf_put(l, b);
        return;
    }
    CHECK(ngot[i] + (size_t)n <= EACH);
    memcpy(got[i] + ngot[i], b->data, (size_t)n);
    ngot[i] += (size_t)n;
    if (holding) {
        CHECK(nheld < POOL);
        held[nheld++] = b;
    } else {
        vigil_buf_put(l, b);
    }
}

static size_t total(void)
{
    size_t t = 0;
    for (int i = 0; i < NSOCK; i++)
        t += ngot[i];
    return t;
}

static int peer_fd;
static int peer(void)
{
    return nt_write_pattern(peer_fd, STREAM, 65536);
}

int main(void)
{
    alarm(60);
    vigil_loop *loop = nt_loop_pool(POOL, BUFSZ);
    int peers[NSOCK];
    static unsigned char out[EACH];
    for (int i = 0; i < NSOCK; i++) {
        int p[2];
        nt_pair(p, 0);
        peers[i] = p[0];
        CHECK_EQ(vigil_sock_open(loop, &socks[i], p[1]), 0);
        CHECK_EQ(vigil_sock_recv_start(loop, &socks[i], on_data), 0);
        nt_fill(out, EACH, (uint64_t)i * EACH);
        CHECK_EQ(write(p[0], out, EACH), EACH); /* fits in the socket buffers */
    }

    /* Holding everything: the whole pool is lent, then nothing more comes. */
    NT_RUN_UNTIL(loop, nheld == POOL, 5000);
    nt_run_for(loop, 30);
    CHECK_EQ(nheld, POOL);
    CHECK_EQ(vigil_net_bufs_lent(loop), POOL);
    size_t first = total();
    CHECK(first <= (size_t)POOL * BUFSZ);

    /* Back, all at once: the rest arrives. */
    holding = 0;
    while (nheld)
        vigil_buf_put(loop, held[--nheld]);
    NT_RUN_UNTIL(loop, total() == (size_t)NSOCK * EACH, 5000);
    for (int i = 0; i < NSOCK; i++) {
        long long bad = nt_check(got[i], EACH, (uint64_t)i * EACH);
        if (bad >= 0)
            fprintf(stderr, "socket %d: byte %lld lost or out of order\n", i, bad);
        CHECK(bad < 0);
    }
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);

    /* A long stream through socket 0, buffers given back at once. */
    peer_fd = peers[0];
    pid_t pid = nt_spawn(peer);
    NT_RUN_UNTIL(loop, streamed == STREAM, 30000);
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (stream_bad >= 0)
        fprintf(stderr, "stream: byte %lld lost or out of order\n", stream_bad);
    CHECK(stream_bad < 0);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);

    for (int i = 0; i < NSOCK; i++) {
        CHECK_EQ(vigil_sock_close(loop, &socks[i], NULL), 0);
        close(peers[i]);
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("%zu bytes while holding (pool %d x %d), then %u streamed, on %s\n", first, POOL, BUFSZ, STREAM,
           nt_backend());
    return 0;
}
