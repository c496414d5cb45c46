/* vigil_loop_free stops an mq watcher still started, as it forgets every other watcher:
 * the helper thread (fallback backends) is joined, the queue's watcher count drops back,
 * and the caller's struct reads as stopped. */
#include "mqt.h"
#include "mq/mq_int.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

static int threads(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void *idle(void *arg)
{
    return arg;
}

static void on_msg(vigil_loop *loop, vigil_mq_watch *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/f", 8, 16);
    /* ThreadSanitizer's runtime starts a thread of its own at the first pthread_create:
     * create one first, so only the watchers' helpers are counted below. */
    pthread_t first;
    CHECK_EQ(pthread_create(&first, NULL, idle, NULL), 0);
    CHECK_EQ(pthread_join(first, NULL), 0);
    int before = threads();
    vigil_loop *loop = vt_loop();
    vigil_mq_watch w[3] = {{0}};
    for (int i = 0; i < 3; i++)
        CHECK_EQ(vigil_mq_watch_start(loop, &w[i], q, VIGIL_READ, on_msg), 0);
    CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
    bool threaded = vigil_mq_watch_threaded(&w[0]);
    printf("backend %s, %s\n", vigil_loop_backend(loop), threaded ? "helper threads" : "no thread");
    if (threaded)
        CHECK_EQ(threads(), before + 3);
    CHECK_EQ(vigil_mq_watch_stop(loop, &w[1]), 0); /* one stopped by hand first */
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(threads(), before);
    for (int i = 0; i < 3; i++)
        CHECK(!vigil_mq_watch_active(&w[i]));
    /* Nobody watches the queue now: a send wakes no one (the count is 0 again). */
    CHECK_EQ(atomic_load(&vigil__mq_get(q)->h->watchers), 0);
    CHECK_EQ(vigil_mq_close(q), 0);
    return 0;
}
