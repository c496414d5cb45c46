/* file-batch, system "libaio": a hand-written libaio loop in aio-stress's shape: each
 * group of `batch` iocbs is one io_submit; io_getevents(min 1) reaps every finished
 * event. A buffered read (the cached file) is done synchronously inside io_submit, as
 * Linux AIO does. */
#include "fb.h"

#include <libaio.h>

static io_context_t ctx;
static struct iocb cbs[FB_MAX_DEPTH];

static void sys_init(struct fb *fb)
{
    int r = io_setup(fb->depth, &ctx);
    if (r < 0) {
        fprintf(stderr, "libaio: io_setup: %s\n", strerror(-r));
        exit(r == -ENOSYS || r == -EPERM ? 77 : 1);
    }
}

static void sys_submit(struct fb *fb, const int *slots, int n)
{
    struct iocb *v[FB_MAX_DEPTH];
    for (int i = 0; i < n; i++) {
        struct iocb *cb = &cbs[slots[i]];
        io_prep_pread(cb, fb->fd, fb_buf(fb, slots[i]), fb->bs, fb_offset(fb));
        cb->data = (void *)(intptr_t)slots[i];
        v[i] = cb;
    }
    int done = 0;
    while (done < n) {
        int r = io_submit(ctx, n - done, v + done);
        if (r == -EINTR || r == -EAGAIN)
            continue;
        if (r <= 0) {
            fprintf(stderr, "libaio: io_submit: %s\n", strerror(-r));
            exit(1);
        }
        done += r;
    }
}

static void sys_wait(struct fb *fb)
{
    struct io_event ev[FB_MAX_DEPTH];
    int r = io_getevents(ctx, 1, FB_MAX_DEPTH, ev, NULL);
    if (r < 0 && r != -EINTR) {
        fprintf(stderr, "libaio: io_getevents: %s\n", strerror(-r));
        exit(1);
    }
    for (int i = 0; i < r; i++)
        fb_done(fb, (int)(intptr_t)ev[i].data, (long)ev[i].res);
}

static void sys_fini(struct fb *fb)
{
    (void)fb;
    io_destroy(ctx);
}

int main(int argc, char **argv)
{
    return fb_program(argc, argv, "libaio");
}
