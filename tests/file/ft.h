/* Helpers for the file I/O tests. Each test runs on the loop backend VIGIL_BACKEND names
 * and the file engine VIGIL_FILE_ENGINE names (ctest registers every pair the engine
 * can run on); a pair this machine refuses is skipped (77) with its reason. */
#ifndef VIGIL_FT_H
#define VIGIL_FT_H

#include "vt.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A loop with its file engine set up (threads: the pool size, 0 for the default). */
static inline vigil_loop *ft_loop_threads(int threads)
{
    vigil_loop *loop = vt_loop();
    struct vigil_file_options o;
    vigil_file_options_init(&o);
    o.threads = threads;
    int r = vigil_file_setup(loop, &o);
    if (r == -ENOSYS) {
        char why[200];
        snprintf(why, sizeof why, "file engine %s not available on backend %s: %s",
                 getenv("VIGIL_FILE_ENGINE") ? getenv("VIGIL_FILE_ENGINE") : "auto", vigil_loop_backend(loop),
                 vigil_file_engine_reason(loop));
        vigil_loop_free(loop);
        vt_skip(why);
    }
    if (r < 0) {
        fprintf(stderr, "vigil_file_setup: %s\n", strerror(-r));
        exit(1);
    }
    const char *want = getenv("VIGIL_FILE_ENGINE");
    if (want && *want && strcmp(want, "auto") != 0 && strcmp(want, vigil_file_engine(loop)) != 0) {
        fprintf(stderr, "asked for file engine %s, got %s\n", want, vigil_file_engine(loop));
        exit(1);
    }
    return loop;
}

static inline vigil_loop *ft_loop(void)
{
    return ft_loop_threads(0);
}

/* A scratch file (unlinked at once: the fd keeps it) in the build tree's folder. */
static inline int ft_tmpfile(int extra_flags)
{
    char path[] = "ft_XXXXXX";
    int fd = mkostemp(path, O_CLOEXEC);
    CHECK_SYS(fd);
    if (extra_flags) {
        int fd2 = open(path, O_RDWR | O_CLOEXEC | extra_flags);
        if (fd2 < 0) {
            int e = errno;
            unlink(path);
            close(fd);
            errno = e;
            return -1;
        }
        close(fd);
        fd = fd2;
    }
    unlink(path);
    return fd;
}

/* Runs the loop until *counter reaches n (each turn may wait). */
static inline void ft_run_until(vigil_loop *loop, const int *counter, int n)
{
    while (*counter < n)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
}

#endif
