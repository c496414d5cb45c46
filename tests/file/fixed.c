/* Registered files and buffers: a request with VIGIL_FILE_FIXED_FILE names a file by
 * its index, VIGIL_FILE_FIXED_BUF a registered buffer; they work on every engine (on
 * io_uring through READ_FIXED/WRITE_FIXED and the ring's file table). An index out of
 * the table is refused; registering twice is -EBUSY; after unregistering, fixed
 * requests are refused. */
#include "ft.h"

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fds[2] = {ft_tmpfile(0), ft_tmpfile(0)};
    static char mem[2][4096];
    struct iovec iov[2] = {{mem[0], sizeof mem[0]}, {mem[1], sizeof mem[1]}};
    CHECK_EQ(vigil_file_register_files(loop, fds, 2), 0);
    CHECK_EQ(vigil_file_register_files(loop, fds, 2), -EBUSY);
    CHECK_EQ(vigil_file_register_buffers(loop, iov, 2), 0);

    memset(mem[0], 'F', sizeof mem[0]);
    vigil_file_req r = {0};
    vigil_file_prep_write(&r, 1, mem[0], 4096, 0, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF;
    r.buf_index = 0;
    CHECK_EQ(ft_start_wait(loop, &r), 4096);
    char check[4096];
    CHECK(pread(fds[1], check, sizeof check, 0) == 4096); /* index 1 is fds[1] */
    CHECK(memcmp(check, mem[0], sizeof check) == 0);

    vigil_file_prep_read(&r, 1, mem[1] + 100, 1000, 10, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF;
    r.buf_index = 1;
    CHECK_EQ(ft_start_wait(loop, &r), 1000);
    CHECK_EQ(mem[1][100], 'F');

    vigil_file_prep_fsync(&r, 0, 0, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE;
    CHECK_EQ(ft_start_wait(loop, &r), 0);

    vigil_file_prep_read(&r, 2, mem[1], 10, 0, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE;
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    /* The same refusals with both flags (the submission's fast check for registered
     * reads and writes must give the full check's verdicts). */
    r.flags = VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF;
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    r.fd = -1;
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    r.fd = 0;
    r.offset = -1;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);

    CHECK_EQ(vigil_file_unregister_buffers(loop), 0);
    vigil_file_prep_read(&r, 0, mem[1], 10, 0, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF; /* files still registered, buffers not */
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    CHECK_EQ(vigil_file_unregister_files(loop), 0);
    vigil_file_prep_read(&r, 0, mem[1], 10, 0, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_FILE;
    CHECK_EQ(vigil_file_start(loop, &r), -EBADF);
    vigil_file_prep_read(&r, fds[0], mem[1], 10, 0, ft_on_done);
    r.flags = VIGIL_FILE_FIXED_BUF;
    CHECK_EQ(vigil_file_start(loop, &r), -EINVAL);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
