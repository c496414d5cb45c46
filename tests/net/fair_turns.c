/* No connection starved (issue 26): N connections whose peers always have more bytes
 * waiting -- more ready sockets than a poll turn takes (512) -- each receiving into the
 * pool; after every turn each connection that received is topped up again, so none
 * ever runs dry. Counted in turns, not time: within K turns every connection must have
 * received, and, over the run, each must be served again at least every K turns. One
 * connection is a slow consumer: it keeps every buffer it gets; it may slow itself,
 * never the others. Before the fix the poll backend scanned its ready fds from index 0
 * every turn, so the connections past the 512th were never served (188 of 700 got
 * nothing in 400 turns); on io_uring a turn served about 20 connections (the kernel's
 * cap on deferred task work per enter: src/net/uring.c, taskrun_rest), each waiting up
 * to 35 turns. Now every connection is served within K turns on every backend (worst
 * gap seen: 2 turns on epoll and poll, 4 on io_uring, both before and after
 * taskrun_rest's drain was gated on that cap). */
#include "nt.h"

#include <sys/resource.h>

#define N 700
#define K 4
#define TURNS 400
#define CHUNK 2048

static vigil_loop *loop;
static vigil_sock s[N];
static int peer[N];
static uint64_t got[N], turn_now;
static int64_t last_turn[N];
static int worst_gap, hoarded, topped[N];
static vigil_buf *hoard[1 << 15];

static void on_data(vigil_loop *l, vigil_sock *ps, ssize_t n, vigil_buf *b)
{
    int i = (int)(ps - s);
    CHECK(n > 0);
    got[i] += (uint64_t)n;
    int gap = (int)(turn_now - (uint64_t)last_turn[i]);
    if (i != 0 && gap > worst_gap)
        worst_gap = gap;
    last_turn[i] = (int64_t)turn_now;
    topped[i] = 1;
    if (i == 0 && hoarded < (int)(sizeof hoard / sizeof *hoard))
        hoard[hoarded++] = b; /* the slow consumer */
    else
        vigil_buf_put(l, b);
}

int main(void)
{
    alarm(120);
    struct rlimit rl;
    CHECK_SYS(getrlimit(RLIMIT_NOFILE, &rl));
    if (rl.rlim_cur < 2 * N + 64)
        vt_skip("fewer fds than 2 x 700 connections (RLIMIT_NOFILE)");
    loop = vt_loop();
    static char blk[CHUNK * 4];
    for (int i = 0; i < N; i++) {
        int sv[2];
        CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
        peer[i] = sv[0];
        CHECK_SYS(fcntl(sv[0], F_SETFL, O_NONBLOCK));
        CHECK_EQ(vigil_sock_open(loop, &s[i], sv[1]), 0);
        CHECK_EQ(write(peer[i], blk, sizeof blk), (ssize_t)sizeof blk);
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(vigil_sock_recv_start(loop, &s[i], on_data), 0);
    int first_all = -1;
    for (int t = 1; t <= TURNS; t++) {
        turn_now = (uint64_t)t;
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        int all = 1, served = 0;
        for (int i = 0; i < N; i++) {
            served += topped[i];
            all &= got[i] > 0;
            if (topped[i]) { /* keep every connection's peer ahead of it */
                topped[i] = 0;
                (void)!write(peer[i], blk, CHUNK);
            }
        }
        if (all && first_all < 0)
            first_all = t;
        if (getenv("FAIR_TRACE")) {
            struct vigil_net_pool_stats ps;
            vigil_net_pool_stats_get(loop, &ps);
            fprintf(stderr, "turn %d: %d served; free %u ring %u lent %u\n", t, served, ps.free, ps.in_ring, ps.lent);
        }
    }
    int starved = 0;
    for (int i = 1; i < N; i++) {
        int gap = (int)((uint64_t)TURNS - (uint64_t)last_turn[i]);
        if (gap > worst_gap)
            worst_gap = gap;
        starved += got[i] == 0;
    }
    struct vigil_net_pool_stats st;
    CHECK_EQ(vigil_net_pool_stats_get(loop, &st), 0);
    printf("%s: all %d served by turn %d, worst gap %d turns, %d starved; the hoarder holds %d buffers (pool %u, "
           "free %u, ring %u)\n",
           nt_backend(), N, first_all, worst_gap, starved, hoarded, st.size, st.free, st.in_ring);
    CHECK_EQ(starved, 0);
    CHECK(first_all > 0 && first_all <= K);
    CHECK(worst_gap <= K);
    for (int i = 0; i < hoarded; i++)
        vigil_buf_put(loop, hoard[i]);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(vigil_sock_close(loop, &s[i], NULL), 0);
        close(peer[i]);
    }
    nt_run_for(loop, 10);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
