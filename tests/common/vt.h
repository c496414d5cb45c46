/* Small helpers shared by the test programs. A test is one program per behaviour:
 * exit 0 pass, 1 fail (with the failing check printed), 77 skip (with the reason).
 */
#ifndef VIGIL_TEST_H
#define VIGIL_TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vigil.h"

#define VT_SKIP 77

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define CHECK_EQ(a, b)                                                                  \
    do {                                                                                \
        long long a_ = (long long)(a), b_ = (long long)(b);                             \
        if (a_ != b_) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", __FILE__, \
                    __LINE__, #a, a_, #b, b_);                                          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* A system call in test set-up that must succeed. */
#define CHECK_SYS(expr)                                                                 \
    do {                                                                                \
        if ((expr) < 0) {                                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, strerror(errno)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static inline void vt_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    exit(VT_SKIP);
}

/* A loop on the backend VIGIL_BACKEND names; skips (77) when the kernel refuses it. */
static inline vigil_loop *vt_loop_opts(struct vigil_loop_options *o)
{
    vigil_loop *loop = NULL;
    int r = vigil_loop_new(&loop, o);
    if (r == -ENOSYS || r == -EPERM) {
        const char *b = getenv("VIGIL_BACKEND");
        char why[160];
        snprintf(why, sizeof why, "backend %s not available here: %s", b ? b : "auto", strerror(-r));
        vt_skip(why);
    }
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        exit(1);
    }
    const char *want = getenv("VIGIL_BACKEND");
    if (want && *want && strcmp(want, vigil_loop_backend(loop)) != 0) {
        fprintf(stderr, "asked for backend %s, got %s\n", want, vigil_loop_backend(loop));
        exit(1);
    }
    return loop;
}

static inline vigil_loop *vt_loop(void)
{
    return vt_loop_opts(NULL);
}

#endif
