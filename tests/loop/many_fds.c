/* 10,000 watched fds: all registered in one turn's batch (more than any ring holds),
 * every one reports when it becomes ready, a few ready among many idle ones report
 * alone, and all of them stop cleanly. */
#include "vt.h"

#include <sys/eventfd.h>
#include <unistd.h>

#define N 10000

static int fds[N];
static vigil_io w[N];
static int calls[N];
static int total;

static void on_ready(vigil_loop *l, vigil_io *io, int ev)
{
    (void)l;
    CHECK(ev & VIGIL_READ);
    int i = (int)(intptr_t)io->data;
    uint64_t v;
    CHECK(read(fds[i], &v, sizeof v) == sizeof v);
    calls[i]++;
    total++;
}

int main(void)
{
    vt_nofile_at_least(N + 100);
    vigil_loop *loop = vt_loop();
    for (int i = 0; i < N; i++) {
        fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        CHECK_SYS(fds[i]);
        w[i].data = (void *)(intptr_t)i;
        CHECK_EQ(vigil_io_start(loop, &w[i], fds[i], VIGIL_READ, on_ready), 0);
    }
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(total, 0);

    /* A few ready among 10,000 idle. */
    const int few[] = {0, 17, 4999, 9999};
    uint64_t one = 1;
    for (int k = 0; k < 4; k++)
        CHECK(write(fds[few[k]], &one, sizeof one) == sizeof one);
    while (total < 4)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(total, 4);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(calls[few[k]], 1);

    /* All ready at once: each reports exactly once (the events span many turns). */
    for (int i = 0; i < N; i++)
        CHECK(write(fds[i], &one, sizeof one) == sizeof one);
    while (total < N + 4)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(total, N + 4);
    for (int i = 0; i < N; i++)
        CHECK(calls[i] == 1 || calls[i] == 2);

    for (int i = 0; i < N; i++)
        CHECK_EQ(vigil_io_stop(loop, &w[i]), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < N; i++)
        close(fds[i]);
    return 0;
}
