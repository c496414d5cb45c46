/* fsync and fdatasync complete with 0 on a written file, and report the kernel's error
 * for a file that cannot be synced (EINVAL for a pipe). */
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
    int fd = ft_tmpfile(0);
    CHECK(pwrite(fd, "hello", 5, 0) == 5);
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_file_req a = {.data = (void *)0}, b = {.data = (void *)1}, c = {.data = (void *)2};
    vigil_file_prep_fsync(&a, fd, 0, on_done);
    vigil_file_prep_fsync(&b, fd, 1, on_done);
    vigil_file_prep_fsync(&c, p[0], 0, on_done);
    vigil_file_req *v[3] = {&a, &b, &c};
    CHECK_EQ(vigil_file_submit(loop, v, 3), 3);
    ft_run_until(loop, &done, 3);
    CHECK_EQ(res_of[0], 0);
    CHECK_EQ(res_of[1], 0);
    CHECK_EQ(res_of[2], -EINVAL);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
