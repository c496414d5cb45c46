/* The lab's one way to pool rounds, program side (lab/common/rounds.py is the other
 * side, called by lab/run.py).
 *
 * A benchmark alternates its systems in rounds (system A, B, C, then B, C, A ...), each
 * round a short run of a separate program, so that a ratio holds on a noisy machine.
 * A figure must come from ALL samples of a series in the run, never a best-of-rounds, so
 * each round's record carries its raw distribution and run.py merges the records of one
 * series (same keys but for the figures) into one:
 *
 *   "samples": [x, ...]        every sample (a few thousand at most)
 *   "hist": [[x, count], ...]  a histogram, for series of up to millions of samples
 *   "total": t [, "per": p]    a sum (early_count) or a ratio of sums (CPU ns per wake-up,
 *                              messages per second): value = sum(t) / sum(p)
 *
 * and value = p50 = the median of all samples, p99 = sample floor((n-1)*0.99) of the
 * sorted samples (bench_stats's rule), mean and n over all of them, rounds = records.
 * The round's own p50/p99 printed beside them are for a reader of run.log only.
 */
#ifndef VIGIL_LAB_ROUNDS_H
#define VIGIL_LAB_ROUNDS_H

#include "bench.h"

#include <stdint.h>

/* ---- samples: every value of one series in this round ---- */

struct rounds_samples {
    double *v;
    long n, cap;
};

