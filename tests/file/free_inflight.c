/* vigil_loop_free with 300 requests in flight (reads and writes of a regular file,
 * some from the pool): it waits for them, each callback runs exactly once (with its
 * result or -ECANCELED), a request started from such a callback is refused, and nothing
 * leaks or is touched after the free (AddressSanitizer watches). */
#include "ft.h"

#define N 300
static int calls[N];
static int refused;

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    intptr_t i = (intptr_t)req->data;
    if (!(res == 4096 || res == -ECANCELED))
        fprintf(stderr, "request %d: %lld\n", (int)(intptr_t)req->data, (long long)res);
    CHECK(res == 4096 || res == -ECANCELED);
    calls[i]++;
    if (i == 0) /* restarting while the loop is being freed is refused */
        refused = vigil_file_start(loop, req) == -ECANCELED;
    if (i % 2)
        vigil_file_req_put(loop, req);
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    static char buf[N][4096];
    CHECK(ftruncate(fd, (off_t)N * 4096) == 0);
    static vigil_file_req own[N];
    vigil_file_req *v[N];
    for (int i = 0; i < N; i++) {
        vigil_file_req *r = i % 2 ? vigil_file_req_get(loop) : &own[i];
        CHECK(r != NULL);
        r->data = (void *)(intptr_t)i;
        if (i % 3)
            vigil_file_prep_read(r, fd, buf[i], 4096, (int64_t)i * 4096, on_done);
        else
            vigil_file_prep_write(r, fd, buf[i], 4096, (int64_t)i * 4096, on_done);
        v[i] = r;
    }
    CHECK_EQ(vigil_file_submit(loop, v, N), N);
    CHECK_EQ(vigil_file_inflight(loop), N);
    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < N; i++)
        CHECK_EQ(calls[i], 1);
    CHECK(refused);
    close(fd);
    return 0;
}
