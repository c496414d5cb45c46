/* vigil_loop_run and vigil_loop_free called from inside one of the loop's own callbacks
 * return -EBUSY, from every kind of callback: a timer, an fd watcher, a signal watcher,
 * on_wakeup, and the sockets API's receive, send and close callbacks (their completion
 * point). The refused call changes nothing: the outer run goes on, every callback still
 * comes exactly once, and once the run has returned both calls work again. */
#include "vt.h"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vigil/net.h>

enum { K_TIMER, K_IO, K_SIGNAL, K_WAKEUP, K_RECV, K_SEND, K_CLOSE, K_N };
static const char *const kind_name[K_N] = {"timer", "io", "signal", "wakeup", "recv", "send", "close"};
static int seen[K_N];

/* The check every callback makes: both calls refused, nothing else happens. */
static void nested(vigil_loop *loop, int kind)
{
    int r1 = vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    int r2 = vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    int r3 = vigil_loop_free(loop);
    if (r1 != -EBUSY || r2 != -EBUSY || r3 != -EBUSY) {
        fprintf(stderr, "%s callback: nested run %d / %d, free %d (want -EBUSY each)\n", kind_name[kind], r1, r2, r3);
        exit(1);
    }
    seen[kind]++;
}

static void on_timer(vigil_loop *loop, vigil_timer *t)
{
    (void)t;
    nested(loop, K_TIMER);
}

static void on_io(vigil_loop *loop, vigil_io *w, int ev)
{
    CHECK(ev > 0);
    char b[8];
    CHECK(read(w->fd, b, sizeof b) > 0);
    nested(loop, K_IO);
    CHECK_EQ(vigil_io_stop(loop, w), 0);
}

static void on_signal(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)si;
    nested(loop, K_SIGNAL);
    CHECK_EQ(vigil_signal_stop(loop, w), 0);
}

static void on_wakeup(vigil_loop *loop, void *data)
{
    (void)data;
    nested(loop, K_WAKEUP);
}

static vigil_net_req sreq;
static void on_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)s;
    nested(loop, K_CLOSE);
}

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    CHECK_EQ(res, 5);
    nested(loop, K_SEND);
    CHECK_EQ(vigil_sock_close(loop, req->sock, on_closed), 0);
}

static void on_recv(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    CHECK_EQ(n, 5);
    CHECK(memcmp(buf->data, "hello", 5) == 0);
    vigil_buf_put(loop, buf);
    nested(loop, K_RECV);
    CHECK_EQ(vigil_sock_recv_stop(loop, s), 0);
    CHECK_EQ(vigil_sock_send(loop, s, &sreq, "world", 5, on_sent), 0);
}

int main(void)
{
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.on_wakeup = on_wakeup;
    vigil_loop *loop = vt_loop_opts(&o);

    vigil_timer t = {0};
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 1000000, 0, 0, on_timer), 0);
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, on_io), 0);
    CHECK_SYS(write(p[1], "x", 1));
    vigil_signal sig = {0};
    CHECK_EQ(vigil_signal_start(loop, &sig, SIGUSR1, on_signal), 0);
    CHECK_SYS(kill(getpid(), SIGUSR1));
    CHECK_EQ(vigil_loop_wakeup(loop), 0);
    int sv[2];
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, sv[0]), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, on_recv), 0);
    CHECK_SYS(write(sv[1], "hello", 5));

    /* Runs until nothing is active: the timer fired, the watchers stopped, the socket
     * closed. Bounded: the timer is the latest deadline and everything else is ready. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    for (int k = 0; k < K_N; k++) {
        if (seen[k] != 1) {
            fprintf(stderr, "%s callback ran %d times (want 1)\n", kind_name[k], seen[k]);
            return 1;
        }
    }
    char b[8];
    CHECK_EQ(read(sv[1], b, sizeof b), 5); /* the send went out whole */
    CHECK(memcmp(b, "world", 5) == 0);

    /* Outside a run, both work again. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    close(p[1]);
    close(sv[1]);
    return 0;
}
