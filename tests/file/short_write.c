/* A write that crosses the process's file size limit (RLIMIT_FSIZE, set for this
 * process only) reports the bytes written: a short write, reported as such. */
#include "ft.h"

#include <signal.h>
#include <sys/resource.h>

int main(void)
{
    signal(SIGXFSZ, SIG_IGN);
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    struct rlimit rl;
    CHECK_SYS(getrlimit(RLIMIT_FSIZE, &rl));
    rl.rlim_cur = 1000;
    CHECK_SYS(setrlimit(RLIMIT_FSIZE, &rl));
    static char buf[4096];
    memset(buf, 'w', sizeof buf);
    vigil_file_req w = {0};
    vigil_file_prep_write(&w, fd, buf, sizeof buf, 0, ft_on_done);
    CHECK_EQ(ft_start_wait(loop, &w), 1000);
    /* At the limit: nothing more can be written, the kernel says EFBIG. */
    vigil_file_prep_write(&w, fd, buf, sizeof buf, 1000, ft_on_done);
    CHECK_EQ(ft_start_wait(loop, &w), -EFBIG);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
