/* fs-ops, system "liburing": a hand-written liburing loop, the floor for what a ring can
 * do: one SQE per call (create and read chain open -> write/read -> close from the
 * completions), one io_uring_submit_and_wait per wait, every CQE then reaped. io_uring
 * has no getdents: no readdir here. */
#include "fo.h"

#include <liburing.h>

struct lslot {
    int i, step, fd;
    struct statx stx;
};

static struct io_uring ring;
static struct lslot slots[FO_MAX_INFLIGHT];

static struct io_uring_sqe *sqe_get(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) {
        io_uring_submit(&ring);
        sqe = io_uring_get_sqe(&ring);
    }
    if (!sqe)
        fo_die("io_uring_get_sqe", EBUSY);
    return sqe;
}

/* Prepares slot s's next call, or reports it done. */
static void step(struct fo *fo, int s, long res)
{
    struct lslot *l = &slots[s];
    int i = l->i;
    if (l->step > 0 && res < 0) {
        fo_done(fo, s, res);
        return;
    }
    struct io_uring_sqe *sqe;
    if (fo->op == FO_CREATE || fo->op == FO_READ) {
        if (l->step == 3) {
            fo_done(fo, s, 0);
            return;
        }
        sqe = sqe_get();
        if (l->step == 0) {
            int flags = fo->op == FO_CREATE ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC;
            io_uring_prep_openat(sqe, AT_FDCWD, fo->f[i], flags, 0644);
        } else if (l->step == 1) {
            l->fd = (int)res;
            if (fo->op == FO_CREATE)
                io_uring_prep_write(sqe, l->fd, fo->wbuf, FO_BS, 0);
            else
                io_uring_prep_read(sqe, l->fd, fo->rbuf[s], FO_BS, 0);
        } else {
            if (res != FO_BS)
                fo_die("short read or write", EIO);
            io_uring_prep_close(sqe, l->fd);
        }
    } else {
        if (l->step == 1) {
            fo_done(fo, s, res);
            return;
        }
        sqe = sqe_get();
        switch (fo->op) {
        case FO_STAT: io_uring_prep_statx(sqe, AT_FDCWD, fo->f[i], 0, STATX_BASIC_STATS, &l->stx); break;
        case FO_RENAME: io_uring_prep_renameat(sqe, AT_FDCWD, fo_src(fo, i), AT_FDCWD, fo_dst(fo, i), 0); break;
        case FO_UNLINK: io_uring_prep_unlinkat(sqe, AT_FDCWD, fo->f[i], 0); break;
        case FO_MKDIR: io_uring_prep_mkdirat(sqe, AT_FDCWD, fo->g[i], 0755); break;
        case FO_SYMLINK: io_uring_prep_symlinkat(sqe, "target", AT_FDCWD, fo->g[i]); break;
        case FO_LINK: io_uring_prep_linkat(sqe, AT_FDCWD, fo->f[i], AT_FDCWD, fo->g[i], 0); break;
        case FO_FALLOCATE: io_uring_prep_fallocate(sqe, fo->fds[s], 0, (off_t)(i % 16) * 4096, 4096); break;
        default: fprintf(stderr, "fo_liburing: %s: no io_uring operation\n", fo_op_names[fo->op]); exit(77);
        }
    }
    io_uring_sqe_set_data64(sqe, (uint64_t)s);
    l->step++;
}

static void sys_start(struct fo *fo, int s, int i)
{
    slots[s].i = i;
    slots[s].step = 0;
    step(fo, s, 0);
}

static void sys_wait(struct fo *fo)
{
    int r = io_uring_submit_and_wait(&ring, 1);
    if (r < 0 && r != -EINTR)
        fo_die("io_uring_submit_and_wait", r);
    struct io_uring_cqe *cqe;
    unsigned head, n = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
        step(fo, (int)cqe->user_data, cqe->res);
        n++;
    }
    io_uring_cq_advance(&ring, n);
}

static void sys_init(struct fo *fo)
{
    if (fo->op == FO_READDIR || fo->op == FO_FTRUNCATE) {
        fprintf(stderr, "fo_liburing: %s: no io_uring operation in liburing 2.3\n", fo_op_names[fo->op]);
        exit(77);
    }
    int r = io_uring_queue_init(256, &ring, 0);
    if (r < 0) {
        fprintf(stderr, "fo_liburing: io_uring_queue_init: %s\n", strerror(-r));
        exit(r == -ENOSYS || r == -EPERM ? 77 : 1);
    }
}

static void sys_fini(struct fo *fo)
{
    (void)fo;
    io_uring_queue_exit(&ring);
}

int main(int argc, char **argv)
{
    static struct fo fo;
    fo.system = "liburing";
    static const struct fo_sys sys = {sys_init, sys_start, sys_wait, sys_fini};
    return fo_main(argc, argv, &fo, &sys);
}
