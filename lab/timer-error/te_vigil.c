/* timer-error, system "vigil": a relative MONOTONIC timer re-armed from its own
 * callback, on the loop's defaults (thread timer slack 1 ns, nothing tuned).
 *   --backend uring|epoll|poll   --mode default|precise (VIGIL_TIMER_PRECISE)
 * Error = callback start minus (clock read before vigil_timer_start + delay). */
#include "te.h"

#include "vigil_open.h"

static struct te t;
static int64_t deadline;
static uint32_t flags;

static void cb(vigil_loop *loop, vigil_timer *tm)
{
    int64_t now = bench_now_ns();
    if (te_record(&t, now - deadline))
        return; /* done: nothing active, vigil_loop_run returns */
    deadline = bench_now_ns() + t.delay_ns;
    vigil_timer_start(loop, tm, CLOCK_MONOTONIC, t.delay_ns, 0, flags, cb);
}

int main(int argc, char **argv)
{
    const char *backend = te_opt(argc, argv, "--backend"), *mode = te_opt(argc, argv, "--mode");
    if (!mode)
        mode = "default";
    te_init(&t, argc, argv, "vigil", mode);
    flags = strcmp(mode, "precise") == 0 ? VIGIL_TIMER_PRECISE : 0;
    vigil_loop *loop = lab_vigil_open(backend); /* exits 77 where the backend is not offered */
    t.backend = vigil_loop_backend(loop);
    vigil_timer tm = {0};
    deadline = bench_now_ns() + t.delay_ns;
    int r = vigil_timer_start(loop, &tm, CLOCK_MONOTONIC, t.delay_ns, 0, flags, cb);
    if (r < 0) {
        fprintf(stderr, "vigil_timer_start: %s\n", strerror(-r));
        return 1;
    }
    r = vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_run: %s\n", strerror(-r));
        return 1;
    }
    struct vigil_loop_stats st;
    vigil_loop_stats_get(loop, &st);
    fprintf(stderr, "vigil stats: late p50 %lld p99 %lld max %lld ns, margin %lld ns, spin %llu ns total\n",
            (long long)st.late_p50_ns, (long long)st.late_p99_ns, (long long)st.late_max_ns,
            (long long)st.precise_margin_ns, (unsigned long long)st.precise_spin_ns);
    te_finish(&t);
    vigil_loop_free(loop);
    return 0;
}
