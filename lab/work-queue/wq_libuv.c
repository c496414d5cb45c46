/* work-queue, system "libuv": uv_queue_work on libuv's default pool (UV_THREADPOOL_SIZE
 * unset: 4 threads), as a libuv user writes it. */
#include "wq.h"

#include <uv.h>

static uv_loop_t *loop;
static uv_work_t reqs[WQ_MAX + WQ_SLOW];
static struct wq the_q = {.system = "libuv"};

static void work_cb(uv_work_t *req)
{
    wq_job_fn(the_q.is_slow[req - reqs]);
}

static void after_cb(uv_work_t *req, int status)
{
    if (status != 0) {
        fprintf(stderr, "libuv: after_work: %s\n", uv_strerror(status));
        exit(1);
    }
    wq_done(&the_q, (int)(req - reqs));
}

static void wq_sys_init(struct wq *q)
{
    (void)q;
    loop = uv_default_loop();
}

static void wq_sys_submit(struct wq *q, int slot, bool slow)
{
    (void)q;
    (void)slow; /* libuv has no way to say it */
    int r = uv_queue_work(loop, &reqs[slot], work_cb, after_cb);
    if (r < 0) {
        fprintf(stderr, "libuv: uv_queue_work: %s\n", uv_strerror(r));
        exit(1);
    }
}

static void wq_sys_run_once(struct wq *q)
{
    (void)q;
    uv_run(loop, UV_RUN_ONCE);
}

static void wq_sys_fini(struct wq *q)
{
    (void)q;
    uv_loop_close(loop);
}

int main(int argc, char **argv)
{
    return wq_main(argc, argv, &the_q);
}
