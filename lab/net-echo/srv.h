/* What net-echo's servers share: the server CLI contract and the listening socket.
 *
 *   PROG PORT    listens on 127.0.0.1:PORT (SO_REUSEADDR), prints "ready" on stdout once
 *                listening, echoes every byte back on each connection, and exits 0 on
 *                SIGTERM or SIGINT.
 *
 * The signals are blocked and delivered through a signalfd that each server watches
 * with its own mechanism (an epoll entry, an io_uring read, a library's signal watcher),
 * so no server takes a system call per turn for them. */
#ifndef NET_ECHO_SRV_H
#define NET_ECHO_SRV_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* The port of argv[1], or exits 2. */
static inline int srv_port(int argc, char **argv)
{
    long port = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (port <= 0 || port > 65535) {
        fprintf(stderr, "usage: %s PORT\n", argv[0]);
        exit(2);
    }
    return (int)port;
}

/* A listening TCP socket on 127.0.0.1:port (flags: SOCK_NONBLOCK or 0), or exits 1. */
static inline int srv_listen(int port, int flags)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
    int one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 4096) < 0) {
        perror("listen");
        exit(1);
    }
    return fd;
}

/* Blocks SIGTERM and SIGINT and returns a signalfd that reads them (flags: SFD_NONBLOCK
 * or 0), or exits 1. Call before any thread starts. */
static inline int srv_signalfd(int flags)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int fd = -1;
    signal(SIGTERM, SIG_DFL); /* a shell starts background jobs with SIGINT ignored: undo it */
    signal(SIGINT, SIG_DFL);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 || (fd = signalfd(-1, &set, SFD_CLOEXEC | flags)) < 0) {
        perror("signalfd");
        exit(1);
    }
    return fd;
}

static inline void srv_ready(void)
{
    printf("ready\n");
    fflush(stdout);
}

#endif
