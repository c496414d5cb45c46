/* Async file I/O, the io_uring engine: a request becomes one SQE of the loop's ring
 * (src/ring), so the turn's file submissions reach the kernel in the same io_uring_enter
 * as its interest changes and its wait; the completion comes back as an op completion
 * at the turn's completion point, in the loop thread. No eventfd, no thread -- except
 * for the file-system calls the route table (ROUTES, below) keeps off the ring: those
 * go to the thread pool (engine_threads.c), started with its doorbell on first use.
 *
 * Registered files and buffers are the ring's own (io_uring_register_files/buffers):
 * a VIGIL_FILE_FIXED_FILE request skips the per-request file lookup, a
 * VIGIL_FILE_FIXED_BUF one the per-request page pinning of O_DIRECT.
 *
 * A cached file's open, read and close run inline in io_uring_enter (none goes to
 * io-wq). Counted 2026-12-02 (lab/fs-ops read: open + read 4 KiB + close of 10,000
 * cached files; perf stat tracepoints, strace -c -f): 3 enters per operation at one in
 * flight, 519 enters for 33,000 calls at 64, no io-wq hand-off, exactly as the
 * hand-written liburing program (which uses no registered files or buffers either);
 * the difference is this library's own path, ~175 ns of user time per operation
 * (three calls) against liburing's ~80 at 64 in flight (perf record -e cpu-clock: be_turn,
 * uring_submit, vigil_file_submit, the callbacks), 2-4% of the operation's CPU; in
 * instructions (callgrind, 7,000 operations at 64 in flight, the same driver in
 * both): 1,083 of user code per operation against 432, the most in uring_submit (103
 * per call) and vigil_file_submit (96: the checks, the state, the engine's indirect
 * call). In five
 * to seven alternating rounds (load average 4-5) the whole-process CPU per operation was
 * 1.08x liburing's at one in flight and 1.12x at 64, with ops/s spreading 1.5-2x
 * between rounds of one program. Counted again at one in flight (2026-12-02, the same
 * driver, callgrind over 7,000 operations, the untimed set-up included in both): 1,823
 * user instructions per operation against liburing's 545; still 3 enters, 3 SQEs and 3
 * completions per operation each, none to io-wq (strace -c -f; perf stat tracepoints
 * io_uring_submit_req, io_uring_complete, io_uring_queue_async_work). The kernel's
 * share is the same; the gap is this library's user code, at a high IPC (~900
 * instructions, ~150 ns, ~4% of the operation's CPU). Taken since: vigil_file_start's
 * one-request path, open and close in check_fast, a one-request branch of
 * uring_submit (since merged into the batch path below, which takes n = 1 in one room
 * check), the enter inline (ring.h): 1,456 per operation (read at 64 in flight:
 * 1,084 -> 859; create at one 1,949 -> 1,583; stat, unlink, rename -3%). Alternated in
 * one process (lab/fs-ops/fo_read_ab.c, eight runs of 300 pairs of 500 operations):
 * vigil/liburing ops/s median 0.960 (0.943-0.968), 0.931 (0.923-0.947) before; CPU per
 * operation 1.044 (1.034-1.060), 1.071 before. Tried and dropped: a turn that skips
 * vigil__turn's tests when nothing but the ring is active (-11 instructions a turn,
 * not measurable: 0.954), its step 2 inlined (GCC then outlined reap and submit_wait:
 * +4 a turn), submit_one apart from the batch path (-1), liburing with this ring's
 * sizes (1024 SQEs, 4096 CQEs: the same CPU per operation). Taken next (ONE, below):
 * vigil_file_start calls this engine's one-request fill directly, 1,476 -> 1,361 user
 * instructions per operation (liburing's loop 369; callgrind, fo_read_ab, 5,500
 * operations a side); ten alternating runs of fo_read_ab (300 pairs of 500 operations
 * each), the library before and after: vigil/liburing ops/s median 0.956 (0.944-0.982)
 * -> 0.962 (0.939-0.991), CPU per operation 1.046 (1.019-1.062) -> 1.038 (1.009-1.065).
 * What is left per turn (three per operation) is the loop's: be_turn 126 instructions
 * and vigil__run's turn 91, against liburing's io_uring_submit_and_wait 42.
 *
 * vigil_loop_free cancels every request in the kernel and waits for each completion
 * before the pool's memory goes. Pool requests are found in the pool's chunks; the
 * caller's own requests are kept on a list (f->engine_state) -- so the pool's steady state pays
 * for no list at all.
 */
