/* On io_uring, a non-blocking turn with nothing to submit makes no system call: it
 * reads the completion ring. Counted with the backend's own io_uring_enter counter:
 * idle NOWAIT turns leave it unchanged; a pipe that becomes ready is seen by a NOWAIT
 * turn (entering at most once, to run the completion work the kernel flagged). */
#include "vt.h"
#include "loop/loop.h"
#include "ring/ring.h"

#include <unistd.h>

static int calls;

static void on_ev(vigil_loop *l, vigil_io *w, int ev)
{
    (void)l;
    CHECK(ev & VIGIL_READ);
    char b;
    CHECK(read(w->fd, &b, 1) == 1);
    calls++;
}

int main(void)
{
#ifndef VIGIL_TEST_HAVE_LIBURING
    vt_skip("built without liburing");
#else
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.backend = VIGIL_BACKEND_URING;
    vigil_loop *loop = vt_loop_opts(&o);
    struct vigil__ring *u = loop->ring;
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, on_ev), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* submits the poll: one enter */
    uint64_t e0 = u->enters;
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    printf("1000 idle non-blocking turns: %llu io_uring_enter\n", (unsigned long long)(u->enters - e0));
    CHECK_EQ(u->enters, e0);

    CHECK_SYS(write(p[1], "x", 1));
    uint64_t e1 = u->enters;
    for (int i = 0; i < 3 && calls == 0; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    printf("readiness seen by a non-blocking turn after %llu io_uring_enter\n",
           (unsigned long long)(u->enters - e1));
    CHECK_EQ(calls, 1);
    CHECK(u->enters - e1 <= 2); /* the completion work, and the re-arm of the poll */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
#endif
}
