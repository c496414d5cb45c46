/* fs-ops, system "vigil": one request per slot, taken from the loop's pool; an
 * operation of several calls (create: open, write, close) chains them from the
 * callbacks; the loop runs one turn per wait (on io_uring the turn's submissions and its
 * wait are one io_uring_enter). --engine uring|aio|threads picks the file engine (uring
 * needs, and sets, the uring backend); --route ring|threads sets VIGIL_FILE_FS_ROUTE (the
 * io_uring engine's route for the file-system calls, for measuring its table). */
#include "fo.h"

#include "vigil.h"

#include <stdint.h>

struct vslot {
    struct fo *fo;
    int s, i, step, fd;
    vigil_file_req *req;
    struct statx stx;
};

static vigil_loop *loop;
static struct vslot slots[FO_MAX_INFLIGHT];
static char keys[200];

static void step(struct vslot *v, long res);

static void on_done(vigil_loop *l, vigil_file_req *req, int64_t res)
{
    (void)l;
    step(req->data, (long)res);
}

static void go(struct vslot *v)
{
    int r = vigil_file_start(loop, v->req);
    if (r < 0)
        fo_die("vigil_file_start", r);
}

/* Advances slot v's operation: res is the last call's result (ignored at step 0). */
static void step(struct vslot *v, long res)
{
    struct fo *fo = v->fo;
    vigil_file_req *r = v->req;
    int i = v->i;
    if (v->step > 0 && res < 0) {
        fo_done(fo, v->s, res);
        return;
    }
    switch (fo->op) {
    case FO_CREATE:
    case FO_READ:
        if (v->step == 0) {
            int flags = fo->op == FO_CREATE ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC;
            vigil_file_prep_open(r, AT_FDCWD, fo->f[i], flags, 0644, on_done);
        } else if (v->step == 1) {
            v->fd = (int)res;
            if (fo->op == FO_CREATE)
                vigil_file_prep_write(r, v->fd, fo->wbuf, FO_BS, 0, on_done);
            else
                vigil_file_prep_read(r, v->fd, fo->rbuf[v->s], FO_BS, 0, on_done);
        } else if (v->step == 2) {
            if (res != FO_BS)
                fo_die("short read or write", EIO);
            vigil_file_prep_close(r, v->fd, on_done);
        } else {
            fo_done(fo, v->s, 0);
            return;
        }
        break;
    case FO_READDIR:
        if (v->step == 0) {
            vigil_file_prep_open(r, AT_FDCWD, fo->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, on_done);
        } else if (v->step == 1 || res > 0) {
            if (v->step == 1) {
                v->fd = (int)res;
            } else {
                fo->entries += fo_count_dirents(fo->rbuf[v->s], res);
                /* less than a full buffer: the directory's end was reached */
                if (res <= FO_DIRBUF - 280) {
                    vigil_file_prep_close(r, v->fd, on_done);
                    v->step = 100;
                    break;
                }
            }
            vigil_file_prep_readdir(r, v->fd, fo->rbuf[v->s], FO_DIRBUF, v->step == 1 ? 0 : VIGIL_FILE_DIR_NEXT,
                                    on_done);
        } else if (v->step < 100) {
            vigil_file_prep_close(r, v->fd, on_done); /* res 0: the end */
            v->step = 100;
        } else {
            fo_done(fo, v->s, 0);
            return;
        }
        break;
    default:
        if (v->step > 0) {
            fo_done(fo, v->s, res);
            return;
        }
        switch (fo->op) {
        case FO_STAT:
            vigil_file_prep_stat(r, AT_FDCWD, fo->f[i], 0, STATX_BASIC_STATS, &v->stx, on_done);
            break;
        case FO_RENAME: vigil_file_prep_rename(r, AT_FDCWD, fo_src(fo, i), AT_FDCWD, fo_dst(fo, i), 0, on_done); break;
        case FO_UNLINK: vigil_file_prep_unlink(r, AT_FDCWD, fo->f[i], on_done); break;
        case FO_MKDIR: vigil_file_prep_mkdir(r, AT_FDCWD, fo->g[i], 0755, on_done); break;
        case FO_SYMLINK: vigil_file_prep_symlink(r, "target", AT_FDCWD, fo->g[i], on_done); break;
        case FO_LINK: vigil_file_prep_link(r, AT_FDCWD, fo->f[i], AT_FDCWD, fo->g[i], 0, on_done); break;
        case FO_FTRUNCATE: vigil_file_prep_ftruncate(r, fo->fds[v->s], (i & 1) ? 8192 : 0, on_done); break;
        case FO_FALLOCATE:
            vigil_file_prep_fallocate(r, fo->fds[v->s], 0, (int64_t)(i % 16) * 4096, 4096, on_done);
            break;
        }
        break;
    }
    r->data = v;
    v->step++;
    go(v);
}

