/* io_uring backend: placeholder until the io_uring issue lands; refuses, so the loop
 * falls back to epoll. */
#include "loop.h"

#include <errno.h>
#include <stdio.h>

static int uring_init(struct vigil_loop *loop)
{
    snprintf(loop->bk_reason, sizeof loop->bk_reason, "io_uring backend not built yet");
    return -ENOSYS;
}

static void uring_fini(struct vigil_loop *loop) { (void)loop; }

static int uring_turn(struct vigil_loop *loop, const int *dirty, int ndirty, const struct vigil__wait *w)
{
    (void)loop; (void)dirty; (void)ndirty; (void)w;
    return -ENOSYS;
}

const struct vigil__backend vigil__backend_uring = {
    .name = "uring", .init = uring_init, .fini = uring_fini, .turn = uring_turn,
};
