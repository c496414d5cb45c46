/* Write a pattern with WRITE and WRITEV, read it back with READ and READV: every byte
 * round-trips and each callback reports the full count. */
#include "ft.h"

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    static char a[8192], b[4096], c[4096], ra[8192], rb[4096], rc[4096];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (char)(i * 7 + 1);
    memset(b, 'b', sizeof b);
    memset(c, 'c', sizeof c);

    vigil_file_req w1 = {.data = (void *)0}, w2 = {.data = (void *)1};
    vigil_file_prep_write(&w1, fd, a, sizeof a, 0, ft_on_done);
    struct iovec wv[2] = {{b, sizeof b}, {c, sizeof c}};
    vigil_file_prep_writev(&w2, fd, wv, 2, sizeof a, ft_on_done);
    CHECK_EQ(vigil_file_start(loop, &w1), 0);
    CHECK_EQ(vigil_file_start(loop, &w2), 0);
    CHECK_EQ(vigil_file_inflight(loop), 2);
    struct ft_results *got = ft_results();
    ft_run_until(loop, &got->done, 2);
    CHECK_EQ(got->res[0], sizeof a);
    CHECK_EQ(got->res[1], sizeof b + sizeof c);
    CHECK_EQ(vigil_file_inflight(loop), 0);

    vigil_file_req r1 = {.data = (void *)2}, r2 = {.data = (void *)3};
    vigil_file_prep_read(&r1, fd, ra, sizeof ra, 0, ft_on_done);
    struct iovec rv[2] = {{rb, sizeof rb}, {rc, sizeof rc}};
    vigil_file_prep_readv(&r2, fd, rv, 2, sizeof a, ft_on_done);
    vigil_file_req *batch[2] = {&r1, &r2};
    CHECK_EQ(vigil_file_submit(loop, batch, 2), 2);
    ft_run_until(loop, &got->done, 4);
    CHECK_EQ(got->res[2], sizeof ra);
    CHECK_EQ(got->res[3], sizeof rb + sizeof rc);
    CHECK(memcmp(a, ra, sizeof a) == 0);
    CHECK(memcmp(b, rb, sizeof b) == 0);
    CHECK(memcmp(c, rc, sizeof c) == 0);
    printf("engine %s on backend %s: 4 requests round-tripped\n", vigil_file_engine(loop), vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(fd);
    return 0;
}
