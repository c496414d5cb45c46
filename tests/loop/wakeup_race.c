/* No wakeup is ever lost: 4 threads each post work and call vigil_loop_wakeup, then wait
 * until on_wakeup (in the loop thread) has taken their work, 20,000 times each, while the
 * loop blocks in RUN_DEFAULT between wakeups. A lost wakeup leaves a thread waiting with
 * the loop asleep: it fails after 5 s. (vigil 0.1 cleared its "wakeup pending" flag
 * before draining the eventfd; a wakeup landing between the two was drained with the
 * flag left set, and every later one was dropped. Python's call_soon_threadsafe from 4
 * threads found it.) */
#include "vt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define THREADS 4
#define ROUNDS 20000

static atomic_long posted, served;
static atomic_int done_threads;

static void on_wakeup(vigil_loop *loop, void *data)
{
    (void)data;
    atomic_store(&served, atomic_load(&posted));
    if (atomic_load(&done_threads) == THREADS)
        vigil_loop_stop(loop);
}

static void never(vigil_loop *loop, vigil_timer *t)
{
    (void)loop, (void)t;
    CHECK(!"the hour-long timer fired");
}
#define NULL_TIMER_CB never

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *poster(void *arg)
{
    vigil_loop *loop = arg;
    for (int i = 0; i < ROUNDS; i++) {
        long mine = atomic_fetch_add(&posted, 1) + 1;
        CHECK_EQ(vigil_loop_wakeup(loop), 0);
        double t0 = now_s();
        while (atomic_load(&served) < mine) {
            if (now_s() - t0 > 5.0) {
                fprintf(stderr, "wakeup lost: round %d, posted %ld, served %ld\n", i, mine, atomic_load(&served));
                exit(1);
            }
            sched_yield();
        }
    }
    atomic_fetch_add(&done_threads, 1);
    CHECK_EQ(vigil_loop_wakeup(loop), 0);
    return NULL;
}

int main(void)
{
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.on_wakeup = on_wakeup;
    vigil_loop *loop = vt_loop_opts(&o);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, poster, loop), 0);
    /* A far timer keeps RUN_DEFAULT blocking (on_wakeup alone does not keep it running). */
    vigil_timer far = {0};
    CHECK_EQ(vigil_timer_start(loop, &far, CLOCK_MONOTONIC, 3600LL * 1000000000, 0, 0, NULL_TIMER_CB), 0);
    CHECK(vigil_loop_run(loop, VIGIL_RUN_DEFAULT) >= 0);
    CHECK_EQ(vigil_timer_stop(loop, &far), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(atomic_load(&served), (long)THREADS * ROUNDS);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
