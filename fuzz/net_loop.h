/* The loop of a sockets harness (net_fuzz.c, conn_fuzz.c): on the backend an input's
 * configuration bits 0-1 name (0 io_uring, 1 epoll, 2 poll, 3 epoll), or the default
 * where the kernel refuses it (seccomp, a sysctl); timers without slack. Counts the
 * backend it got in count[0..2] (uring, epoll, poll). NULL if no loop can be made. */
#ifndef VIGIL_FUZZ_NET_LOOP_H
#define VIGIL_FUZZ_NET_LOOP_H

#include "vigil.h"

static vigil_loop *fuzz_net_loop(uint8_t cfg, unsigned long count[4])
{
    static const int backends[4] = {VIGIL_BACKEND_URING, VIGIL_BACKEND_EPOLL, VIGIL_BACKEND_POLL, VIGIL_BACKEND_EPOLL};
    struct vigil_loop_options lo;
    vigil_loop_options_init(&lo);
    lo.backend = backends[cfg & 3];
    lo.timer_slack_ns = -1;
    vigil_loop *loop;
    if (vigil_loop_new(&loop, &lo) < 0) {
        lo.backend = VIGIL_BACKEND_AUTO;
        if (vigil_loop_new(&loop, &lo) < 0)
            return NULL;
    }
    const char *bk = vigil_loop_backend(loop);
    count[bk[0] == 'u' ? 0 : bk[0] == 'e' ? 1 : 2]++;
    return loop;
}

#endif
