/* A read that crosses the end of the file reports the bytes there were (short), and a
 * read at the end reports 0: vigil does not loop to fill the buffer. */
#include "ft.h"

static int done;
static int64_t res_of[2];

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
    CHECK(pwrite(fd, "0123456789", 10, 0) == 10);
    char b1[4096], b2[64];
    vigil_file_req a = {.data = (void *)0}, b = {.data = (void *)1};
    vigil_file_prep_read(&a, fd, b1, sizeof b1, 4, on_done);
    vigil_file_prep_read(&b, fd, b2, sizeof b2, 10, on_done);
    vigil_file_req *v[2] = {&a, &b};
    CHECK_EQ(vigil_file_submit(loop, v, 2), 2);
    ft_run_until(loop, &done, 2);
    CHECK_EQ(res_of[0], 6);
    CHECK(memcmp(b1, "456789", 6) == 0);
    CHECK_EQ(res_of[1], 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
