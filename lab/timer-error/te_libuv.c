/* timer-error, system "libuv": uv_timer_start takes whole milliseconds, so it is asked
 * for the delay rounded up to ms; the error is measured against the delay wanted. The
 * timer is re-armed from its callback, as a periodic user would (libuv counts it from
 * its cached loop time). */
#include "te.h"

#include <uv.h>

static struct te t;
static int64_t deadline;
static uint64_t ms;

static void cb(uv_timer_t *tm)
{
    int64_t now = bench_now_ns();
    if (te_record(&t, now - deadline))
        return;
    deadline = bench_now_ns() + t.delay_ns;
    uv_timer_start(tm, cb, ms, 0);
}

int main(int argc, char **argv)
{
    te_init(&t, argc, argv, "libuv", "timer");
    ms = (uint64_t)te_ceil_ms(t.delay_ns);
    uv_loop_t *loop = uv_default_loop();
    uv_timer_t tm;
    uv_timer_init(loop, &tm);
    deadline = bench_now_ns() + t.delay_ns;
    uv_timer_start(&tm, cb, ms, 0);
    uv_run(loop, UV_RUN_DEFAULT);
    te_finish(&t);
    return 0;
}
