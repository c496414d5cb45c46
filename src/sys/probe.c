/* What the running kernel offers. A binary built where a feature exists may run where
 * it is missing (an older kernel) or refused (seccomp: Docker's default profile refuses
 * io_uring_setup with EPERM; kernel.io_uring_disabled=2 does the same; =1 refuses
 * processes outside io_uring_group), so everything here asks the kernel itself.
 */
#include "sys/probe.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef VIGIL_HAVE_LIBURING
#include <liburing.h>

/* Setup flags newer than the uapi header liburing 2.3 ships; kernel values. */
#ifndef IORING_SETUP_SUBMIT_ALL
#define IORING_SETUP_SUBMIT_ALL (1U << 7)
#endif

/* Keeps the flag set one the kernel can accept: DEFER_TASKRUN needs SINGLE_ISSUER,
 * TASKRUN_FLAG needs COOP_TASKRUN or DEFER_TASKRUN. */
static unsigned consistent(unsigned f)
{
    if ((f & IORING_SETUP_DEFER_TASKRUN) && !(f & IORING_SETUP_SINGLE_ISSUER))
        f &= ~IORING_SETUP_DEFER_TASKRUN;
    if ((f & IORING_SETUP_TASKRUN_FLAG) && !(f & (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN)))
        f &= ~IORING_SETUP_TASKRUN_FLAG;
    return f;
}

/* See vigil__uring_exit: orders a torn-down ring's last use before the next ring's first. */
static atomic_uint ring_epoch;

void vigil__uring_exit(struct io_uring *ring)
{
    atomic_fetch_add_explicit(&ring_epoch, 1, memory_order_release);
    io_uring_queue_exit(ring);
}

int vigil__uring_setup(struct io_uring *ring, unsigned entries, unsigned cq_entries, unsigned *flags,
                       char *why, size_t whylen)
{
    /* Newest first: a kernel that refuses a flag (EINVAL) is older than it, so the
     * flags it may still take are the older ones. */
    static const unsigned drop_order[] = {
        IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_TASKRUN_FLAG,
        IORING_SETUP_COOP_TASKRUN, IORING_SETUP_SUBMIT_ALL, IORING_SETUP_CLAMP, ~0u,
    };
    unsigned f = consistent(*flags);
    size_t next = 0;
    for (;;) {
        struct io_uring_params p;
        memset(&p, 0, sizeof p);
        p.flags = f;
        if (cq_entries) {
            p.flags |= IORING_SETUP_CQSIZE;
            p.cq_entries = cq_entries;
        }
        int r = io_uring_queue_init_params(entries, ring, &p);
        if (r == 0) {
            (void)atomic_load_explicit(&ring_epoch, memory_order_acquire);
            *flags = f;
            /* liburing 2.3 fills the SQ index array with the identity at setup, but
             * older copies filled it per submission; fill it here so our own
             * submission path (which only moves the tail) is right with either. */
            for (unsigned i = 0; i < ring->sq.ring_entries; i++)
                ring->sq.array[i] = i;
            return 0;
        }
        if (r != -EINVAL || f == 0) {
            snprintf(why, whylen, "io_uring_setup: %s", strerror(-r));
            return r;
        }
        while (next < sizeof drop_order / sizeof drop_order[0] && !(f & drop_order[next]))
            next++;
        if (next == sizeof drop_order / sizeof drop_order[0]) {
            snprintf(why, whylen, "io_uring_setup: %s", strerror(-r));
            return r;
        }
        f = consistent(f & ~drop_order[next]);
    }
}

static const char *op_name(uint8_t op)
{
    switch (op) {
    case IORING_OP_POLL_ADD: return "POLL_ADD";
    case IORING_OP_POLL_REMOVE: return "POLL_REMOVE";
    case IORING_OP_ASYNC_CANCEL: return "ASYNC_CANCEL";
    case IORING_OP_EPOLL_CTL: return "EPOLL_CTL";
    case IORING_OP_TIMEOUT: return "TIMEOUT";
    case IORING_OP_LINK_TIMEOUT: return "LINK_TIMEOUT";
    case IORING_OP_READ: return "READ";
    case IORING_OP_WRITE: return "WRITE";
    default: return NULL;
    }
}

int vigil__uring_probe_ops(struct io_uring *ring, const uint8_t *ops, int nops, char *why, size_t whylen)
{
    struct io_uring_probe *p = io_uring_get_probe_ring(ring);
    if (!p) {
        snprintf(why, whylen, "IORING_REGISTER_PROBE refused (kernel older than 5.6)");
        return -ENOSYS;
    }
    int r = 0;
    for (int i = 0; i < nops; i++) {
        if (!io_uring_opcode_supported(p, ops[i])) {
            const char *n = op_name(ops[i]);
            if (n)
                snprintf(why, whylen, "io_uring lacks IORING_OP_%s", n);
            else
                snprintf(why, whylen, "io_uring lacks opcode %u", (unsigned)ops[i]);
            r = -ENOSYS;
            break;
        }
    }
    io_uring_free_probe(p);
    return r;
}

#else /* !VIGIL_HAVE_LIBURING */

int vigil__uring_setup(struct io_uring *ring, unsigned entries, unsigned cq_entries, unsigned *flags,
                       char *why, size_t whylen)
{
    (void)ring; (void)entries; (void)cq_entries; (void)flags;
    snprintf(why, whylen, "built without liburing");
    return -ENOSYS;
}

int vigil__uring_probe_ops(struct io_uring *ring, const uint8_t *ops, int nops, char *why, size_t whylen)
{
    (void)ring; (void)ops; (void)nops;
    snprintf(why, whylen, "built without liburing");
    return -ENOSYS;
}

#endif

bool vigil__have_epoll_pwait2(void)
{
    /* 0 unknown, 1 yes, 2 no. Racing first calls compute the same answer. */
    static atomic_int known;
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
#ifdef SYS_epoll_pwait2
        /* A bad fd: EBADF where the call exists, ENOSYS (or seccomp's EPERM) where not. */
        long r = syscall(SYS_epoll_pwait2, -1, NULL, 1, NULL, NULL, (size_t)8);
        k = (r < 0 && errno == EBADF) ? 1 : 2;
#else
        k = 2;
#endif
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 1;
}
