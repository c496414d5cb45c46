/* fs-ops, system "libuv": uv_fs_* requests on libuv's thread pool, one per slot; create
 * and read chain uv_fs_open -> uv_fs_write/uv_fs_read -> uv_fs_close from the callbacks;
 * readdir is uv_fs_scandir (the whole directory in one request, what a libuv program
 * calls to list a directory; libuv sorts the names and leaves out "." and ".."), its
 * entries walked with uv_fs_scandir_next. --threads N sets UV_THREADPOOL_SIZE before
 * libuv starts its pool (4 when not given: libuv's default); the records carry it as
 * "threads". */
#include "fo.h"

#include <uv.h>

struct uslot {
    struct fo *fo;
    int s, i, step;
    uv_file fd;
    uv_fs_t req;
};

static uv_loop_t *loop;
static struct uslot slots[FO_MAX_INFLIGHT];
static char keys[64];

static void step(struct uslot *u, long res);

static void on_fs(uv_fs_t *req)
{
    struct uslot *u = req->data;
    long res = (long)req->result;
    if (req->fs_type == UV_FS_SCANDIR && res >= 0) {
        uv_dirent_t d;
        long n = 0;
        while (uv_fs_scandir_next(req, &d) != UV_EOF)
            n++;
        u->fo->entries += n + 2; /* scandir leaves out "." and ".." */
    }
    uv_fs_req_cleanup(req);
    step(u, res);
}

static void step(struct uslot *u, long res)
{
    struct fo *fo = u->fo;
    int i = u->i, r = 0;
    uv_fs_t *q = &u->req;
    if (u->step > 0 && res < 0) {
        fo_done(fo, u->s, res);
        return;
    }
    q->data = u;
    if (fo->op == FO_CREATE || fo->op == FO_READ) {
        if (u->step == 0) {
            int flags = fo->op == FO_CREATE ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC;
            r = uv_fs_open(loop, q, fo->f[i], flags, 0644, on_fs);
        } else if (u->step == 1) {
            u->fd = (uv_file)res;
            uv_buf_t b = uv_buf_init(fo->op == FO_CREATE ? fo->wbuf : fo->rbuf[u->s], FO_BS);
            r = fo->op == FO_CREATE ? uv_fs_write(loop, q, u->fd, &b, 1, 0, on_fs)
                                    : uv_fs_read(loop, q, u->fd, &b, 1, 0, on_fs);
        } else if (u->step == 2) {
            if (res != FO_BS)
                fo_die("short read or write", EIO);
            r = uv_fs_close(loop, q, u->fd, on_fs);
        } else {
            fo_done(fo, u->s, 0);
            return;
        }
    } else {
        if (u->step == 1) {
            fo_done(fo, u->s, res);
            return;
        }
        switch (fo->op) {
        case FO_STAT: r = uv_fs_stat(loop, q, fo->f[i], on_fs); break;
        case FO_RENAME: r = uv_fs_rename(loop, q, fo_src(fo, i), fo_dst(fo, i), on_fs); break;
        case FO_UNLINK: r = uv_fs_unlink(loop, q, fo->f[i], on_fs); break;
        case FO_READDIR: r = uv_fs_scandir(loop, q, fo->dir, 0, on_fs); break;
        case FO_MKDIR: r = uv_fs_mkdir(loop, q, fo->g[i], 0755, on_fs); break;
        case FO_SYMLINK: r = uv_fs_symlink(loop, q, "target", fo->g[i], 0, on_fs); break;
        case FO_LINK: r = uv_fs_link(loop, q, fo->f[i], fo->g[i], on_fs); break;
        case FO_FTRUNCATE: r = uv_fs_ftruncate(loop, q, fo->fds[u->s], (i & 1) ? 8192 : 0, on_fs); break;
        default: fprintf(stderr, "fo_libuv: %s: libuv has no such call\n", fo_op_names[fo->op]); exit(77);
        }
    }
    if (r < 0)
        fo_die("uv_fs_*", r);
    u->step++;
}

static void sys_start(struct fo *fo, int s, int i)
{
    struct uslot *u = &slots[s];
    u->fo = fo;
    u->s = s;
    u->i = i;
    u->step = 0;
    step(u, 0);
}

static void sys_wait(struct fo *fo)
{
    (void)fo;
    uv_run(loop, UV_RUN_ONCE);
}

static const char *threads_arg = "4";

static void sys_init(struct fo *fo)
{
    if (fo->op == FO_FALLOCATE) {
        fprintf(stderr, "fo_libuv: fallocate: libuv has no such call\n");
        exit(77);
    }
    setenv("UV_THREADPOOL_SIZE", threads_arg, 1); /* read when the pool first starts */
    loop = uv_default_loop();
    snprintf(keys, sizeof keys, "\"threads\":%d", atoi(threads_arg));
    fo->keys_extra = keys;
}

int main(int argc, char **argv)
{
    for (int a = 1; a + 1 < argc; a++)
        if (!strcmp(argv[a], "--threads"))
            threads_arg = argv[a + 1];
    static struct fo fo;
    fo.system = "libuv";
    static const struct fo_sys sys = {sys_init, sys_start, sys_wait, NULL};
    return fo_main(argc, argv, &fo, &sys);
}
