/* vigil_sock_recv_stop mid-stream and vigil_sock_recv_start later (a timer), and stop
 * then start again at once in the same callback, while a forked peer writes 2 MiB of
 * the pattern: no callback after a stop returns, and the bytes come whole and in order
 * (data the kernel had already placed in a buffer is kept for the next start). */
#include "nt.h"

#define TOTAL (2u << 20)

static vigil_sock s;
static vigil_timer later;
static int stopped, eof, stops, restarts;
static uint64_t got;

static void on_data(vigil_loop *l, vigil_sock *sk, ssize_t n, vigil_buf *b);

static void restart(vigil_loop *l, vigil_timer *t)
{
    (void)t;
    stopped = 0;
    CHECK_EQ(vigil_sock_recv_start(l, &s, on_data), 0);
}

static void on_data(vigil_loop *l, vigil_sock *sk, ssize_t n, vigil_buf *b)
{
    CHECK(!stopped); /* no callback after a stop */
    if (n == 0) {
        eof = 1;
        return;
    }
    nt_take_pattern(l, b, n, &got);
    static int k;
    k++;
    if (k % 7 == 0) { /* stop, start again later */
        CHECK_EQ(vigil_sock_recv_stop(l, sk), 0);
        stopped = 1;
        stops++;
        CHECK_EQ(vigil_timer_start(l, &later, CLOCK_MONOTONIC, 200000, 0, 0, restart), 0);
    } else if (k % 5 == 0) { /* stop and start again at once */
        CHECK_EQ(vigil_sock_recv_stop(l, sk), 0);
        CHECK_EQ(vigil_sock_recv_start(l, sk, on_data), 0);
        restarts++;
    }
}

static int peer_fd;
static int peer(void)
{
    return nt_write_pattern(peer_fd, TOTAL, 1000); /* pieces of 1000 bytes */
}

int main(void)
{
    alarm(20);
    pid_t pid;
    int fd = nt_peer_pair(0, &peer_fd, peer, &pid);
    vigil_loop *loop = vt_loop();
    CHECK_EQ(vigil_sock_open(loop, &s, fd), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0);
    NT_RUN_UNTIL(loop, eof, 15000);
    CHECK_EQ(got, TOTAL);
    CHECK(stops > 0 && restarts > 0);
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("%d stops with a later start, %d at once, 2 MiB in order on %s\n", stops, restarts, nt_backend());
    return 0;
}
