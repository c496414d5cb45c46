/* Helpers for the file I/O tests. Each test runs on the loop backend VIGIL_BACKEND names
 * and the file engine VIGIL_FILE_ENGINE names (ctest registers every pair the engine
 * can run on); a pair this machine refuses is skipped (77) with its reason. */
#ifndef VIGIL_FT_H
#define VIGIL_FT_H

#include "vt.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* What the completions of a test's ft_on_done requests said: how many came, the last
 * result, and each result by the slot the request's data names (an index below
 * FT_SLOTS: 0 for a zeroed request; ft_reqs numbers them). */
#define FT_SLOTS 8
struct ft_results {
    int done;
    int64_t last;
    int64_t res[FT_SLOTS];
};

static inline struct ft_results *ft_results(void)
{
    static struct ft_results r;
    return &r;
}

/* The completion callback that records into ft_results(); the result it is passed is
 * the one the request holds. */
static inline void ft_on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    struct ft_results *r = ft_results();
    intptr_t slot = (intptr_t)req->data;
    CHECK(slot >= 0 && slot < FT_SLOTS);
    CHECK_EQ(req->result, res);
    r->res[slot] = res;
    r->last = res;
    r->done++;
}

/* Zeroes n requests and numbers them 0..n-1 (their ft_results() slots). */
static inline void ft_reqs(vigil_file_req *req, int n)
{
    CHECK(n > 0 && n <= FT_SLOTS);
    memset(req, 0, sizeof *req * (size_t)n);
    for (int i = 0; i < n; i++)
        req[i].data = (void *)(intptr_t)i;
}

/* Submits req[0..n-1] as one batch, all of which must start, and runs the loop until
 * they have completed. */
static inline void ft_submit_wait(vigil_loop *loop, vigil_file_req *req, int n)
{
    vigil_file_req *v[FT_SLOTS];
    CHECK(n > 0 && n <= FT_SLOTS);
    for (int i = 0; i < n; i++)
        v[i] = &req[i];
    int want = ft_results()->done + n;
    CHECK_EQ(vigil_file_submit(loop, v, n), n);
    ft_run_until(loop, &ft_results()->done, want);
}

/* Starts one request, which must start, runs the loop until it completes and returns
 * its result. */
static inline int64_t ft_start_wait(vigil_loop *loop, vigil_file_req *req)
{
    int want = ft_results()->done + 1;
    CHECK_EQ(vigil_file_start(loop, req), 0);
    ft_run_until(loop, &ft_results()->done, want);
    return ft_results()->last;
}

#endif
