/* EAGAIN is retried inside vigil a bounded number of times: a read of an empty
 * O_NONBLOCK pipe ends with -EAGAIN on the thread pool (and AIO, which hands pipes to
 * it) instead of spinning for ever; io_uring instead waits in the kernel for data, and
 * the read returns it once written. Either way the same read returns the data later. */
#include "ft.h"

#include <stdbool.h>

int main(void)
{
    vigil_loop *loop = ft_loop();
    bool uring = strcmp(vigil_file_engine(loop), "uring") == 0;
    struct ft_results *got = ft_results();
    int p[2];
    CHECK_SYS(pipe2(p, O_CLOEXEC | O_NONBLOCK));
    char b[8];
    vigil_file_req r = {0};
    vigil_file_prep_read(&r, p[0], b, sizeof b, 0, ft_on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    if (uring) {
        for (int i = 0; i < 5; i++) /* it waits in the kernel: no spin, no result */
            CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
        CHECK_EQ(got->done, 0);
    } else {
        ft_run_until(loop, &got->done, 1);
        CHECK_EQ(got->last, -EAGAIN);
        vigil_file_prep_read(&r, p[0], b, sizeof b, 0, ft_on_done);
        CHECK_EQ(vigil_file_start(loop, &r), 0);
        got->done = 0;
        /* this one may again run out of retries before the write below: then start it
         * once more, the pipe holds data by then */
    }
    CHECK(write(p[1], "abc", 3) == 3);
    ft_run_until(loop, &got->done, 1);
    if (got->last == -EAGAIN && !uring) {
        vigil_file_prep_read(&r, p[0], b, sizeof b, 0, ft_on_done);
        CHECK_EQ(vigil_file_start(loop, &r), 0);
        ft_run_until(loop, &got->done, 2);
    }
    CHECK_EQ(got->last, 3);
    CHECK(memcmp(b, "abc", 3) == 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
