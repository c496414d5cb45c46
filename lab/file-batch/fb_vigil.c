/* file-batch, system "vigil": requests taken from the loop's pool (refilled 32 at a
 * time) and returned in their callback; each group of `batch` is one vigil_file_submit;
 * the loop runs one turn per wait. On io_uring the turn's submissions and its wait are
 * one io_uring_enter, however many groups the turn started. --engine picks the engine
 * (the io_uring engine needs the uring backend; aio and threads run on the backend the
 * loop chooses). --registered 1: the file and the buffers are registered first and the
 * requests name them (VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF). */
#include "fb.h"

#include "vigil.h"

static vigil_loop *loop;
static struct fb *the_fb;
static char keys[128];

static void on_read(vigil_loop *l, vigil_file_req *req, int64_t res)
{
    int slot = (int)(intptr_t)req->data;
    vigil_file_req_put(l, req);
    fb_done(the_fb, slot, (long)res);
}

static void sys_init(struct fb *fb)
{
    the_fb = fb;
    struct vigil_loop_options lo;
    vigil_loop_options_init(&lo);
    struct vigil_file_options fo;
    vigil_file_options_init(&fo);
    if (!fb->engine || !strcmp(fb->engine, "uring")) {
        lo.backend = VIGIL_BACKEND_URING;
        fo.engine = VIGIL_FILE_ENGINE_URING;
    } else if (!strcmp(fb->engine, "aio")) {
        fo.engine = VIGIL_FILE_ENGINE_AIO;
    } else if (!strcmp(fb->engine, "threads")) {
        fo.engine = VIGIL_FILE_ENGINE_THREADS;
    } else {
        fprintf(stderr, "vigil: unknown engine %s\n", fb->engine);
        exit(2);
    }
    int r = vigil_loop_new(&loop, &lo);
    if (r < 0) {
        fprintf(stderr, "vigil: loop on backend %s: %s\n", lo.backend == VIGIL_BACKEND_URING ? "uring" : "auto",
                strerror(-r));
        exit(r == -ENOSYS || r == -EPERM ? 77 : 1);
    }
    r = vigil_file_setup(loop, &fo);
    if (r < 0) {
        fprintf(stderr, "vigil: file engine %s: %s (%s)\n", fb->engine ? fb->engine : "uring", strerror(-r),
                vigil_file_engine_reason(loop));
        exit(r == -ENOSYS ? 77 : 1);
    }
    if (fb->registered) {
        struct iovec iov = {fb->mem, (size_t)fb->depth * fb->bs};
        if ((r = vigil_file_register_files(loop, &fb->fd, 1)) < 0 || (r = vigil_file_register_buffers(loop, &iov, 1)) < 0) {
            fprintf(stderr, "vigil: register: %s\n", strerror(-r));
            exit(1);
        }
    }
    snprintf(keys, sizeof keys, "\"engine\":\"%s\",\"backend\":\"%s\"", vigil_file_engine(loop),
             vigil_loop_backend(loop));
    fb->keys = keys;
}

static void sys_submit(struct fb *fb, const int *slots, int n)
{
    vigil_file_req *v[FB_MAX_DEPTH];
    for (int i = 0; i < n; i++) {
        vigil_file_req *req = vigil_file_req_get(loop);
        if (!req) {
            fprintf(stderr, "vigil: pool empty\n");
            exit(1);
        }
        req->data = (void *)(intptr_t)slots[i];
        if (fb->registered) {
            vigil_file_prep_read(req, 0, fb_buf(fb, slots[i]), fb->bs, fb_offset(fb), on_read);
            req->flags = VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF;
        } else {
            vigil_file_prep_read(req, fb->fd, fb_buf(fb, slots[i]), fb->bs, fb_offset(fb), on_read);
        }
        v[i] = req;
    }
    int r = vigil_file_submit(loop, v, n);
    if (r != n) {
        fprintf(stderr, "vigil: vigil_file_submit: %d\n", r);
        exit(1);
    }
}

static void sys_wait(struct fb *fb)
{
    (void)fb;
    int r = vigil_loop_run(loop, VIGIL_RUN_ONCE);
    if (r < 0) {
        fprintf(stderr, "vigil: vigil_loop_run: %s\n", strerror(-r));
        exit(1);
    }
}

static void sys_fini(struct fb *fb)
{
    (void)fb;
    vigil_loop_free(loop);
}

int main(int argc, char **argv)
{
    return fb_program(argc, argv, "vigil");
}
