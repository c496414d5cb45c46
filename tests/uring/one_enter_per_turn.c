/* On io_uring, a steady-state turn of the qemu-loop shape -- 15 pipes watched, 4 of
 * them changing interest and one becoming ready per turn, a timer pending -- makes
 * exactly one io_uring_enter (the backend's own counter; the test's write and the
 * callback's read are the test's, not the loop's). */
#include "ut.h"

#include <fcntl.h>

#define N 15

static int rfd[N], wfd[N];
static vigil_io w[N];
static long got;

static void on_io(vigil_loop *l, vigil_io *io, int ev)
{
    (void)l;
    if (ev & VIGIL_READ) {
        char b[8];
        if (read(io->fd, b, sizeof b) > 0)
            got++;
    }
}

static void on_timer(vigil_loop *l, vigil_timer *t) { (void)l; (void)t; }

int main(void)
{
    vigil_loop *loop = ut_loop();
    vigil_timer t = {0};
    CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 600 * 1000000000LL, 0, 0, on_timer), 0);
    unsigned char wr[N] = {0};
    for (int i = 0; i < N; i++) {
        int p[2];
        CHECK_SYS(pipe2(p, O_NONBLOCK | O_CLOEXEC));
        rfd[i] = p[0];
        wfd[i] = p[1];
        CHECK_EQ(vigil_io_start(loop, &w[i], rfd[i], VIGIL_READ, on_io), 0);
    }
    uint64_t e0 = 0;
    const int warm = 200, turns = 2000;
    for (int k = 0; k < warm + turns; k++) {
        if (k == warm)
            e0 = ut_enters(loop);
        CHECK(write(wfd[k % N], "x", 1) == 1);
        for (int j = 0; j < 4; j++) {
            int i = (k * 4 + j) % N;
            wr[i] ^= 1;
            CHECK_EQ(vigil_io_modify(loop, &w[i], wr[i] ? VIGIL_READ | VIGIL_WRITE : VIGIL_READ), 0);
        }
        long before = got;
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
        CHECK_EQ(got, before + 1);
    }
    printf("%d turns: %llu io_uring_enter\n", turns, (unsigned long long)(ut_enters(loop) - e0));
    CHECK_EQ(ut_enters(loop) - e0, (uint64_t)turns);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
