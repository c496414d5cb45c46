/* Many interest changes in one turn, more than a submission ring holds (1,000 fds flip
 * from READ to WRITE in one turn, then back): every change takes effect. */
#include "vt.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define N 1000

static int sv[N][2];
static vigil_io w[N];
static int wr_calls, rd_calls;

static void on_ev(vigil_loop *l, vigil_io *io, int ev)
{
    (void)l;
    if (ev & VIGIL_WRITE)
        wr_calls++;
    if (ev & VIGIL_READ) {
        char b[4];
        CHECK(read(io->fd, b, sizeof b) == 1);
        rd_calls++;
    }
}

int main(void)
{
    struct rlimit rl;
    CHECK_SYS(getrlimit(RLIMIT_NOFILE, &rl));
    if (rl.rlim_cur < 2 * N + 100) {
        rl.rlim_cur = rl.rlim_max < 2 * N + 100 ? rl.rlim_max : 2 * N + 100;
        setrlimit(RLIMIT_NOFILE, &rl);
        CHECK_SYS(getrlimit(RLIMIT_NOFILE, &rl));
        if (rl.rlim_cur < 2 * N + 100)
            vt_skip("RLIMIT_NOFILE too small for 2,000 sockets");
    }
    vigil_loop *loop = vt_loop();
    for (int i = 0; i < N; i++) {
        CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv[i]));
        CHECK_EQ(vigil_io_start(loop, &w[i], sv[i][0], VIGIL_READ, on_ev), 0);
    }
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(wr_calls + rd_calls, 0); /* idle: nothing to read */

    /* One turn: 1,000 changes. Every socket is writable: each reports WRITE. */
    for (int i = 0; i < N; i++)
        CHECK_EQ(vigil_io_modify(loop, &w[i], VIGIL_WRITE), 0);
    while (wr_calls < N)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    /* Back to READ in one turn, then make all readable: each reports READ, no WRITE. */
    for (int i = 0; i < N; i++)
        CHECK_EQ(vigil_io_modify(loop, &w[i], VIGIL_READ), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    int wr_before = wr_calls;
    for (int i = 0; i < N; i++)
        CHECK(write(sv[i][1], "x", 1) == 1);
    while (rd_calls < N)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(rd_calls, N);
    CHECK(wr_calls - wr_before <= N); /* a WRITE that raced the flip at most once each */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
