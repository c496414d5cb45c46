/* A loop created in one thread and run in another (one thread at a time): the io_uring
 * ring binds to the thread of the first turn, not the creator. */
#include "vt.h"

#include <pthread.h>
#include <unistd.h>

static vigil_loop *loop;
static int p[2];
static struct vt_reads got;

static void *runner(void *arg)
{
    (void)arg;
    vt_byte_reaches(loop, p[1], 'x', &got);
    return NULL;
}

int main(void)
{
    loop = vt_loop();
    CHECK_SYS(pipe(p));
    vigil_io w = {.data = &got};
    CHECK_EQ(vigil_io_start(loop, &w, p[0], VIGIL_READ, vt_on_read), 0);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, runner, NULL), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(vigil_io_stop(loop, &w), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
