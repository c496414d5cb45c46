/* file-batch, system "libuv": uv_fs_read with a callback, as a libuv user writes it.
 * libuv 1.44 (Debian's) does file I/O on its thread pool (UV_THREADPOOL_SIZE, default
 * 4); it has no batch call, so a "batch" is that many uv_fs_read calls in a row. */
#include "fb.h"

#include <uv.h>

static uv_loop_t *loop;
static uv_fs_t reqs[FB_MAX_DEPTH];
static struct fb *the_fb;

static void on_read(uv_fs_t *req)
{
    int slot = (int)(req - reqs);
    long res = (long)req->result;
    uv_fs_req_cleanup(req);
    fb_done(the_fb, slot, res);
}

static void sys_init(struct fb *fb)
{
    the_fb = fb;
    loop = uv_default_loop();
}

static void sys_submit(struct fb *fb, const int *slots, int n)
{
    for (int i = 0; i < n; i++) {
        uv_buf_t b = uv_buf_init(fb_buf(fb, slots[i]), (unsigned)fb->bs);
        int r = uv_fs_read(loop, &reqs[slots[i]], fb->fd, &b, 1, fb_offset(fb), on_read);
        if (r < 0) {
            fprintf(stderr, "libuv: uv_fs_read: %s\n", uv_strerror(r));
            exit(1);
        }
    }
}

static void sys_wait(struct fb *fb)
{
    (void)fb;
    uv_run(loop, UV_RUN_ONCE);
}

static void sys_fini(struct fb *fb)
{
    (void)fb;
    uv_loop_close(loop);
}

int main(int argc, char **argv)
{
    return fb_program(argc, argv, "libuv");
}
