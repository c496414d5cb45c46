/* The lab's one way to count system calls, program side (lab/common/count.py runs the
 * program under `strace -f` and does the counting).
 *
 * A counting run is separate from the timed runs (strace slows every call): the program,
 * given --count N, makes its set-up and warm-up calls, then for each series
 *
 *   count_begin(id, metric, keys, div, own, nown);   ... N turns, batches or I/Os ...   count_end(id);
 *
 * count_begin prints "count-series <id> <div> {keys}" (and "count-own <id> <fd>..." when
 * the benchmark has fds of its own) on stdout, then a marker system call strace shows:
 * write(-1, "lab-mark begin <id>", ..) = -1 EBADF. count.py counts every call of every
 * thread between the two markers and prints one record per series: keys (bench, system,
 * case, metric, parameters) plus value = calls / div and "calls", the calls by name. A
 * read or write on an fd in `own` is the benchmark making an fd ready, not the measured
 * system: it is listed as bench:read / bench:write and left out of the value.
 */
#ifndef VIGIL_LAB_COUNT_H
#define VIGIL_LAB_COUNT_H

#include <stdio.h>
#include <unistd.h>

static inline void count_mark(const char *what, int id)
{
    char buf[64];
    int len = snprintf(buf, sizeof buf, "lab-mark %s %d", what, id);
    ssize_t r = write(-1, buf, (size_t)len);
    (void)r;
}

/* metric: syscalls_per_turn, _per_batch, _per_io; keys: the record's identifying keys as a
 * JSON fragment without braces (rounds_keys() in rounds.h makes them); div: the turns,
 * batches or I/Os made between the markers. */
static inline void count_begin(int id, const char *metric, const char *keys, long div, const int *own, int nown)
{
    printf("count-series %d %ld {%s,\"metric\":\"%s\"}\n", id, div, keys, metric);
    if (nown > 0) {
        printf("count-own %d", id);
        for (int i = 0; i < nown; i++)
            printf(" %d", own[i]);
        printf("\n");
    }
    fflush(stdout);
    count_mark("begin", id);
}

static inline void count_end(int id)
{
    count_mark("end", id);
}

#endif
