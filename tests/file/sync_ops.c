/* fsync and fdatasync complete with 0 on a written file, and report the kernel's error
 * for a file that cannot be synced (EINVAL for a pipe). */
#include "ft.h"

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    CHECK(pwrite(fd, "hello", 5, 0) == 5);
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_file_req r[3];
    ft_reqs(r, 3);
    vigil_file_prep_fsync(&r[0], fd, 0, ft_on_done);
    vigil_file_prep_fsync(&r[1], fd, 1, ft_on_done);
    vigil_file_prep_fsync(&r[2], p[0], 0, ft_on_done);
    ft_submit_wait(loop, r, 3);
    const int64_t *res = ft_results()->res;
    CHECK_EQ(res[0], 0);
    CHECK_EQ(res[1], 0);
    CHECK_EQ(res[2], -EINVAL);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