#include "file/file_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef VIGIL_HAVE_LIBURING
#include <liburing.h>

#define container_of_op(p) ((struct vigil__freq *)(void *)((char *)(p) - offsetof(struct vigil__freq, uop)))

struct uring_state {
    vigil_file_req *head; /* the caller's requests in the kernel (inext/iprev) */
    unsigned nkernel;     /* all requests in the kernel */
    /* By op (the file-system calls): true if it goes to the ring, false to threads. */
    bool ring[VIGIL_FILE_SENDFILE + 1];
};

/* IORING_OP_FTRUNCATE (Linux 6.9) is newer than this liburing (2.3) and the system's
 * <linux/io_uring.h>: prepared by hand with the kernel's number. */
#define OP_FTRUNCATE 55

/* ROUTES. Which file-system calls the io_uring engine puts on the ring and which it
 * gives to the file engine's threads. A call goes to the ring only where io_uring has
 * an operation for it (probed at init) and the ring is not slower than the threads.
 * Most of these operations never run inline in io_uring_enter: the kernel hands every
 * one to an io-wq worker thread (REQ_F_FORCE_ASYNC), so the ring saves the hand-off to
 * a user thread but pays for the kernel's own. Measured with lab/fs-ops ("route:" ops:
 * 10,000 files in one directory on ext4, uring engine with VIGIL_FILE_FS_ROUTE=ring vs
 * =threads; ops/s and CPU us per op of the whole process, io-wq workers included;
 * inflight 1 / 64; 2-core VM, kernel 6.18, 2026-11-27, a loaded machine: +-30%):
 *
 *   call       ring: ops/s  CPU/op         threads: ops/s  CPU/op         decision
 *   unlink     56k / 71k    15.7 / 13.6    17.5k / 95k     45.8 / 15.1    ring
 *              30k / 82k    15.4 / 12.7    15.0k / 56k     36.3 / 15.5    (2nd round)
 *   rename     14.7k / 19.5k 24.1 / 21.5   13.3k / 22.3k   41.2 / 20.8    ring
 *              12.6k / 40k  27.4 / 23.5    9.8k / 15.9k    39.1 / 19.9    (2nd round)
 *   mkdir      16.3k / 25.2k 28.1 / 31.1   4.7k / 5.8k     108 / 76       ring
 *   symlink    1.0k / 2.2k  376 / 316      2.9k / 2.7k     433 / 455      ring (CPU)
 *   link       49k / 66k    13.6 / 10.1    12.4k / 93k     29.5 / 11.1    ring
 *   ftruncate  135k / 379k  7.4 / 2.6      91k / 122k      11.1 / 8.2     ring
 *   fallocate  67k / 425k   6.6 / 2.4      46k / 120k      10.4 / 8.4     ring
 *   splice     not measured (fs-ops has no splice)                        ring: io_uring has it
 *
 * The ring costs less CPU per call at one in flight (one io-wq hand-off against the
 * pool's two wake-ups, futex and eventfd) and is as fast or faster at 64; where the
 * threads won a round on ops/s (unlink and link at 64) the next round reversed it. The
 * QUICK lab run of 20261127T200058Z agreed at one in flight (ring 1.6-4x the ops/s at
 * 0.5-0.7x the CPU) and at 64 for mkdir, symlink, ftruncate, fallocate, link, but had
 * the threads ahead for unlink (65k vs 41k ops/s) and rename (52k vs 26k) at 64 at
 * equal CPU: within this loaded machine's noise; to be measured again quietly.
 *
 * Measured again at one in flight, 2026-12-02 03:30 (fs-ops, 10,000 files on ext4,
 * five alternating rounds of four programs, load average 3.6-5.0 on the 2 cores; medians
 * of the rounds' p50, min-max; ops/s, CPU us per op):
 *
 *   unlink  ring 82.7k (52k-100k) at 13.9 (9.8-16.3); threads route 56.3k (37k-61k)
 *           at 20.2 (15.0-21.3); liburing 82.6k (31k-129k) at 16.6; libuv (4) 36.6k
 *           (24k-45k) at 25.5 (21.1-29.1)
 *   rename  ring 43.1k (20.7k-83.6k) at 16.9 (13.3-18.7); threads engine 28.9k
 *           (25.5k-41.8k) at 23.1; liburing 57.7k (41.4k-60.2k) at 17.3 (14.2-19.9);
 *           libuv (4) 18.4k (15.1k-32.1k) at 37.0
 *
 * and counted per rename (perf stat, tracepoints; a pass of 10,000 + a warm-up of
 * 1,000): ring 1 io_uring_enter, 1 io-wq hand-off (io_uring_queue_async_work), 2
 * context switches, no futex -- the hand-written liburing loop exactly the same; the
 * threads route 1 enter + 3 futex + 1 eventfd write + 1 read, 2.5 switches; libuv 3.7
 * futex + 1 write + 1 read, 3.1 switches. The ring stays: the fewest calls and the
 * least CPU; its ops/s at one in flight is the two wake-ups' latency, which spreads
 * 2-4x between passes here (liburing with this backend's SINGLE_ISSUER | DEFER_TASKRUN
 * against a plain ring: 0.80x in one set of five rounds, 1.36x in the next seven).
 *
 * No io_uring operation: readlink, truncate (by path), chmod, chown, utimes, readdir (no
 * getdents op), mkdtemp, copy_file_range, sendfile: always threads.
 *
 * stat (IORING_OP_STATX) is not in the table: always the ring. The kernel forces it to
 * io-wq too (REQ_F_FORCE_ASYNC), so at one in flight every stat is one hand-off to a
 * kernel worker and back, for vigil as for a hand-written liburing loop. Measured
 * 2026-11-27 (fs-ops, 10,000 cached files on ext4, 2-core VM, kernel 6.18): quiet,
 * ring 178k ops/s at 5.6 us CPU/op, hand-written liburing 162k at 6.2, threads 53k at
 * 26-35; three interleaved rounds under load, ring 43k/52k/60k at 20/15/13 us, liburing
 * 61k/46k/65k at 15/21/12, threads 32k/42k/42k at 25/21/20, libuv (4 threads)
 * 23k/18k/27k at 34/41/29; at 64 in flight (lab run 20261127T203825Z) ring 673k at 2.3
 * us, threads 604k at 3.1. Both ring programs make one io_uring_enter per stat (strace
 * -f -c), and in one process, alternating blocks of 10,000 stats at one in flight
 * (lab/fs-ops/fo_ring_ab.c), a plain ring and one with SINGLE_ISSUER | DEFER_TASKRUN |
 * TASKRUN_FLAG (this backend's flags) ran 100k vs 101k, 157k vs 180k and 76.3k vs 76.6k
 * ops/s; IOSQE_ASYNC against none 0.75-1.46x the ops/s in five runs (no direction) at
 * CPU per op within 10%: nothing in the submission path to gain. At one in flight ops/s is the two
 * wake-ups' latency, which a shared 2-core guest sets (vigil/liburing 0.68-1.36x in
 * rounds a minute apart, CPU per op 0.92x in each). The threads route costs two user
 * thread wake-ups (futex, eventfd) and 1.3-6x the CPU: not taken. Doing the stat in the
 * loop thread (1.5 us when cached) would block the loop on a cold inode: not taken as
 * such. What is taken instead (2026-11-28, src/file/stat_inline.c, every engine): a
 * stat that is the only file request in flight is tried in the loop thread with
 * openat2(RESOLVE_CACHED), which fails with EAGAIN rather than wait for anything (a
 * dentry not cached, a revalidation), then statx on the O_PATH fd, kept only on local
 * file systems (whose getattr reads the in-memory inode); anything else comes here as
 * before, and so does every stat while others are in flight (at 64 the io-wq workers run
 * them in parallel: ring 608k/s against one core's 472k/s). Measured 2026-11-28 02:47
 * (fs-ops stat, 10,000 cached files on ext4, three interleaved rounds, shared machine;
 * ops/s, CPU us per op): at one in flight vigil uring 296k-333k at 3.0-3.3, aio
 * 336k-339k at 2.9-3.0, threads 299k-340k at 2.9-3.3; the same uring engine with
 * VIGIL_FILE_STAT_INLINE=0 47k-170k at 5.9-16.5; liburing 134k-159k at 6.3-6.6;
 * libuv (4 threads) 20k-53k at 19-37; plain statx in one thread 592k-624k at 1.6. At 64
 * in flight (never inline): uring 494k-558k at 2.8-3.1 (=0: 493k-611k at 2.1-2.9),
 * liburing 445k-458k at 2.3-3.0, libuv 130k-326k at 5.2-7.7. */
