/* timer-error: what every program of this benchmark shares. A program measures one
 * series (one system, one case, one requested delay): it asks for a wake-up `delay`
 * after "now" again and again, and records the error of each, the time the callback
 * (or the call's return) starts minus the deadline asked for, signed: negative is an
 * early wake-up.
 *
 *   prog --delay-us D --n N [--raw FILE] [program options]
 *
 * With --raw the samples of this round are appended to FILE as one JSON line and
 * merge.py pools the rounds (error percentiles over all samples, early wake-ups and
 * CPU summed) into the records. Without it the program prints its records itself.
 */
#ifndef TE_H
#define TE_H

#include "bench.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>

#define TE_WARM 5 /* first wake-ups (page faults, lazy set-up) are not counted */

struct te {
    const char *system, *cas, *backend, *raw;
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
    t->raw = te_opt(argc, argv, "--raw");
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

static inline void te_finish(struct te *t)
{
    char be[64] = "";
    if (t->backend)
        snprintf(be, sizeof be, ",\"backend\":\"%s\"", t->backend);
    if (t->raw) {
        FILE *f = fopen(t->raw, "a");
        if (!f) {
            perror(t->raw);
            exit(1);
        }
        fprintf(f, "{\"system\":\"%s\",\"case\":\"%s\"%s,\"delay_us\":%ld,\"cpu_ns\":%lld,\"errs_ns\":[", t->system,
                t->cas, be, t->delay_us, (long long)t->cpu_ns);
        for (long i = 0; i < t->got; i++)
            fprintf(f, "%s%lld", i ? "," : "", (long long)t->err_ns[i]);
        fprintf(f, "]}\n");
        fclose(f);
    } else {
        double *v = malloc((size_t)(t->got ? t->got : 1) * sizeof *v);
        long early = 0;
        for (long i = 0; i < t->got; i++) {
            v[i] = (double)t->err_ns[i] / 1000.0;
            early += t->err_ns[i] < 0;
        }
        struct bench_stats s = bench_stats(v, t->got);
        bench_emit("timer-error", t->system, t->cas, "error_us", s.p50, &s, "\"delay_us\":%ld%s", t->delay_us, be);
        bench_emit("timer-error", t->system, t->cas, "early_count", (double)early, NULL, "\"delay_us\":%ld%s",
                   t->delay_us, be);
        bench_emit("timer-error", t->system, t->cas, "cpu_ns_per_wakeup", t->got ? (double)t->cpu_ns / (double)t->got : 0,
                   NULL, "\"delay_us\":%ld%s", t->delay_us, be);
        free(v);
    }
    long early = 0;
    for (long i = 0; i < t->got; i++)
        early += t->err_ns[i] < 0;
    fprintf(stderr, "%s %s%s%s delay %ld us: %ld wake-ups, %ld early, slack %d ns\n", t->system, t->cas,
            t->backend ? " " : "", t->backend ? t->backend : "", t->delay_us, t->got, early,
            prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
    free(t->err_ns);
}

#endif
