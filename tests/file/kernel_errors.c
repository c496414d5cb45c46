/* Errors only the kernel knows come back through the callback (or at submission),
 * never as a crash: a closed fd gives -EBADF, a read on a write-only fd -EBADF, a
 * write into a read-only fd -EBADF, a read of a directory -EISDIR. */
#include "ft.h"

static int done;
static int64_t res_of[4];

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    res_of[(intptr_t)req->data] = res;
    done++;
}

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
    memset(r, 0, sizeof r);
    for (int i = 0; i < 4; i++)
        r[i].data = (void *)(intptr_t)i;
    vigil_file_prep_read(&r[0], closed, buf, sizeof buf, 0, on_done);
    vigil_file_prep_read(&r[1], wo, buf, sizeof buf, 0, on_done);
    vigil_file_prep_write(&r[2], ro, buf, sizeof buf, 0, on_done);
    vigil_file_prep_read(&r[3], dir, buf, sizeof buf, 0, on_done);
    int expect = 4;
    for (int i = 0; i < 4; i++) {
        int s = vigil_file_start(loop, &r[i]);
        if (s < 0) { /* refused at submission: same error */
            res_of[i] = s;
            expect--;
        }
    }
    ft_run_until(loop, &done, expect);
    CHECK_EQ(res_of[0], -EBADF);
    CHECK_EQ(res_of[1], -EBADF);
    CHECK_EQ(res_of[2], -EBADF);
    CHECK_EQ(res_of[3], -EISDIR);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
