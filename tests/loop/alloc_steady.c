/* The steady state allocates nothing: 100,000 turns with fds becoming ready, watchers
 * stopped and restarted, modified, and timers re-armed, after a warm-up. */
#include "vt.h"
#include "alloc_count.h"

#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NPAIRS 8
static int sv[NPAIRS][2];
static vigil_io w[NPAIRS];
static vigil_timer t, rep;
static struct vt_reads got;
static long fired;

static void on_timer(vigil_loop *loop, vigil_timer *tm) { (void)loop; (void)tm; fired++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    for (int i = 0; i < NPAIRS; i++) {
        CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv[i]));
        w[i].data = &got;
        CHECK_EQ(vigil_io_start(loop, &w[i], sv[i][0], VIGIL_READ, vt_on_read), 0);
    }
    CHECK_EQ(vigil_timer_start(loop, &rep, CLOCK_MONOTONIC, 1000, 1000, 0, on_timer), 0);
    long before = 0;
    const int warm = 2000, turns = 100000;
    for (int i = 0; i < warm + turns; i++) {
        if (i == warm) {
            vt_alloc_count_start();
            before = vt_alloc_count();
        }
        int k = i % NPAIRS;
        CHECK(write(sv[k][1], "x", 1) == 1);
        if (i % 7 == 0) { /* restart a watcher */
            CHECK_EQ(vigil_io_stop(loop, &w[k]), 0);
            CHECK_EQ(vigil_io_start(loop, &w[k], sv[k][0], VIGIL_READ, vt_on_read), 0);
        }
        if (i % 5 == 0) /* flip a mask and back */
            CHECK_EQ(vigil_io_modify(loop, &w[(k + 1) % NPAIRS], (i / 5) % 2 ? VIGIL_READ | VIGIL_PRI : VIGIL_READ), 0);
        vigil_timer_stop(loop, &t); /* re-arm a one-shot timer every turn */
        CHECK_EQ(vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 50000, 0, 0, on_timer), 0);
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    }
    long allocs = vt_alloc_count() - before;
    printf("%ld turns, %ld reads, %ld timer callbacks, %ld allocations or frees after warm-up\n",
           (long)turns, got.calls, fired, allocs);
    CHECK(got.calls >= turns);
    CHECK_EQ(allocs, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
