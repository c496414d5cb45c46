/* lab/resolve: what every client program shares: the arguments, the names (h<i>.bench.test,
 * i < names: each asked once per run), the latency samples and the records. Each program
 * keeps `inflight` lookups of A and AAAA (AF_UNSPEC) outstanding until every name was asked
 * once, then prints lookups_per_s, cpu_ns_per_lookup (user + system of the whole client
 * process, threads included: the DNS server's CPU is not the client's) and latency_us. */
#ifndef LAB_RESOLVE_RS_H
#define LAB_RESOLVE_RS_H

#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rs {
    const char *system;
    const char *backend; /* vigil's, or NULL */
    int inflight;
    int names;
    int next;            /* next name to ask */
    int done, failed;
    int64_t t0, cpu0;
    int64_t *start_ns;   /* per name */
    uint32_t *lat_us;    /* per name */
};

static inline void rs_args(struct rs *r, int argc, char **argv, const char *system)
{
    memset(r, 0, sizeof *r);
    r->system = system;
    r->inflight = 100;
    r->names = bench_quick() ? 2000 : 10000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--inflight") == 0)
            r->inflight = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--names") == 0)
            r->names = atoi(argv[i + 1]);
    }
    if (r->inflight < 1)
        r->inflight = 1;
    r->start_ns = calloc((size_t)r->names, sizeof *r->start_ns);
    r->lat_us = calloc((size_t)r->names, sizeof *r->lat_us);
    if (!r->start_ns || !r->lat_us) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static inline void rs_name(int i, char *buf, size_t n)
{
    snprintf(buf, n, "h%d.bench.test", i);
}

static inline void rs_begin(struct rs *r)
{
    r->t0 = bench_now_ns();
    r->cpu0 = bench_cpu_ns();
}

/* Lookup i ended; naddr addresses (each name has one A and one AAAA). */
static inline void rs_end(struct rs *r, int i, int ok, int naddr)
{
    int64_t lat = bench_now_ns() - r->start_ns[i];
    r->lat_us[i] = (uint32_t)(lat / 1000);
    r->done++;
    if (!ok || naddr != 2) {
        if (r->failed++ < 5)
            fprintf(stderr, "%s: h%d.bench.test: %s (%d addresses)\n", r->system, i, ok ? "ok" : "failed", naddr);
    }
}

static int rs_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static inline int rs_report(struct rs *r)
{
    int64_t wall = bench_now_ns() - r->t0;
    int64_t cpu = bench_cpu_ns() - r->cpu0;
    if (r->failed) {
        fprintf(stderr, "%s: %d of %d lookups failed\n", r->system, r->failed, r->names);
        return 1;
    }
    char extra[160];
    snprintf(extra, sizeof extra, "\"inflight\":%d%s%s%s", r->inflight, r->backend ? ",\"backend\":\"" : "",
             r->backend ? r->backend : "", r->backend ? "\"" : "");
    double secs = (double)wall / 1e9;
    bench_emit("resolve", r->system, "A+AAAA", "lookups_per_s", r->names / secs, NULL,
               "%s,\"names\":%d,\"total\":%d,\"per\":%.6f", extra, r->names, r->names, secs);
    bench_emit("resolve", r->system, "A+AAAA", "cpu_ns_per_lookup", (double)cpu / r->names, NULL,
               "%s,\"names\":%d,\"total\":%lld,\"per\":%d", extra, r->names, (long long)cpu, r->names);
    /* Latency: a histogram at 1 us (lab/common/rounds.py pools it over rounds). */
    qsort(r->lat_us, (size_t)r->names, sizeof *r->lat_us, rs_cmp_u32);
    printf("{\"bench\":\"resolve\",\"system\":\"%s\",\"case\":\"A+AAAA\",\"metric\":\"latency_us\",\"value\":%u,"
           "\"p50\":%u,\"p99\":%u,%s,\"names\":%d,\"hist\":[",
           r->system, r->lat_us[r->names / 2], r->lat_us[r->names / 2], r->lat_us[(int)((r->names - 1) * 0.99)], extra,
           r->names);
    int first = 1;
    for (int i = 0; i < r->names;) {
        int j = i;
        while (j < r->names && r->lat_us[j] == r->lat_us[i])
            j++;
        printf("%s[%u,%d]", first ? "" : ",", r->lat_us[i], j - i);
        first = 0;
        i = j;
    }
    printf("]}\n");
    fflush(stdout);
    return 0;
}

#endif