static const struct fs_route {
    uint8_t op;
    uint8_t ring_op; /* the io_uring opcode */
    bool ring;       /* the decision (when the kernel has ring_op) */
} fs_routes[] = {
    {VIGIL_FILE_UNLINK, IORING_OP_UNLINKAT, true},
    {VIGIL_FILE_RENAME, IORING_OP_RENAMEAT, true},
    {VIGIL_FILE_MKDIR, IORING_OP_MKDIRAT, true},
    {VIGIL_FILE_SYMLINK, IORING_OP_SYMLINKAT, true},
    {VIGIL_FILE_LINK, IORING_OP_LINKAT, true},
    {VIGIL_FILE_FTRUNCATE, OP_FTRUNCATE, true},
    {VIGIL_FILE_FALLOCATE, IORING_OP_FALLOCATE, true},
    {VIGIL_FILE_SPLICE, IORING_OP_SPLICE, true},
};

/* Fills st->ring from the table, the kernel's probe and VIGIL_FILE_FS_ROUTE (ring:
 * every call the kernel has on the ring, threads: none; for measuring the table). */
static void routes_init(vigil_loop *loop, struct uring_state *st)
{
    const char *env = getenv("VIGIL_FILE_FS_ROUTE");
    int force = env && strcmp(env, "ring") == 0 ? 1 : env && strcmp(env, "threads") == 0 ? 2 : 0;
    struct io_uring_probe *p = io_uring_get_probe_ring(&loop->ring->ring);
    for (size_t i = 0; i < sizeof fs_routes / sizeof fs_routes[0]; i++) {
        const struct fs_route *rt = &fs_routes[i];
        bool have = p && rt->ring_op <= p->last_op && (p->ops[rt->ring_op].flags & IO_URING_OP_SUPPORTED);
        st->ring[rt->op] = have && (force == 1 || (force == 0 && rt->ring));
    }
    if (p)
        io_uring_free_probe(p);
}

