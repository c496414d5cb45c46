/* timer-error, system "kernel", case "spin": the pure-spin reference. The thread never
 * sleeps: it reads CLOCK_MONOTONIC until the clock reaches the deadline. Its error (the
 * first clock read at or past the deadline, minus the deadline) is the best precision
 * this machine allows, at the price of a whole CPU: its cpu_ns_per_wakeup is about the
 * delay itself. What is left of the error is the clock read's own cost and the times
 * the thread was preempted. Same records as te_kernel (te.h). */
#include "te.h"

int main(int argc, char **argv)
{
    struct te t;
    te_init(&t, argc, argv, "kernel", "spin");
    for (;;) {
        int64_t deadline = bench_now_ns() + t.delay_ns, now;
        while ((now = bench_now_ns()) < deadline)
            ;
        if (te_record(&t, now - deadline))
            break;
    }
    te_finish(&t);
    return 0;
}
