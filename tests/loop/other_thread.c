/* A loop created in one thread and run in another (one thread at a time): the io_uring
 * ring binds to the thread of the first turn, not the creator. */
#include "vt.h"

#include <pthread.h>
#include <unistd.h>

static vigil_loop *loop;
static int p[2];
static int calls;

static void on_ev(vigil_loop *l, vigil_io *w, int ev)
{
    (void)l;
    CHECK(ev & VIGIL_READ);
    char b;
    CHECK(read(w->fd, &b, 1) == 1);
    calls++;
}

static void *runner(void *arg)
{
    (void)arg;
    CHECK_SYS(write(p[1], "x", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(calls, 1);
    return NULL;
}

int main(void)
{
    loop = vt_loop();
    CHECK_SYS(pipe(p));
    vigil_io w = {0};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, on_ev), 0);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, runner, NULL), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
