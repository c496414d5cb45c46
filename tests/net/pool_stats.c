/* The pool's accounting (issue 26): every buffer is in one place at every moment --
 * free + in the ring + stashed + lent == size (vigil_net_pool_stats_get) -- checked inside
 * every receive callback and between turns while streams receive, hold buffers, stop
 * with data arriving (stashed bytes), restart, are read by an own-buffer receive, and
 * close with buffers stashed and lent. */
#include "nt.h"

#define NC 4

static vigil_loop *loop;
static vigil_sock s[NC];
static vigil_buf *held[64];
static int nheld, callbacks;
static uint64_t got[NC];

static void check(void)
{
    struct vigil_net_pool_stats st;
    CHECK_EQ(vigil_net_pool_stats_get(loop, &st), 0);
    CHECK_EQ(st.size, 64);
    if (st.free + st.in_ring + st.stashed + st.lent != st.size)
        fprintf(stderr, "free %u + in_ring %u + stashed %u + lent %u != %u\n", st.free, st.in_ring, st.stashed,
                st.lent, st.size);
    CHECK_EQ(st.free + st.in_ring + st.stashed + st.lent, st.size);
    CHECK_EQ(st.lent, vigil_net_bufs_lent(loop));
    if (strcmp(vigil_loop_backend(loop), "uring"))
        CHECK_EQ(st.in_ring, 0);
}

static void on_data(vigil_loop *l, vigil_sock *ps, ssize_t n, vigil_buf *b)
{
    (void)l;
    callbacks++;
    check();
    if (n <= 0)
        return;
    got[ps - s] += (uint64_t)n;
    if (nheld < 16)
        held[nheld++] = b; /* a slow consumer keeps some */
    else
        vigil_buf_put(loop, b);
    check();
}

static void on_recv(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r, (void)res;
    check();
}

int main(void)
{
    alarm(30);
    struct vigil_net_pool_stats st;
    loop = vt_loop();
    CHECK_EQ(vigil_net_pool_stats_get(loop, &st), 0);
    CHECK_EQ(st.size, 0);
    struct vigil_net_options o;
    vigil_net_options_init(&o);
    o.buf_count = 64;
    o.buf_size = 1024;
    CHECK_EQ(vigil_net_setup(loop, &o), 0);
    check();
    int p[NC][2];
    static unsigned char blk[8192];
    for (int i = 0; i < NC; i++) {
        nt_pair(p[i], 0);
        CHECK_EQ(vigil_sock_open(loop, &s[i], p[i][1]), 0);
        CHECK_EQ(vigil_sock_recv_start(loop, &s[i], on_data), 0);
    }
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < NC; i++)
            CHECK_EQ(write(p[i][0], blk, sizeof blk), (ssize_t)sizeof blk);
        for (int t = 0; t < 20; t++) {
            vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
            check();
        }
        /* stop two streams with data on the way: bytes land in the stash */
        CHECK_EQ(vigil_sock_recv_stop(loop, &s[round % NC]), 0);
        CHECK_EQ(write(p[round % NC][0], blk, 3000), 3000);
        for (int t = 0; t < 20; t++) {
            vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
            check();
        }
        while (nheld > 8) {
            vigil_buf_put(loop, held[--nheld]);
            check();
        }
        if (round % 2) { /* an own-buffer receive takes what was stashed */
            static char mine[512];
            static vigil_net_req rq;
            int e = vigil_sock_recv(loop, &s[round % NC], &rq, mine, sizeof mine, on_recv);
            CHECK_EQ(e, 0);
            NT_RUN_UNTIL(loop, rq.result != 0 || rq.sock == NULL, 3000);
            check();
            memset(&rq, 0, sizeof rq);
        }
        CHECK_EQ(vigil_sock_recv_start(loop, &s[round % NC], on_data), 0);
        check();
    }
    /* close with buffers stashed and lent */
    CHECK_EQ(vigil_sock_recv_stop(loop, &s[0]), 0);
    CHECK_EQ(write(p[0][0], blk, 2000), 2000);
    nt_run_for(loop, 10);
    check();
    for (int i = 0; i < NC; i++)
        CHECK_EQ(vigil_sock_close(loop, &s[i], NULL), 0);
    nt_run_for(loop, 20);
    check();
    CHECK_EQ(vigil_net_pool_stats_get(loop, &st), 0);
    CHECK_EQ(st.stashed, 0);
    CHECK_EQ(st.lent, (uint32_t)nheld);
    while (nheld)
        vigil_buf_put(loop, held[--nheld]);
    check();
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < NC; i++)
        close(p[i][0]);
    printf("pool accounted for in %d callbacks on %s\n", callbacks, nt_backend());
    return 0;
}
