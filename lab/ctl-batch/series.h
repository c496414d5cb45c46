/* Shared by the 2015 benchmarks (ctl-batch, qemu-loop): how one program run hands its
 * samples to lab/ctl-batch/collect.py, and how a counting run marks what strace counts.
 *
 * Why not bench_emit() directly: the systems are measured in rounds (system A, B, C, then
 * A, B, C again ...) so that a ratio holds on a noisy machine, and each round is a
 * separate process (one program per peer). A figure must be the median of ALL samples of
 * a series in the run, not a best-of-rounds, so each process appends a histogram of its
 * samples to one file and collect.py merges the rounds and prints the records.
 *
 * The histogram: 1 ns buckets below 65536 ns, then 128 buckets per octave (0.8% wide);
 * p50/p99 are read from the merged histogram with the same rank rule as bench_stats().
 *
 * Counting runs: the program runs a fixed number of turns between two markers,
 * write(-1, "lab-mark begin <id>") and write(-1, "lab-mark end <id>"), under
 * `strace -f`; collect.py counts the system calls between them. The markers fail with
 * EBADF and cost nothing else; the samples file says what series <id> is and which fds
 * belong to the benchmark itself (their read/write are not the loop's calls).
 */
#ifndef LAB2015_SERIES_H
#define LAB2015_SERIES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SH_LIN 65536
#define SH_SUB 128
#define SH_SUB_BITS 7
#define SH_OCT 30

struct sh_hist {
    uint64_t n;
    double sum;
    uint32_t lin[SH_LIN];
    uint32_t lg[SH_OCT][SH_SUB];
};

static inline void sh_reset(struct sh_hist *h)
{
    memset(h, 0, sizeof *h);
}

static inline void sh_add(struct sh_hist *h, int64_t v)
{
    if (v < 0)
        v = 0;
    h->n++;
    h->sum += (double)v;
    if (v < SH_LIN) {
        h->lin[v]++;
        return;
    }
    int top = 63 - __builtin_clzll((unsigned long long)v); /* >= 16 */
    int oct = top - 16;
    if (oct >= SH_OCT) {
        h->lg[SH_OCT - 1][SH_SUB - 1]++;
        return;
    }
    int sub = (int)((v >> (top - SH_SUB_BITS)) & (SH_SUB - 1));
    h->lg[oct][sub]++;
}

/* Appends one block to path: "series <json>", "sum <s> n <n>", "<value> <count>"..., "end".
 * json is the record's identifying keys (system, case, metric, parameters) and "div": the
 * collector divides every sample by it (a batch of k changes -> ns per change). */
static inline int sh_write(const char *path, const char *json, const struct sh_hist *h)
{
    FILE *f = fopen(path, "a");
    if (!f) {
        perror(path);
        return -1;
    }
    fprintf(f, "series %s\nsum %.0f n %llu\n", json, h->sum, (unsigned long long)h->n);
    for (int i = 0; i < SH_LIN; i++)
        if (h->lin[i])
            fprintf(f, "%d %u\n", i, h->lin[i]);
    for (int o = 0; o < SH_OCT; o++)
        for (int s = 0; s < SH_SUB; s++)
            if (h->lg[o][s]) {
                int top = o + 16;
                double lo = (double)(1ull << top) + (double)s * (double)(1ull << (top - SH_SUB_BITS));
                double mid = lo + 0.5 * (double)(1ull << (top - SH_SUB_BITS));
                fprintf(f, "%.0f %u\n", mid, h->lg[o][s]);
            }
    fprintf(f, "end\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* A counting run: records what series id is (json, as above, with "div" = the number of
 * turns or batches between the markers) and the benchmark's own fds. */
static inline int sh_count_describe(const char *path, int id, const char *json, const int *own_fds, int nown)
{
    FILE *f = fopen(path, "a");
    if (!f) {
        perror(path);
        return -1;
    }
    fprintf(f, "count %d %s\nown", id, json);
    for (int i = 0; i < nown; i++)
        fprintf(f, " %d", own_fds[i]);
    fprintf(f, "\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* The marker strace sees: write(-1, "lab-mark begin 3", 16) = -1 EBADF. */
static inline void sh_mark(const char *what, int id)
{
    char buf[64];
    int len = snprintf(buf, sizeof buf, "lab-mark %s %d", what, id);
    ssize_t r = write(-1, buf, (size_t)len);
    (void)r;
}

/* "1,8,32" -> {1, 8, 32}; returns the count (at most max). */
static inline int sh_parse_list(const char *s, int *out, int max)
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