/* Adds x; the array grows (a series of this kind has a few thousand samples). */
static inline void rounds_add(struct rounds_samples *s, double x)
{
    if (s->n == s->cap) {
        long cap = s->cap ? 2 * s->cap : 1024;
        double *v = (double *)realloc(s->v, (size_t)cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
}

/* A record's identifying keys as a JSON fragment without braces:
 * "bench":..,"system":..,"case":.. and extra (further keys, e.g. "\"fds\":1", or NULL). */
static inline const char *rounds_keys(char *buf, size_t size, const char *bench, const char *system, const char *cas,
                                      const char *extra)
{
    snprintf(buf, size, "\"bench\":\"%s\",\"system\":\"%s\",\"case\":\"%s\"%s%s", bench, system, cas,
             extra && *extra ? "," : "", extra ? extra : "");
    return buf;
}

static inline void rounds_head(const char *keys, const char *metric, const struct bench_stats *st)
{
    printf("{%s,\"metric\":\"%s\",\"value\":%.4f,\"p50\":%.4f,\"p99\":%.4f,\"mean\":%.4f,\"n\":%ld", keys, metric,
           st->p50, st->p50, st->p99, st->mean, st->n);
}

/* Prints one record carrying the samples; keys as rounds_keys() makes them. s is left
 * as it was. */
static inline void rounds_emit_samples(const char *keys, const char *metric, const struct rounds_samples *s)
{
    if (s->n == 0)
        return;
    double *copy = (double *)malloc((size_t)s->n * sizeof *copy);
    if (!copy)
        exit(1);
    memcpy(copy, s->v, (size_t)s->n * sizeof *copy);
    struct bench_stats st = bench_stats(copy, s->n);
    free(copy);
    rounds_head(keys, metric, &st);
    printf(",\"samples\":[");
    for (long i = 0; i < s->n; i++)
        printf("%s%.4g", i ? "," : "", s->v[i]);
    printf("]}\n");
    fflush(stdout);
}

/* ---- histogram: for series of many samples (non-negative integers, e.g. ns) ----
 * 1-unit buckets below 65536, then 128 buckets per octave (0.8% wide, each printed as
 * its middle). */

#define ROUNDS_LIN 65536
#define ROUNDS_SUB 128
#define ROUNDS_SUB_BITS 7
#define ROUNDS_OCT 30

struct rounds_hist {
    uint64_t n;
    double sum;
    uint32_t lin[ROUNDS_LIN];
    uint32_t lg[ROUNDS_OCT][ROUNDS_SUB];
};

static inline void rounds_hist_reset(struct rounds_hist *h)
{
    memset(h, 0, sizeof *h);
}

static inline void rounds_hist_add(struct rounds_hist *h, int64_t v)
{
    if (v < 0)
        v = 0;
    h->n++;
    h->sum += (double)v;
    if (v < ROUNDS_LIN) {
        h->lin[v]++;
        return;
    }
    int top = 63 - __builtin_clzll((unsigned long long)v); /* >= 16 */
    int oct = top - 16;
    if (oct >= ROUNDS_OCT) {
        h->lg[ROUNDS_OCT - 1][ROUNDS_SUB - 1]++;
        return;
    }
    int sub = (int)((v >> (top - ROUNDS_SUB_BITS)) & (ROUNDS_SUB - 1));
    h->lg[oct][sub]++;
}

/* Calls f(value, count, arg) for each non-empty bucket, in increasing value. */
static inline void rounds_hist_each(const struct rounds_hist *h, void (*f)(double, uint32_t, void *), void *arg)
{
    for (int i = 0; i < ROUNDS_LIN; i++)
        if (h->lin[i])
            f((double)i, h->lin[i], arg);
    for (int o = 0; o < ROUNDS_OCT; o++)
        for (int s = 0; s < ROUNDS_SUB; s++)
            if (h->lg[o][s]) {
                int top = o + 16;
                double lo = (double)(1ull << top) + (double)s * (double)(1ull << (top - ROUNDS_SUB_BITS));
                f(lo + 0.5 * (double)(1ull << (top - ROUNDS_SUB_BITS)), h->lg[o][s], arg);
            }
}

struct rounds_rank {
    uint64_t want[2], seen;
    double got[2], div;
};

static inline void rounds_rank_step(double v, uint32_t c, void *arg)
{
    struct rounds_rank *r = (struct rounds_rank *)arg;
    for (int i = 0; i < 2; i++)
        if (r->seen <= r->want[i] && r->want[i] < r->seen + c)
            r->got[i] = v / r->div;
    r->seen += c;
}

struct rounds_print {
    double div;
    int first;
};

static inline void rounds_print_step(double v, uint32_t c, void *arg)
{
    struct rounds_print *p = (struct rounds_print *)arg;
    printf("%s[%.6g,%u]", p->first ? "" : ",", v / p->div, c);
    p->first = 0;
}

/* Prints one record carrying the histogram, every value divided by div (a batch of k
 * changes timed as one sample -> ns per change; ns -> us). */
static inline void rounds_emit_hist(const char *keys, const char *metric, const struct rounds_hist *h, double div)
{
    if (h->n == 0)
        return;
    struct rounds_rank rk = {{h->n / 2, (uint64_t)((double)(h->n - 1) * 0.99)}, 0, {0, 0}, div};
    rounds_hist_each(h, rounds_rank_step, &rk);
    struct bench_stats st = {h->sum / (double)h->n / div, rk.got[0], rk.got[1], 0, 0, (long)h->n};
    rounds_head(keys, metric, &st);
    printf(",\"hist\":[");
    struct rounds_print p = {div, 1};
    rounds_hist_each(h, rounds_print_step, &p);
    printf("]}\n");
    fflush(stdout);
}

/* ---- sums ---- */

/* Prints one record whose figure is total / per over all rounds (per <= 0: a plain sum,
 * e.g. a count of early wake-ups). */
static inline void rounds_emit_total(const char *keys, const char *metric, double total, double per)
{
    printf("{%s,\"metric\":\"%s\",\"value\":%.4f,\"total\":%.17g", keys, metric, per > 0 ? total / per : total, total);
    if (per > 0)
        printf(",\"per\":%.17g", per);
    printf("}\n");
    fflush(stdout);
}

/* ---- options every round-based program shares ---- */

/* "1,8,32" -> {1, 8, 32}; returns the count (at most max). */
static inline int rounds_parse_list(const char *s, int *out, int max)
{
    int n = 0;
    while (s && *s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s)
            break;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

#endif
