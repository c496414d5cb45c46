/* file-batch, system "liburing": a hand-written liburing loop, as a careful user writes
 * it. Each group of `batch` reads is one io_uring_submit (one io_uring_enter); completions
 * are taken from the ring in bulk, and io_uring_wait_cqe enters the kernel only when the
 * ring is empty (or the kernel flags deferred completion work). Ring flags: SINGLE_ISSUER
 * | DEFER_TASKRUN | TASKRUN_FLAG where the kernel takes them -- the ones vigil's backend
 * uses, so the two differ only in user space (COOP_TASKRUN measured the same here) --
 * plain otherwise. --registered 1: the file and the
 * buffers are registered first, and reads are READ_FIXED on the fixed file. */
#include "fb.h"

#include "uring_flags.h"

static struct io_uring ring;

static void sys_init(struct fb *fb)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    int r = io_uring_queue_init_params((unsigned)fb->depth, &ring, &p);
    if (r == -EINVAL) {
        memset(&p, 0, sizeof p);
        r = io_uring_queue_init_params((unsigned)fb->depth, &ring, &p);
    }
    if (r < 0) {
        fprintf(stderr, "liburing: io_uring_queue_init: %s\n", strerror(-r));
        exit(r == -EPERM || r == -ENOSYS ? 77 : 1);
    }
    if (fb->registered) {
        struct iovec iov = {fb->mem, (size_t)fb->depth * fb->bs};
        if ((r = io_uring_register_files(&ring, &fb->fd, 1)) < 0 ||
            (r = io_uring_register_buffers(&ring, &iov, 1)) < 0) {
            fprintf(stderr, "liburing: register: %s\n", strerror(-r));
            exit(1);
        }
    }
}

static void sys_submit(struct fb *fb, const int *slots, int n)
{
    for (int i = 0; i < n; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        if (fb->registered) {
            io_uring_prep_read_fixed(sqe, 0, fb_buf(fb, slots[i]), (unsigned)fb->bs, (uint64_t)fb_offset(fb), 0);
            sqe->flags |= IOSQE_FIXED_FILE;
        } else {
            io_uring_prep_read(sqe, fb->fd, fb_buf(fb, slots[i]), (unsigned)fb->bs, (uint64_t)fb_offset(fb));
        }
        io_uring_sqe_set_data64(sqe, (uint64_t)slots[i]);
    }
    int r = io_uring_submit(&ring);
    if (r != n) {
        fprintf(stderr, "liburing: io_uring_submit: %d\n", r);
        exit(1);
    }
}

static void sys_wait(struct fb *fb)
{
    struct io_uring_cqe *cqe;
    if (io_uring_peek_cqe(&ring, &cqe) != 0) {
        int r;
        while ((r = io_uring_wait_cqe(&ring, &cqe)) == -EINTR) {
        }
        if (r < 0) {
            fprintf(stderr, "liburing: io_uring_wait_cqe: %s\n", strerror(-r));
            exit(1);
        }
    }
    struct io_uring_cqe *cqes[FB_MAX_DEPTH];
    unsigned n = io_uring_peek_batch_cqe(&ring, cqes, FB_MAX_DEPTH);
    for (unsigned i = 0; i < n; i++)
        fb_done(fb, (int)cqes[i]->user_data, cqes[i]->res);
    io_uring_cq_advance(&ring, n);
}

static void sys_fini(struct fb *fb)
{
    (void)fb;
    io_uring_queue_exit(&ring);
}

int main(int argc, char **argv)
{
    return fb_program(argc, argv, "liburing");
}
