/* The measuring frame of the iteration programs (the classic libevent/libev benchmark):
 * N fds watched for reading (N/2 socketpairs), A of them active; each turn writes one
 * byte to the peer of the next active fd (round robin), runs one blocking loop turn,
 * and the callback reads the byte. One sample = ns per turn over a batch of turns,
 * write and read included (the same for every system).
 *
 * A program defines setup(n, fds, backend) -- watch every fd, calling iter_ready(fd)
 * from the callback -- and turn(). A = 1 and 100 alternate in sub-rounds on one fd set. */
#ifndef VIGIL_LAB_ITER_FRAME_H
#define VIGIL_LAB_ITER_FRAME_H

#include "turns.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#define TURNS 200
#define BATCH_MAX_NS 20000000
#define SUBROUNDS 4
#define MAX_SAMPLES 20000

static const int iter_active[] = {1, 100};
#define N_ACTIVE (int)(sizeof iter_active / sizeof iter_active[0])

static long iter_events; /* callbacks that read their byte */

/* Called by the system's callback for a readable fd. */
static inline void iter_ready(int fd)
{
    char b;
    if (read(fd, &b, 1) == 1)
        iter_events++;
}

struct iter_sys {
    const char *system, *cas;
    char extra[160]; /* JSON keys the program adds (backend, peer_version...) */
    int (*setup)(int n, const int *fds, const char *backend); /* 0, 77 skip, else fail */
    void (*turn)(void);
};

static int *iter_fds;
static int iter_n;

/* Runs batches of turns with `active` active fds for budget_ns; *next is the round robin
 * position, kept across sub-rounds. Returns -1 if a turn did not deliver its event. */
static int iter_measure(const struct iter_sys *sys, int active, int *next, int64_t budget_ns, long min_turns,
                        struct rounds_samples *s)
{
    int stride = iter_n / active;
    int64_t end = bench_now_ns() + budget_ns;
    long done = 0;
    for (;;) {
        long before = iter_events;
        int64_t t0 = bench_now_ns();
        int64_t t1 = 0, batch_end = t0 + BATCH_MAX_NS;
        int i;
        for (i = 0; i < TURNS;) {
            int peer = iter_fds[((*next) * stride) ^ 1];
            if (++*next == active)
                *next = 0;
            if (write(peer, "x", 1) != 1)
                return -1;
            sys->turn();
            /* a slow system (poll of 10000 fds) ends its batch early, so a step stays
             * within its time; the clock is read every 20 turns (~1 ns per turn) */
            if (++i % 20 == 0 && (t1 = bench_now_ns()) >= batch_end)
                break;
        }
        if (i % 20 != 0)
            t1 = bench_now_ns();
        if (iter_events - before != i)
            return -1;
        done += i;
        if (s)
            turns_samples_add(s, (double)(t1 - t0) / i);
        if ((t1 >= end && done >= min_turns) || (s && s->n >= s->cap))
            break;
    }
    return 0;
}

static int iter_main(int argc, char **argv, struct iter_sys *sys)
{
    struct turns_opt o = turns_parse(argc, argv);
    iter_n = o.fds > 0 ? o.fds : 1000;
    if (iter_n % 2 || iter_n < iter_active[N_ACTIVE - 1]) {
        fprintf(stderr, "--fds must be even and at least %d\n", iter_active[N_ACTIVE - 1]);
        return 2;
    }
    if (turns_raise_nofile(iter_n + 64) != 0) {
        fprintf(stderr, "skip: RLIMIT_NOFILE's hard limit is below %d fds\n", iter_n + 64);
        return 77;
    }
    iter_fds = (int *)malloc((size_t)iter_n * sizeof *iter_fds);
    for (int i = 0; iter_fds && i < iter_n; i += 2) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, iter_fds + i) != 0) {
            fprintf(stderr, "socketpair: %s\n", strerror(errno));
            return 1;
        }
    }
    int rc = sys->setup(iter_n, iter_fds, o.backend);
    if (rc != 0)
        return rc;
    struct rounds_samples s[N_ACTIVE];
    int next[N_ACTIVE] = {0};
    for (int a = 0; a < N_ACTIVE; a++) {
        turns_samples_init(&s[a], MAX_SAMPLES);
        /* warm: every active fd has been ready once (the first events of a fd may take
         * a slower path in a library, e.g. a lazily applied registration) */
        if (iter_measure(sys, iter_active[a], &next[a], 5000000, 2, NULL) != 0)
            goto lost;
    }
    for (int r = 0; r < SUBROUNDS; r++)
        for (int a = 0; a < N_ACTIVE; a++) {
            struct rounds_samples part = s[a];
            part.cap = s[a].n + MAX_SAMPLES / SUBROUNDS;
            if (iter_measure(sys, iter_active[a], &next[a], o.budget_ns / SUBROUNDS, 0, &part) != 0)
                goto lost;
            s[a].n = part.n;
        }
    for (int a = 0; a < N_ACTIVE; a++) {
        char extra[256];
        snprintf(extra, sizeof extra, "\"fds\":%d,\"active\":%d%s%s", iter_n, iter_active[a],
                 sys->extra[0] ? "," : "", sys->extra);
        turns_emit("iteration", sys->system, sys->cas, extra, &s[a]);
    }
    return 0;
lost:
    fprintf(stderr, "%s: a turn did not deliver exactly one read event\n", sys->cas);
    return 1;
}

#endif
