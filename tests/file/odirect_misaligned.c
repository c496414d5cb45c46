/* O_DIRECT with a misaligned buffer (and a misaligned offset) gives the kernel's
 * -EINVAL in the callback; an aligned one reads the data. */
#include "ft.h"

static int done;
static int64_t res_of[3];

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    res_of[(intptr_t)req->data] = res;
    done++;
}

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
    memset(r, 0, sizeof r);
    for (int i = 0; i < 3; i++)
        r[i].data = (void *)(intptr_t)i;
    vigil_file_prep_read(&r[0], fd, mem + 1, 4096, 0, on_done);      /* buffer off by 1 */
    vigil_file_prep_read(&r[1], fd, mem + 4096, 4096, 7, on_done);   /* offset off by 7 */
    vigil_file_prep_read(&r[2], fd, mem + 8192, 4096, 4096, on_done); /* aligned */
    vigil_file_req *v[3] = {&r[0], &r[1], &r[2]};
    CHECK_EQ(vigil_file_submit(loop, v, 3), 3);
    ft_run_until(loop, &done, 3);
    CHECK_EQ(res_of[0], -EINVAL);
    CHECK_EQ(res_of[1], -EINVAL);
    CHECK_EQ(res_of[2], 4096);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(mem);
    return 0;
}
