/* Timers keep working, never early and without busy waiting, on a kernel that refuses
 * epoll_pwait2 (older than 5.11, or a seccomp policy that has not heard of it): the
 * epoll backend finds ENOSYS at run time and falls back to a timerfd in its set, armed
 * at the absolute deadline. The refusal is a seccomp filter installed in this process
 * only (ENOSYS for epoll_pwait2), as tests/uring/fallback_seccomp.c refuses io_uring.
 * Runs on every backend: uring and poll never call epoll_pwait2 and must not care. */
#include "seccomp.h"
#include "tt.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_epoll_pwait2
#define __NR_epoll_pwait2 441
#endif

/* How many timerfds this process holds. */
static int timerfds(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[300], target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = 0;
            n += strcmp(target, "anon_inode:[timerfd]") == 0;
        }
    }
    closedir(d);
    return n;
}

static int fired;
static int64_t deadline[2];

static void on_timer(vigil_loop *loop, vigil_timer *t)
{
    int i = (int)(intptr_t)t->data;
    CHECK(tt_now(CLOCK_MONOTONIC) >= deadline[i]); /* never early */
    if (++fired == 2)
        vigil_loop_stop(loop);
}

int main(void)
{
    vt_refuse_syscall(__NR_epoll_pwait2, ENOSYS);
    struct timespec ts = {0, 1000};
    CHECK_EQ(syscall(__NR_epoll_pwait2, -1, NULL, 1, &ts, NULL, 0), -1);
    CHECK_EQ(errno, ENOSYS);

    vigil_loop *loop = vt_loop();
    bool epoll = strcmp(vigil_loop_backend(loop), "epoll") == 0;
    int tfds0 = timerfds();

    /* Two sub-millisecond-precision deadlines (a wait rounded to milliseconds would end
     * early or late by up to 1 ms: early shows as extra waits, counted below). */
    vigil_timer t[2] = {{.data = (void *)0}, {.data = (void *)1}};
    const int64_t when[2] = {300 * TT_US, 2500 * TT_US};
    for (int i = 0; i < 2; i++) {
        deadline[i] = tt_now(CLOCK_MONOTONIC) + when[i];
        CHECK_EQ(vigil_timer_start(loop, &t[i], CLOCK_MONOTONIC, when[i], 0, 0, on_timer), 0);
    }
    CHECK(vigil_loop_run(loop, VIGIL_RUN_DEFAULT) >= 0); /* not -ENOSYS */
    CHECK_EQ(fired, 2);

    struct vigil_loop_stats st;
    CHECK_EQ(vigil_loop_stats_get(loop, &st), 0);
    printf("%s: %llu turns, %llu waits, timerfds %d -> %d\n", vigil_loop_backend(loop),
           (unsigned long long)st.turns, (unsigned long long)st.waits, tfds0, timerfds());
    /* one sleep per deadline, a few more at most (a wake-up a little before the
     * deadline waits again for the rest); a busy fallback would make thousands */
    CHECK(st.waits <= 8);
    if (epoll)
        CHECK_EQ(timerfds(), tfds0 + 1); /* the fallback's timerfd, in the epoll set */
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
