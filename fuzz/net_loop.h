/* What the sockets harnesses share (net_fuzz.c, conn_fuzz.c).
 * fail(): prints "FUZZ_NAME: message" and aborts (libFuzzer keeps the input); the
 * harness defines FUZZ_NAME before it includes this file.
 * fuzz_nops(): how many op records an input holds.
 * fuzz_net_loop(): the loop of a sockets harness, on the backend an input's
 * configuration bits 0-1 name (0 io_uring, 1 epoll, 2 poll, 3 epoll), or the default
 * where the kernel refuses it (seccomp, a sysctl); timers without slack. Counts the
 * backend it got in count[0..2] (uring, epoll, poll). NULL if no loop can be made. */
#ifndef VIGIL_FUZZ_NET_LOOP_H
#define VIGIL_FUZZ_NET_LOOP_H

#include "vigil.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, FUZZ_NAME ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* How many 4-byte op records follow an input's configuration byte, at most max. */
static inline size_t fuzz_nops(size_t size, size_t max)
{
    size_t n = size > 0 ? (size - 1) / 4 : 0;
    return n < max ? n : max;
}

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
