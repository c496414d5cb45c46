/* The checks every test program uses: a failed one prints where and what (with errno,
 * which says why when the check was on a failed call) and exits 1. No vigil header, so
 * that the preload tests (programs built against <mqueue.h> only) use them too. */
#ifndef VIGIL_TEST_CHECK_H
#define VIGIL_TEST_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int e_ = errno;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s (errno %d: %s)\n", __FILE__, __LINE__, #cond, \
                    e_, strerror(e_));                                                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            int e_ = errno;                                                                        \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld (errno %d: %s)\n",     \
                    __FILE__, __LINE__, #a, a_, #b, b_, e_, strerror(e_));                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A system call in test set-up that must succeed. */
#define CHECK_SYS(expr)                                                                            \
    do {                                                                                           \
        if ((expr) < 0) {                                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, strerror(errno));        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
