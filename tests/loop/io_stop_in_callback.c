/* Stopping watchers from inside callbacks -- the callback's own watcher, one later in
 * the same fd's list, one on another fd with an event pending in the same turn -- never
 * calls a stopped watcher. */
#include "vt.h"

#include <unistd.h>

static vigil_io w1, w2, w3, other;
static int calls[4], seq, seq1, seq_other;

static void cb1(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)ev;
    calls[0]++;
    seq1 = ++seq;
    CHECK_EQ(vigil_io_stop(loop, w), 0);   /* itself */
    CHECK_EQ(vigil_io_stop(loop, &w2), 0); /* the next one in the walk */
    CHECK_EQ(vigil_io_stop(loop, &other), 0); /* another fd, maybe with an event pending */
}
static void cb2(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; (void)ev; calls[1]++; }
static void cb3(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)ev;
    calls[2]++;
    char b[8];
    CHECK(read(w->fd, b, sizeof b) > 0);
    CHECK_EQ(vigil_io_stop(loop, w), 0);
}
static void cb_other(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; (void)ev; calls[3]++; seq_other = ++seq; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2], q[2];
    CHECK_SYS(pipe(p));
    CHECK_SYS(pipe(q));
    CHECK_EQ(vigil_io_start(loop, &w1, p[0], VIGIL_READ, cb1), 0);
    CHECK_EQ(vigil_io_start(loop, &w2, p[0], VIGIL_READ, cb2), 0);
    CHECK_EQ(vigil_io_start(loop, &w3, p[0], VIGIL_READ, cb3), 0);
    CHECK_EQ(vigil_io_start(loop, &other, q[0], VIGIL_READ, cb_other), 0);
    CHECK_SYS(write(p[1], "x", 1));
    CHECK_SYS(write(q[1], "x", 1));
    for (int i = 0; i < 3; i++)
        vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(calls[0], 1);
    CHECK_EQ(calls[1], 0); /* stopped by cb1 before its turn came */
    CHECK_EQ(calls[2], 1);
    /* other may have run only before cb1 stopped it (its event came first) */
    CHECK(calls[3] <= 1);
    if (calls[3])
        CHECK(seq_other < seq1);
    CHECK(!vigil_io_active(&w1) && !vigil_io_active(&w2) && !vigil_io_active(&w3) && !vigil_io_active(&other));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0); /* nothing active: returns */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
