/* Async file I/O, the io_uring engine: placeholder until the io_uring backend's op
 * mechanism (src/uring.h) lands; refuses, so AUTO falls back to AIO. */
#include "file_int.h"

#include <errno.h>
#include <stdio.h>

static int uring_init(vigil_loop *loop, struct vigil__file *f)
{
    (void)loop;
    snprintf(f->reason, sizeof f->reason, "loop backend is %s", vigil_loop_backend(loop));
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
int vigil__file_uring_register_files(vigil_loop *loop, const int *fds, unsigned n) { (void)loop; (void)fds; (void)n; return -ENOSYS; }
int vigil__file_uring_unregister_files(vigil_loop *loop) { (void)loop; return -ENOSYS; }
int vigil__file_uring_register_buffers(vigil_loop *loop, const struct iovec *iov, unsigned n) { (void)loop; (void)iov; (void)n; return -ENOSYS; }
int vigil__file_uring_unregister_buffers(vigil_loop *loop) { (void)loop; return -ENOSYS; }

const struct vigil__file_engine vigil__file_engine_uring = {
    .name = "uring", .init = uring_init, .fini = uring_fini, .submit = uring_submit, .cancel = uring_cancel,
};