static void uring_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t cqe_flags);

static void list_add(struct uring_state *st, vigil_file_req *req)
{
    struct vigil__freq *fr = vigil__freq(req);
    fr->iprev = NULL;
    fr->inext = st->head;
    if (st->head)
        vigil__freq(st->head)->iprev = req;
    st->head = req;
}

static void list_del(struct uring_state *st, vigil_file_req *req)
{
    struct vigil__freq *fr = vigil__freq(req);
    if (fr->iprev)
        vigil__freq(fr->iprev)->inext = fr->inext;
    else
        st->head = fr->inext;
    if (fr->inext)
        vigil__freq(fr->inext)->iprev = fr->iprev;
    fr->inext = fr->iprev = NULL;
}

/* Fills sqe for req (its user_data is the caller's: vigil__ring_op_prep or, in a batch,
 * vigil__ring_op_set). */
static inline __attribute__((always_inline)) void fill(vigil_file_req *req, struct io_uring_sqe *sqe)
{
    struct vigil__freq *fr = vigil__freq(req);
    bool fixed = req->flags & VIGIL_FILE_FIXED_FILE;
    int fd = req->fd; /* with IOSQE_FIXED_FILE, the index in the ring's file table */
    unsigned len = req->len > VIGIL__FILE_MAX_RW ? VIGIL__FILE_MAX_RW : (unsigned)req->len;
    /* offset >= 0 was checked at submission: io_uring would take -1 as "the current
     * position", and a pipe's offset 0 reads in stream order as read(2) does. */
    uint64_t off = (uint64_t)req->offset;
    /* Reads first, outside the switch: the common request skips its jump table. */
    if (req->op == VIGIL_FILE_READ) {
        if (req->flags & VIGIL_FILE_FIXED_BUF)
            io_uring_prep_read_fixed(sqe, fd, req->buf, len, off, req->buf_index);
        else
            io_uring_prep_read(sqe, fd, req->buf, len, off);
    } else switch (req->op) {
    case VIGIL_FILE_WRITE:
        if (req->flags & VIGIL_FILE_FIXED_BUF)
            io_uring_prep_write_fixed(sqe, fd, req->buf, len, off, req->buf_index);
        else
            io_uring_prep_write(sqe, fd, req->buf, len, off);
        break;
    case VIGIL_FILE_READV: io_uring_prep_readv(sqe, fd, req->iov, (unsigned)req->len, off); break;
    case VIGIL_FILE_WRITEV: io_uring_prep_writev(sqe, fd, req->iov, (unsigned)req->len, off); break;
    case VIGIL_FILE_FSYNC: io_uring_prep_fsync(sqe, fd, 0); break;
    case VIGIL_FILE_FDATASYNC: io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC); break;
    case VIGIL_FILE_OPEN: io_uring_prep_openat(sqe, fd, req->path, req->arg, (mode_t)req->mode); break;
    case VIGIL_FILE_CLOSE: io_uring_prep_close(sqe, fd); break;
    case VIGIL_FILE_STAT: io_uring_prep_statx(sqe, fd, req->path, req->arg, req->mode, req->stx); break;
    /* The file-system calls the route table sends here. */
    case VIGIL_FILE_UNLINK: io_uring_prep_unlinkat(sqe, fd, req->path, req->arg); break;
    case VIGIL_FILE_RENAME:
        io_uring_prep_renameat(sqe, fd, req->path, req->fd2, req->path2, (unsigned)req->arg);
        break;
    case VIGIL_FILE_MKDIR: io_uring_prep_mkdirat(sqe, fd, req->path, (mode_t)req->mode); break;
    case VIGIL_FILE_SYMLINK: io_uring_prep_symlinkat(sqe, req->path, fd, req->path2); break;
    case VIGIL_FILE_LINK: io_uring_prep_linkat(sqe, fd, req->path, req->fd2, req->path2, req->arg); break;
    case VIGIL_FILE_FTRUNCATE: io_uring_prep_rw(OP_FTRUNCATE, sqe, fd, NULL, 0, (uint64_t)req->offset); break;
    case VIGIL_FILE_FALLOCATE: io_uring_prep_fallocate(sqe, fd, req->arg, (off_t)req->offset, (off_t)req->arg64); break;
    case VIGIL_FILE_SPLICE:
        /* -1: no offset (a pipe's end), as the ring's SPLICE reads it */
        io_uring_prep_splice(sqe, fd, req->offset, req->fd2, req->arg64, req->len, (unsigned)req->arg);
        break;
    default: io_uring_prep_nop(sqe); break; /* refused at submission: never here */
    }
    if (fixed)
        sqe->flags |= IOSQE_FIXED_FILE;
    fr->uop.complete = uring_complete;
    fr->route = VIGIL__ROUTE_URING;
}

