/* What the running kernel offers, probed at run time (never trusted from the build):
 * io_uring setup and its operations, epoll_pwait2. Results that do not depend on a ring
 * are cached process-wide. Internal; not installed.
 */
#ifndef VIGIL_PROBE_H
#define VIGIL_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct io_uring;

/* Sets up ring with entries SQ entries and cq_entries CQ entries (0: the kernel's
 * default, twice entries), asking for the setup flags in *flags. Flags the kernel
 * refuses (EINVAL: too old) are dropped one by one, last-listed first; *flags returns
 * what the ring got. On failure returns a negative errno and writes why (e.g.
 * "io_uring_setup: Operation not permitted") into why[0..whylen). */
int vigil__uring_setup(struct io_uring *ring, unsigned entries, unsigned cq_entries, unsigned *flags,
                       char *why, size_t whylen);

/* Tears down a ring set up by vigil__uring_setup. Every ring goes through this pair:
 * liburing maps and unmaps ring memory with raw system calls ThreadSanitizer does not
 * see, so when one thread's new ring lands where another thread's old one was, TSan
 * would take the new owner's first writes for a race with the old owner's last. The
 * pair orders them (a release here, an acquire in setup; one atomic each, per ring). */
void vigil__uring_exit(struct io_uring *ring);

/* 0 when the ring supports every opcode in ops[0..nops), else -ENOSYS and why names the
 * first missing one (or the probe's own failure). */
int vigil__uring_probe_ops(struct io_uring *ring, const uint8_t *ops, int nops, char *why, size_t whylen);

/* Whether this kernel (and its seccomp policy) offers epoll_pwait2 (Linux 5.11). */
bool vigil__have_epoll_pwait2(void);

#endif
