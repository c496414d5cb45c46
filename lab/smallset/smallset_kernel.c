/* smallset, system "kernel": the raw calls a loop turn makes, on one idle pty fd with a
 * zero timeout -- select(), poll(), ppoll() and epoll_wait(). The 2006 patch measured
 * select of 1 pty fd; these are the figures vigil's turn is held against.
 *
 * The four cases alternate in sub-rounds inside the run, so a burst of noise on the
 * shared machine falls on all of them. One sample = ns per turn over 1000 turns. */
#include "turns.h"

#include <poll.h>
#include <pty.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#define TURNS 1000
#define SUBROUNDS 4
#define MAX_SAMPLES 4000

enum { C_SELECT, C_POLL, C_PPOLL, C_EPOLL, C_N };
static const char *const case_name[C_N] = {"select", "poll", "ppoll", "epoll_wait"};

static int fd, epfd;

static int turn(int c)
{
    switch (c) {
    case C_SELECT: {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(fd, &r);
        struct timeval tv = {0, 0};
        return select(fd + 1, &r, NULL, NULL, &tv);
    }
    case C_POLL: {
        struct pollfd p = {fd, POLLIN, 0};
        return poll(&p, 1, 0);
    }
    case C_PPOLL: {
        struct pollfd p = {fd, POLLIN, 0};
        struct timespec ts = {0, 0};
        return ppoll(&p, 1, &ts, NULL);
    }
    default: {
        struct epoll_event ev[8];
        return epoll_wait(epfd, ev, 8, 0);
    }
    }
}

/* Runs batches of case c for budget_ns; returns -1 if the fd was ever reported ready. */
static int measure(int c, int64_t budget_ns, struct rounds_samples *s)
{
    int64_t end = bench_now_ns() + budget_ns;
    while (s->n < s->cap) {
        int64_t t0 = bench_now_ns();
        int ready = 0;
        for (int i = 0; i < TURNS; i++)
            ready |= turn(c);
        int64_t t1 = bench_now_ns();
        if (ready != 0)
            return -1;
        turns_samples_add(s, (double)(t1 - t0) / TURNS);
        if (t1 >= end)
            break;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct turns_opt o = turns_parse(argc, argv);
    int slave;
    /* The slave stays open so the master is simply idle (not hung up). */
    if (openpty(&fd, &slave, NULL, NULL, NULL) != 0) {
        fprintf(stderr, "skip: openpty: %s\n", strerror(errno));
        return 77;
    }
    epfd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        perror("epoll");
        return 1;
    }
    if (o.count > 0) {
        for (int c = 0; c < C_N; c++) {
            turns_count_begin(c, "smallset", "kernel", case_name[c], "\"fds\":1", o.count);
            for (long i = 0; i < o.count; i++)
                turn(c);
            count_end(c);
        }
        return 0;
    }
    struct rounds_samples s[C_N];
    for (int c = 0; c < C_N; c++) {
        turns_samples_init(&s[c], MAX_SAMPLES);
        struct rounds_samples warm;
        turns_samples_init(&warm, 16);
        measure(c, 5000000, &warm); /* warm caches and the branch predictor */
        free(warm.v);
    }
    for (int r = 0; r < SUBROUNDS; r++)
        for (int c = 0; c < C_N; c++) {
            struct rounds_samples part = s[c];
            part.cap = s[c].n + (MAX_SAMPLES / SUBROUNDS);
            if (measure(c, o.budget_ns / SUBROUNDS, &part) != 0) {
                fprintf(stderr, "%s: the idle pty fd was reported ready\n", case_name[c]);
                return 1;
            }
            s[c].n = part.n;
        }
    for (int c = 0; c < C_N; c++)
        turns_emit("smallset", "kernel", case_name[c], "\"fds\":1", &s[c]);
    return 0;
}
