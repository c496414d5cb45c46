/* Helpers for the io_uring backend's own tests. They read the loop's ring (src/ring),
 * which vigil has only when built with liburing: built without it, ut_loop() skips (77),
 * so the rest of a test is never reached. */
#ifndef VIGIL_UT_H
#define VIGIL_UT_H

#include <stdint.h>

#include "vt.h"
#include "loop/loop.h"
#include "ring/ring.h"

/* A loop on io_uring with its ring; skips (77), with the reason, when the kernel refuses
 * io_uring or vigil was built without liburing. */
static inline vigil_loop *ut_loop(void)
{
#ifdef VIGIL_TEST_HAVE_LIBURING
    vigil_loop *loop = vt_loop_backend(VIGIL_BACKEND_URING);
    CHECK(loop->ring != NULL);
    return loop;
#else
    vt_skip("built without liburing");
    return NULL;
#endif
}

/* The io_uring_enter calls the loop's ring has made (the backend's own counter). */
static inline uint64_t ut_enters(const vigil_loop *loop)
{
#ifdef VIGIL_TEST_HAVE_LIBURING
    return loop->ring->enters;
#else
    (void)loop;
    return 0;
#endif
}

#endif
