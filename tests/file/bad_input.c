/* What vigil refuses at submission, before any engine sees it: a negative offset
 * (-EINVAL: io_uring would read "current position"), an unknown op, a NULL callback,
 * a negative fd (-EBADF), a request already in flight (-EBUSY, also twice in one batch);
 * a batch stops at its first refused request and says how many it started. Open and
 * close through vigil_file_start (its one-request path checks them itself): a close of
 * a negative fd (-EBADF), a registered file or buffer on either (-EINVAL), either twice
 * in flight (-EBUSY); a good open and close still start and complete. */
#include "ft.h"

static int done;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    (void)req;
    CHECK(res >= 0);
    done++;
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    char buf[64];
    vigil_file_req r = {0};

    vigil_file_prep_read(&r, fd, buf, sizeof buf, -1, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_write(&r, fd, buf, sizeof buf, INT64_MIN, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    struct iovec iov = {buf, sizeof buf};
    vigil_file_prep_readv(&r, fd, &iov, 1, -4096, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_read(&r, fd, buf, sizeof buf, 0, NULL);
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_read(&r, fd, buf, sizeof buf, 0, on_done);
    r.op = 200;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_read(&r, -1, buf, sizeof buf, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    vigil_file_prep_read(&r, fd, buf, sizeof buf, 0, on_done);
    r.flags = VIGIL_FILE_FIXED_FILE; /* nothing registered */
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(done, 0);

    /* in flight twice */
    vigil_file_prep_read(&r, fd, buf, sizeof buf, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    CHECK_EQ(vigil_file_start(loop, &r), -EBUSY);
    ft_run_until(loop, &done, 1);
    CHECK_EQ(vigil_file_cancel(loop, &r), -ENOENT); /* idle now */

    /* open and close */
    vigil_file_prep_close(&r, -1, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    vigil_file_prep_close(&r, fd, on_done);
    r.flags = VIGIL_FILE_FIXED_FILE;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_close(&r, fd, on_done);
    r.flags = VIGIL_FILE_FIXED_BUF;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_close(&r, fd, NULL);
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_open(&r, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, on_done);
    r.flags = VIGIL_FILE_FIXED_FILE;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    vigil_file_prep_open(&r, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, on_done);
    r.flags = VIGIL_FILE_FIXED_BUF;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(done, 1);
    vigil_file_prep_open(&r, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    CHECK_EQ(vigil_file_start(loop, &r), -EBUSY);
    ft_run_until(loop, &done, 2);
    CHECK(r.result >= 0);
    vigil_file_prep_close(&r, (int)r.result, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    CHECK_EQ(vigil_file_start(loop, &r), -EBUSY);
    ft_run_until(loop, &done, 3);
    CHECK_EQ(r.result, 0);

    /* a batch: [ok, ok, negative offset, ok] starts 2; [same req twice] starts 1 */
    vigil_file_req b[4];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 4; i++)
        vigil_file_prep_read(&b[i], fd, buf, sizeof buf, 0, on_done);
    b[2].offset = -1;
    vigil_file_req *v[4] = {&b[0], &b[1], &b[2], &b[3]};
    CHECK_EQ(vigil_file_submit(loop, v, 4), 2);
    ft_run_until(loop, &done, 5);
    vigil_file_req *twice[2] = {&b[3], &b[3]};
    CHECK_EQ(vigil_file_submit(loop, twice, 2), 1);
    vigil_file_req *first_bad[1] = {&b[2]};
    CHECK_EQ(vigil_file_submit(loop, first_bad, 1), -EINVAL);
    ft_run_until(loop, &done, 6);
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
