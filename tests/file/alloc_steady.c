/* No allocation per request in the steady state: after a warm-up, 20,000 reads taken
 * from the pool, submitted in batches of 8, completed and put back allocate nothing
 * (the pool refilled in the warm-up; engines keep their state from set-up). */
#include "ft.h"
#include "alloc_count.h"

#define DEPTH 64
#define BATCH 8
static int fd;
static char bufs[DEPTH][512];
/* Buffers not in use: one per request in flight, as two reads completing out of order
 * must never fill the same buffer at once (a data race in the threads engine). */
static int free_bufs[DEPTH], nfree_bufs;
static long completed, pending_n;
static vigil_file_req *pending[DEPTH];

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    CHECK_EQ(res, 512);
    completed++;
    free_bufs[nfree_bufs++] = (int)((char (*)[512])req->data - bufs);
    vigil_file_req_put(loop, req);
}

static void refill(vigil_loop *loop, long *started, long total)
{
    while (*started < total && vigil_file_inflight(loop) + (unsigned)pending_n < DEPTH) {
        vigil_file_req *r = vigil_file_req_get(loop);
        CHECK(r != NULL);
        CHECK(nfree_bufs > 0);
        int slot = free_bufs[--nfree_bufs];
        r->data = bufs[slot];
        vigil_file_prep_read(r, fd, bufs[slot], 512, (*started * 512) % 65536, on_done);
        pending[pending_n++] = r;
        (*started)++;
        if (pending_n == BATCH || *started == total) {
            CHECK_EQ(vigil_file_submit(loop, pending, (int)pending_n), pending_n);
            pending_n = 0;
        }
    }
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    for (int i = 0; i < DEPTH; i++)
        free_bufs[nfree_bufs++] = i;
    fd = ft_tmpfile(0);
    static char data[65536];
    CHECK(pwrite(fd, data, sizeof data, 0) == (ssize_t)sizeof data);
    const long warm = 2000, total = warm + 20000;
    long started = 0, before = 0;
    int counting = 0;
    while (completed < total) {
        if (!counting && completed >= warm) {
            vt_alloc_count_start();
            before = vt_alloc_count();
            counting = 1;
        }
        refill(loop, &started, total);
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    }
    long allocs = vt_alloc_count() - before;
    printf("engine %s on %s: %ld requests, %ld allocations or frees after warm-up\n", vigil_file_engine(loop),
           vigil_loop_backend(loop), total - warm, allocs);
    CHECK(counting);
    CHECK_EQ(allocs, 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
