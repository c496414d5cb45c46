/* What the programs of a round-based benchmark share beyond rounds.h and count.h: the
 * common options and pipes whose read ends a loop watches (ctl-batch, qemu-loop).
 *
 *   prog --LIST 1,8,32 --ms 200            timed: ms per list entry, records on stdout
 *   prog --LIST 1,8,32 --count N           counting run (lab/common/count.py)
 *
 * Options a program adds are left for it (frame_opts ignores "--key value" pairs it
 * does not know). */
#ifndef VIGIL_LAB_FRAME_H
#define VIGIL_LAB_FRAME_H

#include "rounds.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

struct frame_opts {
    int list[8], nlist; /* the benchmark's parameter values (k, fds ...) */
    int ms;             /* measuring time per value */
    long count;         /* > 0: counting run */
};

static inline struct frame_opts frame_parse(int argc, char **argv, const char *list_opt, int ms)
{
    struct frame_opts o;
    memset(&o, 0, sizeof o);
    o.ms = ms;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], list_opt))
            o.nlist = rounds_parse_list(argv[i + 1], o.list, 8);
        else if (!strcmp(argv[i], "--ms"))
            o.ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--count"))
            o.count = atol(argv[i + 1]);
    }
    if (o.nlist <= 0) {
        fprintf(stderr, "usage: %s %s 1,8,32 [--ms %d | --count N]\n", argv[0], list_opt, ms);
        exit(2);
    }
    return o;
}

/* A program with two cases: 0 for "--case first" (or no --case), 1 for "--case second",
 * -1 (after saying so) for anything else. */
static inline int frame_case(int argc, char **argv, const char *first, const char *second)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--case")) {
            if (!strcmp(argv[i + 1], second))
                return 1;
            if (strcmp(argv[i + 1], first) != 0) {
                fprintf(stderr, "--case %s|%s\n", first, second);
                return -1;
            }
        }
    return 0;
}

/* n non-blocking pipes: rfd[i] its read end, wfd[i] its write end; own (2n entries, or
 * NULL) gets both, the fds whose read/write a counting run leaves out. 0 or exits. */
static inline void frame_pipes(int n, int *rfd, int *wfd, int *own)
{
    for (int i = 0; i < n; i++) {
        int p[2];
        if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0) {
            perror("pipe2");
            exit(1);
        }
        rfd[i] = p[0];
        wfd[i] = p[1];
        if (own) {
            own[2 * i] = p[0];
            own[2 * i + 1] = p[1];
        }
    }
}

static inline void frame_pipes_close(int n, const int *rfd, const int *wfd)
{
    for (int i = 0; i < n; i++) {
        close(rfd[i]);
        close(wfd[i]);
    }
}

/* Watches rfd[0..n) for EPOLLIN in a new epoll set (the raw-call, liburing and
 * vigil programs of ctl-batch and qemu-loop); the epoll fd, or -1 after saying why. */
static inline int frame_epoll_watch(int n, const int *rfd)
{
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        perror("epoll_create1");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, rfd[i], &ev) < 0) {
            perror("epoll_ctl ADD");
            close(epfd);
            return -1;
        }
    }
    return epfd;
}

#endif