/* Queues req alone (a retry, or a batch larger than the ring's room). False when the
 * ring is full and cannot be flushed. */
static bool queue(vigil_loop *loop, vigil_file_req *req)
{
    struct io_uring_sqe *sqe = vigil__ring_sqe(loop->ring);
    if (!sqe)
        return false;
    fill(req, sqe);
    vigil__ring_op_prep(loop->ring, sqe, &vigil__freq(req)->uop);
    return true;
}

/* The ring is broken (full and cannot be flushed): end the request through the
 * doorbell (never inside submit). */
static void fail_later(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    if (vigil__file_bell_init(loop, f) < 0) {
        vigil__file_complete(loop, f, req, -ENOSYS); /* last resort */
        return;
    }
    vigil__freq(req)->route = VIGIL__ROUTE_DONE;
    vigil__file_defer(f, req, -ENOSYS);
}

/* The end of a request the ring completed: off the list of the caller's requests, then
 * its callback. */
static inline __attribute__((always_inline)) void finish(vigil_loop *loop, vigil_file_req *req, int32_t res)
{
    struct vigil__file *f = vigil__file_of(loop);
    struct uring_state *st = f->engine_state;
    if (!vigil__freq(req)->pooled)
        list_del(st, req);
    st->nkernel--;
    vigil__file_complete(loop, f, req, res);
}

