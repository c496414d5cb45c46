/* timer-error: what every program of this benchmark shares. A program measures one
 * series (one system, one case, one requested delay): it asks for a wake-up `delay`
 * after "now" again and again, and records the error of each, the time the callback
 * (or the call's return) starts minus the deadline asked for, signed: negative is an
 * early wake-up.
 *
 *   prog --delay-us D --n N [program options]
 *
 * The program prints this round's records with their samples; run.py pools the rounds
 * (lab/common/rounds.h): error percentiles over all samples, early wake-ups and CPU
 * summed.
 *
 * CPU per wake-up is the process's CPU time (bench_cpu_ns: user + system, every thread)
 * from the end of the warm-up to the last wake-up, divided by the wake-ups.
 */
#ifndef TE_H
#define TE_H

#include "bench.h"
#include "rounds.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>

#define TE_WARM 5 /* first wake-ups (page faults, lazy set-up) are not counted */

struct te {
    const char *system, *cas, *backend;
    int64_t delay_ns;
    long delay_us, n;
    long got, warm;
    int64_t *err_ns;
    int64_t cpu0_ns, cpu_ns;
};

/* Parses the common options; unknown "--key value" pairs are left for the program:
 * te_opt(argc, argv, "--backend") returns the value or NULL. */
static inline const char *te_opt(int argc, char **argv, const char *key)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], key) == 0)
            return argv[i + 1];
    return NULL;
}

static inline void te_init(struct te *t, int argc, char **argv, const char *system, const char *cas)
{
    memset(t, 0, sizeof *t);
    t->system = system;
    t->cas = cas;
    const char *d = te_opt(argc, argv, "--delay-us"), *n = te_opt(argc, argv, "--n");
    t->delay_us = d ? atol(d) : 1000;
    t->delay_ns = t->delay_us * 1000;
    t->n = n ? atol(n) : (bench_quick() ? 200 : 2000);
    t->err_ns = calloc((size_t)t->n, sizeof *t->err_ns);
    if (!t->err_ns) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

/* The delay rounded up to whole milliseconds, for an API that takes only ms. */
static inline int64_t te_ceil_ms(int64_t ns)
{
    return (ns + 999999) / 1000000;
}

/* Records one wake-up; true when the series is complete. */
static inline bool te_record(struct te *t, int64_t err_ns)
{
    if (t->warm < TE_WARM) {
        if (++t->warm == TE_WARM)
            t->cpu0_ns = bench_cpu_ns();
        return false;
    }
    if (t->got < t->n)
        t->err_ns[t->got++] = err_ns;
    if (t->got == t->n) {
        t->cpu_ns = bench_cpu_ns() - t->cpu0_ns;
        return true;
    }
    return false;
}

/* Prints this round's records (lab/common/rounds.h; run.py pools the rounds): error_us
 * with every sample (us), early_count (a sum) and cpu_ns_per_wakeup (CPU of all rounds
 * / their wake-ups). */
static inline void te_finish(struct te *t)
{
    char extra[96], keys[512];
    snprintf(extra, sizeof extra, "\"delay_us\":%ld%s%s%s", t->delay_us, t->backend ? ",\"backend\":\"" : "",
             t->backend ? t->backend : "", t->backend ? "\"" : "");
    rounds_keys(keys, sizeof keys, "timer-error", t->system, t->cas, extra);
    struct rounds_samples err = {0, 0, 0};
    long early = 0;
    for (long i = 0; i < t->got; i++) {
        rounds_add(&err, (double)t->err_ns[i] / 1000.0);
        early += t->err_ns[i] < 0;
    }
    rounds_emit_samples(keys, "error_us", &err);
    rounds_emit_total(keys, "early_count", (double)early, 0);
    rounds_emit_total(keys, "cpu_ns_per_wakeup", (double)t->cpu_ns, (double)t->got);
    fprintf(stderr, "%s %s%s%s delay %ld us: %ld wake-ups, %ld early, slack %d ns\n", t->system, t->cas,
            t->backend ? " " : "", t->backend ? t->backend : "", t->delay_us, t->got, early,
            prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
    free(err.v);
    free(t->err_ns);
}

#endif
