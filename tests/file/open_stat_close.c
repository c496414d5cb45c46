/* OPEN creates a file and returns its fd, STAT sees its size, CLOSE closes the fd; a
 * missing path gives -ENOENT in the callback. */
#include "ft.h"

#include <sys/stat.h>

int main(void)
{
    vigil_loop *loop = ft_loop();
    char path[64];
    snprintf(path, sizeof path, "ft_open_%d", (int)getpid());
    vigil_file_req r = {0};

    vigil_file_prep_open(&r, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, ft_on_done);
    int64_t opened = ft_start_wait(loop, &r);
    CHECK(opened >= 0);
    int fd = (int)opened;
    CHECK(write(fd, "0123456789", 10) == 10);

    struct statx stx;
    memset(&stx, 0, sizeof stx);
    vigil_file_prep_stat(&r, AT_FDCWD, path, 0, STATX_SIZE, &stx, ft_on_done);
    CHECK_EQ(ft_start_wait(loop, &r), 0);
    CHECK_EQ(stx.stx_size, 10);

    vigil_file_prep_close(&r, fd, ft_on_done);
    CHECK_EQ(ft_start_wait(loop, &r), 0);
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);

    vigil_file_prep_open(&r, AT_FDCWD, "ft_no_such_dir/x", O_RDONLY, 0, ft_on_done);
    CHECK_EQ(ft_start_wait(loop, &r), -ENOENT);

    unlink(path);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
