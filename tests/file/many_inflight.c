/* 3000 reads started in one batch -- more than io_uring's submission ring (256) and
 * Linux AIO's context (1024) hold: the rest wait inside vigil (SQ chunks, the AIO
 * backlog, the thread pool's queue), none is lost, each completes once with its data. */
#include "ft.h"

#define N 3000
static int done;
static unsigned char seen[N];

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    (void)loop;
    int i = (int)(intptr_t)req->data;
    CHECK_EQ(res, 8);
    uint64_t v;
    memcpy(&v, req->buf, 8);
    CHECK_EQ(v, (uint64_t)i * 2654435761u);
    CHECK_EQ(seen[i], 0);
    seen[i] = 1;
    done++;
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    static uint64_t data[N], out[N];
    for (int i = 0; i < N; i++)
        data[i] = (uint64_t)i * 2654435761u;
    CHECK(pwrite(fd, data, sizeof data, 0) == (ssize_t)sizeof data);
    static vigil_file_req r[N];
    static vigil_file_req *v[N];
    for (int i = 0; i < N; i++) {
        r[i].data = (void *)(intptr_t)i;
        vigil_file_prep_read(&r[i], fd, &out[i], 8, (int64_t)i * 8, on_done);
        v[i] = &r[i];
    }
    CHECK_EQ(vigil_file_submit(loop, v, N), N);
    CHECK_EQ(vigil_file_inflight(loop), N);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(done, N);
    CHECK_EQ(vigil_file_inflight(loop), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
