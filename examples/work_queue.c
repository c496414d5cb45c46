/* Counts the primes below N in 16 slices on the loop's work pool, while a job that
 * blocks (a 300 ms sleep standing in for a slow library call) runs beside them marked
 * VIGIL_WORK_SLOW, and a 50 ms timer shows the loop stays free the whole time.
 *
 *   ./work_queue [N]        (default 2000000; VIGIL_WORK_THREADS=n sizes the pool)
 *
 * Each slice is a struct of the program's own with its vigil_work inside: nothing is
 * allocated per job. fn runs on a pool thread and writes only its own slice; the
 * completion callback runs in the loop thread and adds it up. */
#include <vigil.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICES 16

struct slice {
    vigil_work w;
    long lo, hi;  /* [lo, hi) */
    long primes;  /* fn's result */
};

static long total, left;
static int ticks;

static void count_primes(vigil_work *w)
{
    struct slice *s = w->data;
    for (long n = s->lo < 2 ? 2 : s->lo; n < s->hi; n++) {
        int prime = 1;
        for (long d = 2; d * d <= n; d++)
            if (n % d == 0) {
                prime = 0;
                break;
            }
        s->primes += prime;
    }
}

static void slice_done(vigil_loop *loop, vigil_work *w, int status)
{
    struct slice *s = w->data;
    if (status == 0)
        total += s->primes;
    if (--left == 0)
        vigil_loop_stop(loop);
}

static void slow_call(vigil_work *w)
{
    (void)w;
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void slow_done(vigil_loop *loop, vigil_work *w, int status)
{
    (void)w;
    printf("the slow call returned (status %d) after %d ticks\n", status, ticks);
    if (--left == 0)
        vigil_loop_stop(loop);
}

static void tick(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    (void)t;
    ticks++;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    vigil_loop *loop;
    int r = vigil_loop_new(&loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    static struct slice slices[SLICES];
    for (int i = 0; i < SLICES; i++) {
        slices[i].w.data = &slices[i];
        slices[i].lo = n * i / SLICES;
        slices[i].hi = n * (i + 1) / SLICES;
        if ((r = vigil_work_submit(loop, &slices[i].w, count_primes, slice_done, 0)) < 0) {
            fprintf(stderr, "vigil_work_submit: %s\n", strerror(-r));
            return 1;
        }
        left++;
    }
    static vigil_work slow;
    if ((r = vigil_work_submit(loop, &slow, slow_call, slow_done, VIGIL_WORK_SLOW)) < 0) {
        fprintf(stderr, "vigil_work_submit: %s\n", strerror(-r));
        return 1;
    }
    left++;
    vigil_timer t = {0};
    vigil_timer_start(loop, &t, CLOCK_MONOTONIC, 50000000, 50000000, 0, tick);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_timer_stop(loop, &t);
    struct vigil_work_stats st;
    vigil_work_stats_get(loop, &st);
    printf("%ld primes below %ld; %d timer ticks meanwhile; %u pool threads, %llu jobs, %llu loop wake-ups\n", total,
           n, ticks, st.threads, (unsigned long long)st.jobs, (unsigned long long)st.wakeups);
    vigil_loop_free(loop);
    return 0;
}
