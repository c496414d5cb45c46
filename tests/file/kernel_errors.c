/* Errors only the kernel knows come back through the callback (or at submission),
 * never as a crash: a closed fd gives -EBADF, a read on a write-only fd -EBADF, a
 * write into a read-only fd -EBADF, a read of a directory -EISDIR. */
#include "ft.h"

int main(void)
{
    vigil_loop *loop = ft_loop();
    int closed = ft_tmpfile(0);
    close(closed); /* a number that names nothing now */
    char path[64];
    snprintf(path, sizeof path, "ft_ke_%d", (int)getpid());
    int wo = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK_SYS(wo);
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    CHECK_SYS(ro);
    unlink(path);
    int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK_SYS(dir);
    char buf[64] = {0};
    vigil_file_req r[4];
    ft_reqs(r, 4);
    vigil_file_prep_read(&r[0], closed, buf, sizeof buf, 0, ft_on_done);
    vigil_file_prep_read(&r[1], wo, buf, sizeof buf, 0, ft_on_done);
    vigil_file_prep_write(&r[2], ro, buf, sizeof buf, 0, ft_on_done);
    vigil_file_prep_read(&r[3], dir, buf, sizeof buf, 0, ft_on_done);
    struct ft_results *got = ft_results();
    int expect = 4;
    for (int i = 0; i < 4; i++) {
        int s = vigil_file_start(loop, &r[i]);
        if (s < 0) { /* refused at submission: same error */
            got->res[i] = s;
            expect--;
        }
    }
    ft_run_until(loop, &got->done, expect);
    CHECK_EQ(got->res[0], -EBADF);
    CHECK_EQ(got->res[1], -EBADF);
    CHECK_EQ(got->res[2], -EBADF);
    CHECK_EQ(got->res[3], -EISDIR);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
