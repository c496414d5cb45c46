/* vigil_loop_wakeup from another thread ends a blocking wait and runs on_wakeup in the loop
 * thread; wakeups before the loop runs coalesce into one call. */
#include "vt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int woken;
static pthread_t loop_thread;

static void on_wakeup(vigil_loop *loop, void *data)
{
    (void)loop;
    CHECK(data == &woken);
    CHECK(pthread_equal(pthread_self(), loop_thread));
    atomic_fetch_add(&woken, 1);
}

static void *waker(void *arg)
{
    vigil_loop *loop = arg;
    usleep(20000);
    CHECK_EQ(vigil_loop_wakeup(loop), 0);
    return NULL;
}

int main(void)
{
    loop_thread = pthread_self();
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.on_wakeup = on_wakeup;
    o.data = &woken;
    vigil_loop *loop = vt_loop_opts(&o);
    CHECK(vigil_loop_data(loop) == &woken);

    /* A blocking turn with nothing else to wait for returns once woken. */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, waker, loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0);
    pthread_join(t, NULL);
    CHECK_EQ(atomic_load(&woken), 1);

    /* Coalescing. */
    for (int i = 0; i < 5; i++)
        CHECK_EQ(vigil_loop_wakeup(loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0);
    CHECK_EQ(atomic_load(&woken), 2);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(atomic_load(&woken), 2);

    /* Many wakeups from several threads while the loop turns: none lost at the end. */
    CHECK_EQ(vigil_loop_wakeup(loop), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 0);
    CHECK_EQ(atomic_load(&woken), 3);

    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
