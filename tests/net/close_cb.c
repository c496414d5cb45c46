/* The end of every socket (issue 26): vigil_sock_set_close_cb's callback runs once when
 * the socket's close is over, whoever closed it -- vigil_sock_close with a NULL cb, or
 * vigil_loop_free closing what the program left open -- and vigil_sock_close's own cb
 * takes precedence. The sockets here are malloc'd and freed in their close callback
 * (ASan sees any later use). The callbacks vigil_loop_free runs (sends ending
 * -ECANCELED, close callbacks) are held to the rules of any callback: vigil_loop_free
 * and vigil_loop_run from them are refused (-EBUSY), and calls that would start work
 * fail. */
#include "nt.h"

#define LEN (1u << 20) /* more than both socket buffers take */

static int set_calls, own_calls, sends_ended, in_free;
static vigil_loop *loop;

static void on_set_close(vigil_loop *l, vigil_sock *s)
{
    CHECK(l == loop);
    set_calls++;
    if (in_free) {
        CHECK_EQ(vigil_loop_free(l), -EBUSY);
        CHECK_EQ(vigil_loop_run(l, VIGIL_RUN_NOWAIT), -EBUSY);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        vigil_sock t = {0};
        CHECK_EQ(vigil_sock_open(l, &t, fd), -ECANCELED);
        close(fd);
    }
    free(s);
}

static void on_own_close(vigil_loop *l, vigil_sock *s)
{
    (void)l;
    own_calls++;
    free(s);
}

static void on_sent(vigil_loop *l, vigil_net_req *r, ssize_t res)
{
    sends_ended++;
    if (in_free) {
        CHECK_EQ(res, -ECANCELED);
        CHECK_EQ(vigil_loop_free(l), -EBUSY);
        CHECK_EQ(vigil_loop_run(l, VIGIL_RUN_ONCE), -EBUSY);
        static char b[4];
        CHECK(vigil_sock_send(l, r->sock, r, b, sizeof b, on_sent) < 0); /* nothing starts */
    }
}

static void on_data(vigil_loop *l, vigil_sock *s, ssize_t n, vigil_buf *b)
{
    (void)s, (void)n;
    vigil_buf_put(l, b);
}

static vigil_sock *opened(int fd)
{
    vigil_sock *s = calloc(1, sizeof *s);
    CHECK_EQ(vigil_sock_open(loop, s, fd), 0);
    return s;
}

int main(void)
{
    alarm(30);
    static unsigned char data[LEN];
    loop = vt_loop();
    int p[4][2];
    for (int i = 0; i < 4; i++)
        nt_pair(p[i], 1);

    vigil_sock none = {0};
    CHECK_EQ(vigil_sock_set_close_cb(NULL, on_set_close), -EINVAL);
    CHECK_EQ(vigil_sock_set_close_cb(&none, on_set_close), -EBADF); /* not open */

    /* A close with no cb of its own: the set one runs, once. */
    vigil_sock *a = opened(p[0][1]);
    CHECK_EQ(vigil_sock_set_close_cb(a, on_set_close), 0);
    CHECK_EQ(vigil_sock_close(loop, a, NULL), 0);
    CHECK_EQ(vigil_sock_set_close_cb(a, on_set_close), -EBADF); /* closing */
    NT_RUN_UNTIL(loop, set_calls == 1, 3000);

    /* vigil_sock_close's own cb takes precedence. */
    vigil_sock *b = opened(p[1][1]);
    CHECK_EQ(vigil_sock_set_close_cb(b, on_set_close), 0);
    CHECK_EQ(vigil_sock_close(loop, b, on_own_close), 0);
    NT_RUN_UNTIL(loop, own_calls == 1, 3000);
    nt_run_for(loop, 10);
    CHECK_EQ(set_calls, 1);

    /* Left open at vigil_loop_free: one with sends queued behind a full socket, one
     * receiving; both learn their end there. */
    vigil_sock *c = opened(p[2][1]), *d = opened(p[3][1]);
    CHECK_EQ(vigil_sock_set_close_cb(c, on_set_close), 0);
    CHECK_EQ(vigil_sock_set_close_cb(d, on_set_close), 0);
    static vigil_net_req req[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_sock_send(loop, c, &req[i], data, LEN, on_sent), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, d, on_data), 0);
    nt_run_for(loop, 20);
    CHECK_EQ(sends_ended, 0);
    in_free = 1;
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(sends_ended, 3);
    CHECK_EQ(set_calls, 3);
    for (int i = 0; i < 4; i++)
        close(p[i][0]);
    printf("every socket's end told, vigil_loop_free's too, on %s\n", nt_backend());
    return 0;
}
