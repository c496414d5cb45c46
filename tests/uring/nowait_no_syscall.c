/* On io_uring, a non-blocking turn with nothing to submit makes no system call: it
 * reads the completion ring. Counted with the backend's own io_uring_enter counter:
 * idle NOWAIT turns leave it unchanged; a pipe that becomes ready is seen by a NOWAIT
 * turn (entering at most once, to run the completion work the kernel flagged). */
#include "ut.h"

int main(void)
{
    vigil_loop *loop = ut_loop();
    int p[2];
    CHECK_SYS(pipe(p));
    struct vt_reads got = {0};
    vigil_io w = {.data = &got};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, vt_on_read), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* submits the poll: one enter */
    uint64_t e0 = ut_enters(loop);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    printf("1000 idle non-blocking turns: %llu io_uring_enter\n", (unsigned long long)(ut_enters(loop) - e0));
    CHECK_EQ(ut_enters(loop), e0);

    CHECK_SYS(write(p[1], "x", 1));
    uint64_t e1 = ut_enters(loop);
    for (int i = 0; i < 3 && got.calls == 0; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    printf("readiness seen by a non-blocking turn after %llu io_uring_enter\n",
           (unsigned long long)(ut_enters(loop) - e1));
    CHECK_EQ(got.calls, 1);
    CHECK_EQ(got.bytes, 1);
    CHECK(ut_enters(loop) - e1 <= 2); /* the completion work, and the re-arm of the poll */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