/* A failed completion: a transient failure (EAGAIN, EINTR) of a request that may be
 * retried goes again, the same SQE in this turn's next submission; anything else ends.
 * Out of line and cold, so that the common completion keeps nothing but the loop across
 * the callback (inlined, it made every completion save and restore six registers:
 * callgrind). */
static __attribute__((noinline, cold)) void complete_error(vigil_loop *loop, vigil_file_req *req, int32_t res)
{
    struct vigil__file *f = vigil__file_of(loop);
    if ((res == -EAGAIN || res == -EINTR) && vigil__file_op_retries(req->op) && !vigil__freq_cancelled(req) &&
        !f->freeing && vigil__freq_retry(req) && queue(loop, req))
        return;
    finish(loop, req, res);
}

static void uring_complete(vigil_loop *loop, struct vigil__ring_op *op, int32_t res, uint32_t cqe_flags)
{
    (void)cqe_flags;
    vigil_file_req *req = vigil__freq_req(container_of_op(op));
    if (__builtin_expect(res < 0, 0))
        complete_error(loop, req, res);
    else
        finish(loop, req, res);
}

/* Hands reqs[0..n) to the thread pool (started on first use, with the doorbell). */
static void to_threads(vigil_loop *loop, struct vigil__file *f, vigil_file_req *const *reqs, int n)
{
    int r = vigil__file_bell_init(loop, f);
    if (r < 0) {
        for (int i = 0; i < n; i++)
            fail_later(loop, f, reqs[i]);
        return;
    }
    if (!f->thr && (r = vigil__fthr_init(f, f->nthreads)) < 0) {
        for (int i = 0; i < n; i++) {
            vigil__freq(reqs[i])->route = VIGIL__ROUTE_DONE;
            vigil__file_defer(f, reqs[i], r);
        }
        return;
    }
    vigil__fthr_submit(f, reqs, n);
}

/* Requests one by one: the ring may fill (then it is flushed: one more enter). */
static __attribute__((noinline)) void submit_each(vigil_loop *loop, struct vigil__file *f, struct uring_state *st,
                                                  vigil_file_req *const *reqs, int n)
{
    vigil_file_req *thr[64]; /* the batch's requests for the threads: one queue lock */
    int nthr = 0;
    unsigned nkernel = 0; /* counted here, stored once: fewer loads and stores per request */
    for (int i = 0; i < n; i++) {
        vigil_file_req *req = reqs[i];
        if (req->op >= VIGIL_FILE_UNLINK && !st->ring[req->op]) {
            thr[nthr++] = req;
            if (nthr == (int)(sizeof thr / sizeof thr[0])) {
                to_threads(loop, f, thr, nthr);
                nthr = 0;
            }
            continue;
        }
        if (queue(loop, req)) {
            nkernel++;
            if (!vigil__freq(req)->pooled)
                list_add(st, req);
        } else
            fail_later(loop, f, req);
    }
    st->nkernel += nkernel;
    if (nthr)
        to_threads(loop, f, thr, nthr);
}

