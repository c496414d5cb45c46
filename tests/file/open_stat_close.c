/* OPEN creates a file and returns its fd, STAT sees its size, CLOSE closes the fd; a
 * missing path gives -ENOENT in the callback. */
#include "ft.h"

#include <sys/stat.h>

static int done;
static int64_t last;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    (void)req;
    last = res;
    done++;
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    char path[64];
    snprintf(path, sizeof path, "ft_open_%d", (int)getpid());
    vigil_file_req r = {0};

    vigil_file_prep_open(&r, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    ft_run_until(loop, &done, 1);
    CHECK(last >= 0);
    int fd = (int)last;
    CHECK(write(fd, "0123456789", 10) == 10);

    struct statx stx;
    memset(&stx, 0, sizeof stx);
    vigil_file_prep_stat(&r, AT_FDCWD, path, 0, STATX_SIZE, &stx, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    ft_run_until(loop, &done, 2);
    CHECK_EQ(last, 0);
    CHECK_EQ(stx.stx_size, 10);

    vigil_file_prep_close(&r, fd, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    ft_run_until(loop, &done, 3);
    CHECK_EQ(last, 0);
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);

    vigil_file_prep_open(&r, AT_FDCWD, "ft_no_such_dir/x", O_RDONLY, 0, on_done);
    CHECK_EQ(vigil_file_start(loop, &r), 0);
    ft_run_until(loop, &done, 4);
    CHECK_EQ(last, -ENOENT);

    unlink(path);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
