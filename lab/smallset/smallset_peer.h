/* The measuring frame of the smallset programs of the loop libraries: open one idle
 * pty, let the program watch it for reading with its library, then time batches of
 * 1000 non-blocking turns. The program defines setup() and turn(). */
#ifndef VIGIL_LAB_SMALLSET_PEER_H
#define VIGIL_LAB_SMALLSET_PEER_H

#include "turns.h"

#include <pty.h>
#include <unistd.h>

#define TURNS 1000
#define MAX_SAMPLES 4000

/* Set by the watcher's callback: the idle fd must never be reported ready. */
static int smallset_fired;

static void smallset_run(int argc, char **argv, const char *system, const char *cas, const char *extra,
                         int (*setup)(int fd, const char *backend), void (*turn)(void))
{
    struct turns_opt o = turns_parse(argc, argv);
    int fd, slave;
    /* The slave stays open so the master is simply idle (not hung up). */
    if (openpty(&fd, &slave, NULL, NULL, NULL) != 0) {
        fprintf(stderr, "skip: openpty: %s\n", strerror(errno));
        exit(77);
    }
    int rc = setup(fd, o.backend);
    if (rc == 77)
        exit(77);
    if (rc != 0)
        exit(1);
    if (o.count > 0) {
        for (int i = 0; i < 1000; i++)
            turn(); /* past the first turns, which may register the fd */
        turns_count_begin(0, "smallset", system, cas, extra, o.count);
        for (long i = 0; i < o.count; i++)
            turn();
        count_end(0);
        return;
    }
    struct rounds_samples s;
    turns_samples_init(&s, MAX_SAMPLES);
    for (int64_t end = bench_now_ns() + 5000000; bench_now_ns() < end;)
        turn(); /* warm caches and the branch predictor */
    int64_t end = bench_now_ns() + o.budget_ns;
    while (s.n < s.cap) {
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < TURNS; i++)
            turn();
        int64_t t1 = bench_now_ns();
        turns_samples_add(&s, (double)(t1 - t0) / TURNS);
        if (t1 >= end)
            break;
    }
    if (smallset_fired) {
        fprintf(stderr, "%s: the idle pty fd was reported ready\n", cas);
        exit(1);
    }
    /* The turns measured must really watch the fd: make it readable and check that
     * non-blocking turns report it (the pty hands data over through a work queue, so
     * it may take a few turns). */
    if (write(slave, "x", 1) != 1) {
        perror("write to the pty");
        exit(1);
    }
    for (int64_t give_up = bench_now_ns() + 2000000000; !smallset_fired && bench_now_ns() < give_up;)
        turn();
    if (!smallset_fired) {
        fprintf(stderr, "%s: a readable pty fd was never reported by non-blocking turns\n", cas);
        exit(1);
    }
    turns_emit("smallset", system, cas, extra, &s);
}

#endif
