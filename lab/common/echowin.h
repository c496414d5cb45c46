/* What the lab's echo clients (net-echo's client.c, py-tls-echo's tls_echo_client.c)
 * share: their command line and start (echowin_setup) and their
 * timed window (echowin_measure): after the warm-up, S seconds of the client's closed
 * loops, then the records, with the keys: requests_per_s (requests / seconds),
 * server_cpu_ns_per_request (the CPU time of every thread of process PID over the
 * window, from /proc/PID/task/<tid>/schedstat, ns / requests), rtt_us (the round trips'
 * histogram) and client_busy (this process's CPU time / wall time: near 1 means the
 * client, not the server, may be the limit), as rounds.h's totals and histograms.
 */
#ifndef VIGIL_LAB_ECHOWIN_H
#define VIGIL_LAB_ECHOWIN_H

#include "rounds.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The echo clients' command line: --port P --conns N --msg-bytes M --seconds S
 * [--warmup W] [--cpu C] --pid PID --keys K, or (net-echo's counting run) --count N. */
struct echowin_opts {
    int port, conns, cpu, pid;
    unsigned msg;
    long count; /* -1: a timed run */
    double seconds, warmup;
    const char *keys;
};

/* Parses argv into o, checks it (usage on stderr: prog's, with --count where count_ok,
 * a message of at most max_msg bytes), then starts the run: an alarm well past its end
 * (never hang a lab run), the CPU pinned. -1 when the command line is wrong. */
static inline int echowin_setup(int argc, char **argv, struct echowin_opts *o, const char *prog, int count_ok,
                                unsigned max_msg)
{
    static const struct option opts[] = {{"port", 1, 0, 'p'},    {"conns", 1, 0, 'c'},   {"msg-bytes", 1, 0, 'm'},
                                         {"seconds", 1, 0, 's'}, {"warmup", 1, 0, 'w'},  {"cpu", 1, 0, 'C'},
                                         {"pid", 1, 0, 'P'},     {"keys", 1, 0, 'k'},    {"count", 1, 0, 'n'},
                                         {0, 0, 0, 0}};
    *o = (struct echowin_opts){.cpu = -1, .count = -1, .seconds = 1, .warmup = 0.2};
    for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        switch (c) {
        case 'p': o->port = atoi(optarg); break;
        case 'c': o->conns = atoi(optarg); break;
        case 'm': o->msg = (unsigned)atoi(optarg); break;
        case 's': o->seconds = atof(optarg); break;
        case 'w': o->warmup = atof(optarg); break;
        case 'C': o->cpu = atoi(optarg); break;
        case 'P': o->pid = atoi(optarg); break;
        case 'k': o->keys = optarg; break;
        case 'n': o->count = atol(optarg); break;
        default: return -1;
        }
    }
    bool timed = o->count < 0;
    if (o->port <= 0 || o->conns <= 0 || o->msg == 0 || o->msg > max_msg || (!timed && !count_ok) ||
        (timed && (!o->keys || o->pid <= 0))) {
        fprintf(stderr, "usage: %s --port P --conns N --msg-bytes M %s\n", prog,
                count_ok ? "(--seconds S --pid PID --keys K | --count N)" : "--seconds S --pid PID --keys K");
        return -1;
    }
    alarm((unsigned)(o->warmup + o->seconds) + 60);
    if (o->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o->cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    return 0;
}

/* CPU time of every thread of process pid, ns (sum of /proc/pid/task/<tid>/schedstat);
 * -1 when the folder cannot be read. */
static inline int64_t echowin_proc_cpu_ns(int pid)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int64_t sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[320];
        snprintf(p, sizeof p, "/proc/%d/task/%s/schedstat", pid, e->d_name);
        FILE *f = fopen(p, "r");
        long long ns = 0;
        if (f) {
            if (fscanf(f, "%lld", &ns) != 1)
                ns = 0;
            fclose(f);
        }
        sum += ns;
    }
    closedir(d);
    return sum;
}

static inline int64_t echowin_self_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* Resets *done_reqs and hist, runs run_until(the window's end), prints the records.
 * Returns the process's exit status: 1 (with the reason on stderr, prog's name first)
 * when the server's CPU cannot be read or no request completed. */
static inline int echowin_measure(const char *prog, const char *keys, int pid, double seconds,
                                  void (*run_until)(int64_t end), long *done_reqs, struct rounds_hist *hist)
{
    rounds_hist_reset(hist);
    *done_reqs = 0;
    int64_t s0 = echowin_proc_cpu_ns(pid), c0 = echowin_self_cpu_ns(), t0 = bench_now_ns();
    run_until(t0 + (int64_t)(seconds * 1e9));
    int64_t t1 = bench_now_ns(), c1 = echowin_self_cpu_ns(), s1 = echowin_proc_cpu_ns(pid);
    if (s0 < 0 || s1 < 0) {
        fprintf(stderr, "%s: cannot read the server's /proc/PID/task: %s\n", prog, strerror(errno));
        return 1;
    }
    long reqs = *done_reqs;
    double wall = (double)(t1 - t0), n = (double)reqs;
    fprintf(stderr, "%s: %ld requests in %.3f s: %.0f/s, server %.0f ns/request, client busy %.2f\n", prog, reqs,
            wall / 1e9, n / (wall / 1e9), reqs ? (double)(s1 - s0) / n : 0.0, (double)(c1 - c0) / wall);
    if (reqs == 0) {
        fprintf(stderr, "%s: no request completed in the window: %s\n", prog, strerror(ETIMEDOUT));
        return 1;
    }
    rounds_emit_total(keys, "requests_per_s", n, wall / 1e9);
    rounds_emit_total(keys, "server_cpu_ns_per_request", (double)(s1 - s0), n);
    rounds_emit_hist(keys, "rtt_us", hist, 1000.0);
    rounds_emit_total(keys, "client_busy", (double)(c1 - c0), wall);
    return 0;
}

#endif