/* BATCH. A group whose requests all go to the ring and fit in its free slots (the
 * common case: the ring has 1024, a turn's file requests are far fewer) takes its slots
 * in one step (vigil__ring_batch); anything else goes one by one (submit_each). Counted
 * 2026-12-02 (callgrind, lab/file-batch's shape: 8 KiB reads at depth 256 in groups of
 * 32): uring_submit was 66 instructions per request, much of it the ring's bookkeeping
 * per slot (room, tail, mask, the in-flight count, the ring pointer read again after
 * each SQE store); 53 with the batch's slots taken at once. A single request (n = 1)
 * takes this path too: the same SQE, one room check. */
static void uring_submit(vigil_loop *loop, struct vigil__file *f, vigil_file_req *const *reqs, int n)
{
    struct uring_state *st = f->engine_state;
    struct vigil__ring *ring = loop->ring;
    if (__builtin_expect((unsigned)n > vigil__ring_room(ring), 0)) {
        submit_each(loop, f, st, reqs, n);
        return;
    }
    struct vigil__ring_batch b = vigil__ring_batch(ring);
    /* by pointer, the count from the ring's tails: fewer values live across fill */
    vigil_file_req *const *p = reqs, *const *end = reqs + n;
    for (; p != end; p++) {
        vigil_file_req *req = *p;
        if (__builtin_expect(req->op >= VIGIL_FILE_UNLINK && !st->ring[req->op], 0))
            break; /* a call for the threads: the rest goes one by one */
        struct io_uring_sqe *sqe = vigil__ring_batch_next(&b);
        fill(req, sqe);
        vigil__ring_op_set(sqe, &vigil__freq(req)->uop);
        if (!vigil__freq(req)->pooled)
            list_add(st, req);
    }
    vigil__ring_batch_end(ring, &b);
    st->nkernel += (unsigned)(p - reqs);
    if (p != end)
        submit_each(loop, f, st, p, (int)(end - p));
}

/* ONE. vigil_file_start's request (file_int.h): uring_submit's work for n = 1 without
 * its loop, in a function that calls nothing on its common path, so it saves no
 * registers (uring_submit, a loop around the SQE's fill, pushed and popped six). Counted
 * 2026-12-02 (callgrind, lab/fs-ops/fo_read_ab: open + read 4 KiB + close at one in
 * flight, three requests per operation): vigil_file_start + uring_submit were 154
 * instructions per request. A read, a write, an open or a close (all check_fast
 * passes) never goes to the threads, so the route table is not read here. */
void vigil__file_uring_start(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    struct uring_state *st = f->engine_state;
    struct vigil__ring *ring = loop->ring;
    if (__builtin_expect(vigil__ring_room(ring) == 0, 0)) {
        submit_each(loop, f, st, &req, 1);
        return;
    }
    struct vigil__ring_batch b = vigil__ring_batch(ring);
    struct io_uring_sqe *sqe = vigil__ring_batch_next(&b);
    fill(req, sqe);
    vigil__ring_op_set(sqe, &vigil__freq(req)->uop);
    vigil__ring_batch_end(ring, &b);
    st->nkernel++;
    if (!vigil__freq(req)->pooled)
        list_add(st, req);
}

static int uring_cancel(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    struct vigil__freq *fr = vigil__freq(req);
    struct uring_state *st = f->engine_state;
    /* A file-system call on the threads (told by its op: its route is the workers' to
     * change, under the pool's lock). */
    if (req->op >= VIGIL_FILE_UNLINK && !st->ring[req->op]) {
        if (f->thr)
            return vigil__fthr_cancel(f, req);
        fr->ctl_bits |= VIGIL__FREQ_CANCEL; /* the pool never started: it ends through the doorbell */
        return 0;
    }
    fr->ctl_bits |= VIGIL__FREQ_CANCEL;
    if (fr->route == VIGIL__ROUTE_URING)
        vigil__ring_cancel(loop->ring, &fr->uop); /* the op still completes, -ECANCELED or done */
    return 0;
}

