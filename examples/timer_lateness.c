/* Prints how late each wake-up of a timer was: a repeating 10 ms timer (or the period
 * given), in default mode, then in precise mode, then the loop's stats.
 *
 *   timer_lateness [period_us] [count]
 *
 * Lateness = the time the callback starts minus its deadline. It is never negative:
 * vigil never runs a callback early. */
#include <vigil.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct tick {
    vigil_timer t;
    int64_t deadline_ns, period_ns;
    int left;
    const char *mode;
};

static void on_tick(vigil_loop *loop, vigil_timer *t)
{
    struct tick *k = t->data;
    int64_t late = now_ns() - k->deadline_ns;
    printf("%-8s deadline %lld ns: woke %7.2f us late\n", k->mode, (long long)k->deadline_ns, (double)late / 1000.0);
    k->deadline_ns += k->period_ns; /* a repeating timer keeps its phase */
    if (--k->left == 0)
        vigil_timer_stop(loop, t);
}

static int run(vigil_loop *loop, const char *mode, uint32_t flags, int64_t period_ns, int count)
{
    struct tick k = {.period_ns = period_ns, .left = count, .mode = mode};
    k.t.data = &k;
    /* absolute first deadline, so the printed lateness is against exactly that */
    k.deadline_ns = now_ns() + period_ns;
    int r = vigil_timer_start(loop, &k.t, CLOCK_MONOTONIC, k.deadline_ns, period_ns, VIGIL_TIMER_ABS | flags, on_tick);
    if (r < 0)
        return r;
    return vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
}

int main(int argc, char **argv)
{
    int64_t period_ns = (argc > 1 ? atoll(argv[1]) : 10000) * 1000;
    int count = argc > 2 ? atoi(argv[2]) : 10;
    vigil_loop *loop;
    int r = vigil_loop_new(&loop, NULL); /* defaults: timer slack 1 ns on this thread */
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    printf("backend %s, period %lld us\n", vigil_loop_backend(loop), (long long)(period_ns / 1000));
    if ((r = run(loop, "default", 0, period_ns, count)) < 0 || (r = run(loop, "precise", VIGIL_TIMER_PRECISE, period_ns, count)) < 0) {
        fprintf(stderr, "timer: %s\n", strerror(-r));
        return 1;
    }
    struct vigil_loop_stats st;
    vigil_loop_stats_get(loop, &st);
    printf("%llu wake-ups: lateness p50 %.2f us, p99 %.2f us, max %.2f us; precise margin %.1f us, "
           "spin %.1f us per precise wake-up\n",
           (unsigned long long)st.timer_wakeups, st.late_p50_ns / 1000.0, st.late_p99_ns / 1000.0,
           st.late_max_ns / 1000.0, st.precise_margin_ns / 1000.0,
           st.precise_wakeups ? (double)st.precise_spin_ns / 1000.0 / (double)st.precise_wakeups : 0.0);
    vigil_loop_free(loop);
    return 0;
}
