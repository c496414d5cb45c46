/* A read that crosses the end of the file reports the bytes there were (short), and a
 * read at the end reports 0: vigil does not loop to fill the buffer. */
#include "ft.h"

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    CHECK(pwrite(fd, "0123456789", 10, 0) == 10);
    char b1[4096], b2[64];
    vigil_file_req r[2];
    ft_reqs(r, 2);
    vigil_file_prep_read(&r[0], fd, b1, sizeof b1, 4, ft_on_done);
    vigil_file_prep_read(&r[1], fd, b2, sizeof b2, 10, ft_on_done);
    ft_submit_wait(loop, r, 2);
    CHECK_EQ(ft_results()->res[0], 6);
    CHECK(memcmp(b1, "456789", 6) == 0);
    CHECK_EQ(ft_results()->res[1], 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
