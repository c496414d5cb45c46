/* O_DIRECT with a misaligned buffer (and a misaligned offset) gives the kernel's
 * -EINVAL in the callback; an aligned one reads the data. */
#include "ft.h"

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(O_DIRECT);
    if (fd < 0)
        vt_skip("O_DIRECT not supported by this file system");
    char *mem;
    CHECK(posix_memalign((void **)&mem, 4096, 3 * 4096) == 0);
    memset(mem, 'd', 3 * 4096);
    CHECK(pwrite(fd, mem, 8192, 0) == 8192);
    vigil_file_req r[3];
    ft_reqs(r, 3);
    vigil_file_prep_read(&r[0], fd, mem + 1, 4096, 0, ft_on_done);      /* buffer off by 1 */
    vigil_file_prep_read(&r[1], fd, mem + 4096, 4096, 7, ft_on_done);   /* offset off by 7 */
    vigil_file_prep_read(&r[2], fd, mem + 8192, 4096, 4096, ft_on_done); /* aligned */
    ft_submit_wait(loop, r, 3);
    const int64_t *res = ft_results()->res;
    CHECK_EQ(res[0], -EINVAL);
    CHECK_EQ(res[1], -EINVAL);
    CHECK_EQ(res[2], 4096);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(mem);
    return 0;
}