static void sys_start(struct fo *fo, int s, int i)
{
    struct vslot *v = &slots[s];
    v->fo = fo;
    v->s = s;
    v->i = i;
    v->step = 0;
    step(v, 0);
}

static void sys_wait(struct fo *fo)
{
    (void)fo;
    int r = vigil_loop_run(loop, VIGIL_RUN_ONCE);
    if (r < 0)
        fo_die("vigil_loop_run", r);
}

static const char *engine_arg = "uring", *route_arg;

static void sys_init(struct fo *fo)
{
    if (route_arg)
        setenv("VIGIL_FILE_FS_ROUTE", route_arg, 1);
    struct vigil_loop_options lo;
    vigil_loop_options_init(&lo);
    struct vigil_file_options o;
    vigil_file_options_init(&o);
    if (!strcmp(engine_arg, "uring")) {
        lo.backend = VIGIL_BACKEND_URING;
        o.engine = VIGIL_FILE_ENGINE_URING;
    } else if (!strcmp(engine_arg, "aio")) {
        o.engine = VIGIL_FILE_ENGINE_AIO;
    } else if (!strcmp(engine_arg, "threads")) {
        o.engine = VIGIL_FILE_ENGINE_THREADS;
    } else {
        fprintf(stderr, "fo_vigil: unknown engine %s\n", engine_arg);
        exit(2);
    }
    int r = vigil_loop_new(&loop, &lo);
    if (r < 0) {
        fprintf(stderr, "fo_vigil: loop: %s\n", strerror(-r));
        exit(r == -ENOSYS || r == -EPERM ? 77 : 1);
    }
    if ((r = vigil_file_setup(loop, &o)) < 0) {
        fprintf(stderr, "fo_vigil: engine %s: %s (%s)\n", engine_arg, strerror(-r), vigil_file_engine_reason(loop));
        exit(r == -ENOSYS ? 77 : 1);
    }
    for (int s = 0; s < FO_MAX_INFLIGHT; s++) {
        slots[s].req = vigil_file_req_get(loop);
        if (!slots[s].req)
            fo_die("vigil_file_req_get", ENOMEM);
    }
    snprintf(keys, sizeof keys, "\"engine\":\"%s\",\"backend\":\"%s\"", vigil_file_engine(loop),
             vigil_loop_backend(loop));
    fo->keys_extra = keys;
    fo->cas = route_arg ? (!strcmp(route_arg, "ring") ? "route ring" : "route threads") : NULL; /* the op */
}

static void sys_fini(struct fo *fo)
{
    (void)fo;
    for (int s = 0; s < FO_MAX_INFLIGHT; s++)
        vigil_file_req_put(loop, slots[s].req);
    vigil_loop_free(loop);
}

int main(int argc, char **argv)
{
    for (int a = 1; a + 1 < argc; a++) {
        if (!strcmp(argv[a], "--engine"))
            engine_arg = argv[a + 1];
        if (!strcmp(argv[a], "--route"))
            route_arg = argv[a + 1];
    }
    static struct fo fo;
    fo.system = "vigil";
    static const struct fo_sys sys = {sys_init, sys_start, sys_wait, sys_fini};
    return fo_main(argc, argv, &fo, &sys);
}