static int uring_init(vigil_loop *loop, struct vigil__file *f)
{
    if (!loop->ring) {
        snprintf(f->reason, sizeof f->reason, "loop backend is %s, not uring", vigil_loop_backend(loop));
        return -ENOSYS;
    }
    struct uring_state *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    f->engine_state = st;
    routes_init(loop, st);
    return 0;
}

static void uring_fini(vigil_loop *loop, struct vigil__file *f)
{
    struct uring_state *st = f->engine_state;
    if (!st)
        return;
    /* Cancel what the kernel holds, then let the ring deliver every completion (a
     * regular file's read finishes; a pipe's read is cancelled). The pool's memory and
     * the callers' requests stay untouched after this returns. */
    for (vigil_file_req *r = st->head; r; r = vigil__freq(r)->inext)
        uring_cancel(loop, f, r);
    for (struct vigil__pool_chunk *c = f->chunks; c; c = c->next)
        for (int i = 0; i < VIGIL__POOL_BATCH; i++)
            if (vigil__freq_route(&c->reqs[i]) == VIGIL__ROUTE_URING &&
                vigil__freq(&c->reqs[i])->state == VIGIL__FREQ_INFLIGHT)
                uring_cancel(loop, f, &c->reqs[i]);
    while (st->nkernel) {
        if (vigil__ring_drain(loop, loop->ring) < 0)
            break; /* the ring is broken: closing it (backend fini) ends the rest */
    }
    /* The file-system calls on the threads: queued ones are refused, running ones end
     * (their callbacks run from the doorbell's drain, vigil__file_bell_fini). */
    if (f->thr)
        vigil__fthr_fini(f);
    free(st);
    f->engine_state = NULL;
}

static int uring_register_files(vigil_loop *loop, const int *fds, unsigned n)
{
    return io_uring_register_files(&loop->ring->ring, fds, n);
}

static int uring_unregister_files(vigil_loop *loop)
{
    return io_uring_unregister_files(&loop->ring->ring);
}

static int uring_register_buffers(vigil_loop *loop, const struct iovec *iov, unsigned n)
{
    return io_uring_register_buffers(&loop->ring->ring, iov, n);
}

static int uring_unregister_buffers(vigil_loop *loop)
{
    return io_uring_unregister_buffers(&loop->ring->ring);
}

const struct vigil__file_engine vigil__file_engine_uring = {
    .name = "uring",
    .init = uring_init,
    .fini = uring_fini,
    .submit = uring_submit,
    .cancel = uring_cancel,
    .reap = NULL,
    .register_files = uring_register_files,
    .unregister_files = uring_unregister_files,
    .register_buffers = uring_register_buffers,
    .unregister_buffers = uring_unregister_buffers,
};

#else /* !VIGIL_HAVE_LIBURING: no ring, ever */

static int uring_init(vigil_loop *loop, struct vigil__file *f)
{
    (void)loop;
    snprintf(f->reason, sizeof f->reason, "built without liburing");
    return -ENOSYS;
}
static void uring_fini(vigil_loop *loop, struct vigil__file *f) { (void)loop; (void)f; }
static void uring_submit(vigil_loop *loop, struct vigil__file *f, vigil_file_req *const *reqs, int n)
{
    (void)loop; (void)f; (void)reqs; (void)n;
}
static int uring_cancel(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    (void)loop; (void)f; (void)req;
    return -ENOENT;
}
void vigil__file_uring_start(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req)
{
    (void)loop; (void)f; (void)req; /* never: the engine never starts without liburing */
}
const struct vigil__file_engine vigil__file_engine_uring = {
    .name = "uring", .init = uring_init, .fini = uring_fini, .submit = uring_submit, .cancel = uring_cancel,
};
#endif
