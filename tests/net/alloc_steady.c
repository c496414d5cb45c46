/* No allocation per steady-state request: a vigil client and a vigil echo server on the
 * two ends of one loopback connection, in one loop; after 1000 round trips of warm-up,
 * 10,000 more (send 64 bytes, receive the echo, the server echoing from its receive
 * buffers) make zero allocations and frees. */
#include "nt.h"
#include "alloc_count.h"

#define MSG 64
#define NREQ 16

static vigil_sock cli, srv;
static vigil_net_req creq, sreq[NREQ];
static unsigned char msg[MSG];
static size_t echoed;
static long trips;
static int csent;

static void on_srv_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    vigil_buf *b = r->data;
    CHECK_EQ(res, (ssize_t)b->len);
    vigil_buf_put(l, b);
    r->data = NULL;
}

static void on_srv_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    CHECK(n > 0);
    for (int i = 0; i < NREQ; i++)
        if (!sreq[i].data) {
            sreq[i].data = b;
            CHECK_EQ(vigil_sock_send(l, s, &sreq[i], b->data, b->len, on_srv_sent), 0);
            return;
        }
    CHECK(!"no free server request");
}

static void on_cli_sent(vigil_loop *l, vigil_net_req *r, ssize_t res) { (void)l, (void)r; CHECK_EQ(res, MSG); csent = 1; }

static void on_cli_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s;
    CHECK(n > 0);
    echoed += (size_t)n;
    vigil_buf_put(l, b);
    if (echoed == MSG) {
        echoed = 0;
        trips++;
    }
    CHECK(echoed < MSG);
}

static void trips_to(vigil_loop *loop, long want)
{
    while (trips < want) {
        long t = trips;
        csent = 0;
        CHECK_EQ(vigil_sock_send(loop, &cli, &creq, msg, MSG, on_cli_sent), 0);
        while (trips == t || !csent)
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    }
}

int main(void)
{
    alarm(30);
    vigil_loop *loop = vt_loop();
    nt_fill(msg, MSG, 0);
    int p[2];
    nt_pair(p, 0);
    CHECK_EQ(vigil_sock_open(loop, &cli, p[0]), 0);
    CHECK_EQ(vigil_sock_open(loop, &srv, p[1]), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &cli, on_cli_data), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &srv, on_srv_data), 0);
    trips_to(loop, 1000);
    vt_alloc_count_start();
    long before = vt_alloc_count();
    trips_to(loop, 11000);
    long allocs = vt_alloc_count() - before;
    printf("%ld round trips, %ld allocations or frees after warm-up on %s\n", trips - 1000, allocs, nt_backend());
    CHECK_EQ(allocs, 0);
    CHECK_EQ(vigil_sock_close(loop, &cli, NULL), 0);
    CHECK_EQ(vigil_sock_close(loop, &srv, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
