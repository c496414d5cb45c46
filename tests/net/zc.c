/* vigil_sock_send_zc of 1 MiB to a forked peer that checks every byte: the callback
 * gets the full length once, then release runs exactly once, after it; on io_uring the
 * request cannot be started again between the two (-EBUSY: the kernel may still read
 * the buffer). */
#include "nt.h"

#define LEN (1u << 20)

static unsigned char *data;
static vigil_sock s;
static int cbs, rels, uring;
static ssize_t res_cb;

static void on_release(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    (void)l, (void)r, (void)res;
    CHECK_EQ(cbs, 1);
    rels++;
}

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    CHECK_EQ(rels, 0);
    cbs++;
    res_cb = res;
    if (uring) /* the notification is still to come */
        CHECK_EQ(vigil_sock_send_zc(l, &s, r, data, LEN, on_sent, on_release), -EBUSY);
}

static int peer_fd;
static int peer(void) { return nt_read_check(peer_fd, LEN, 65536, 0); }

int main(void)
{
    alarm(20);
    data = malloc(LEN);
    CHECK(data);
    nt_fill(data, LEN, 0);
    pid_t pid;
    int fd = nt_peer_pair(0, &peer_fd, peer, &pid);
    vigil_loop *loop = vt_loop();
    uring = strcmp(vigil_loop_backend(loop), "uring") == 0;
    CHECK_EQ(vigil_sock_open(loop, &s, fd), 0);
    vigil_net_req r = {0};
    CHECK_EQ(vigil_sock_send_zc(loop, &s, &r, data, LEN, on_sent, on_release), 0);
    NT_RUN_UNTIL(loop, rels == 1, 5000);
    nt_run_for(loop, 20);
    CHECK_EQ(cbs, 1);
    CHECK_EQ(rels, 1);
    CHECK_EQ(res_cb, LEN);
    CHECK_EQ(vigil_sock_shutdown(loop, &s, SHUT_WR), 0);
    CHECK_EQ(vt_child_exit(pid), 0);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(data);
    printf("zero-copy send of 1 MiB, released once, on %s\n", nt_backend());
    return 0;
}
