/* File I/O through vigil's file engine (<vigil/file.h>): vigil._core.FileIO, the C half
 * of vigil.files.File, and the module functions the path calls use (file_open,
 * file_stat, file_unlink, file_rename, file_mkdir). Every call starts one vigil file
 * request in the loop's turn (io_uring, Linux AIO or the engine's threads: never a
 * Python thread per call) and returns an asyncio future the request's completion sets.
 *
 * A request (struct freq, malloc'd) is a handle of the loop (VPY_KIND_FILE) from its
 * start to its completion. vigil's callback runs inside vigil_loop_run, maybe without
 * the GIL: it only records the result and one event (vpy_pend_push). The event, with
 * the GIL, sets the future (set_result only schedules the future's callbacks through
 * call_soon: no Python code of the user runs there), then the request is freed.
 *
 * Cancellation: a future cancelled while its request runs does not stop the request (a
 * regular file's I/O cannot be interrupted); the request keeps its buffer, its path and
 * its file alive until it completes, then its result is dropped. An open whose future
 * was cancelled closes the fd it got. No fd is closed while a request on it runs (the
 * threads engine names files by number: a reused number would get another file's I/O).
 *
 * The file's position (FileIO.read/write/seek/readdir, the "cursor" operations): they run
 * one at a time per file, in the order they were called (a FIFO per file; pread/pwrite
 * and stat run beside them). A read's bytes move the position only when its future takes
 * them: a cancelled read leaves the position where it was. A write moves it by what the
 * kernel wrote, cancelled or not (the bytes are in the file): the position always agrees
 * with the file.
 *
 * Closing the loop with requests in flight: vigil_loop_free ends them (every callback
 * runs once); loop_freed then drops what each held (an open's new fd is closed). */
#include "loop.h"

#include <structmember.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum fop {
    F_OPEN,
    F_CLOSE,
    F_READ,   /* cursor */
    F_WRITE,  /* cursor */
    F_SEEK,   /* cursor, no request */
    F_READDIR,/* cursor */
    F_PREAD,
    F_PWRITE,
    F_FSTAT,
    F_STAT,
    F_UNLINK,
    F_RENAME,
    F_MKDIR,
    F_SENDFILE,
};

#define DIRBUF_LEN 32768

typedef struct FileObject FileObject;

struct freq {
    vigil_file_req req;
    struct vpy_handle lh;
    LoopObject *loop;   /* borrowed: a started handle is finished before the loop goes */
    PyObject *fut;      /* strong */
    PyObject *obj;      /* READ/PREAD: the bytes read into; paths: the path (bytes) */
    PyObject *obj2;     /* RENAME: the new path; OPEN: the class to make */
    FileObject *file;   /* strong, for a file's operations */
    struct freq *next;  /* the file's queue of cursor operations */
    int64_t res;
    int64_t seek_off;   /* SEEK */
    int whence;         /* SEEK */
    enum fop op;
    char has_view, as_bytes, started, called; /* called: vigil's callback ran */
    Py_buffer view;     /* WRITE/PWRITE: the caller's bytes, held */
    struct statx stx;   /* STAT/FSTAT */
    char *dirbuf;       /* READDIR */
    int sock;           /* SENDFILE: a dup of the socket, the request's own (-1: none) */
};

struct FileObject {
    PyObject_HEAD
    LoopObject *loop; /* strong */
    PyObject *name;
    int fd;           /* -1 once closed */
    int64_t pos;
    int nreq;         /* requests on fd in flight (any kind) */
    struct freq *cur; /* the cursor operation running */
    struct freq *qhead, *qtail;
    struct freq *closing; /* a close waiting for nreq == 0 */
    char close_asked, append, readable, writable, is_dir, names_bytes;
    PyObject *weakreflist;
};

static PyObject *s_set_result, *s_set_exception, *s_done, *s_create_future;

/* An int argument (PyLong_AsInt is 3.13's). -1 with an exception set on error. */
static int int_arg(PyObject *o, int *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < INT_MIN || v > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C int");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* ------------------------------------------------------------- futures */

static PyObject *new_future(LoopObject *l)
{
    return PyObject_CallMethodNoArgs((PyObject *)l, s_create_future);
}

/* 1 if fut is done (cancelled while its request ran), 0 if not, -1 on error. */
static int fut_done(PyObject *fut)
{
    PyObject *d = PyObject_CallMethodNoArgs(fut, s_done);
    if (!d)
        return -1;
    int r = PyObject_IsTrue(d);
    Py_DECREF(d);
    return r;
}

/* Sets fut's result (steals val; NULL: the error raised now becomes its exception). */
static void fut_settle(PyObject *fut, PyObject *val, int is_exc)
{
    if (!val) {
        if (vpy_exc_escapes())
            return;
        val = vpy_fetch_exc();
        is_exc = 1;
        if (!val)
            return;
    }
    int d = fut_done(fut);
    PyObject *r = NULL;
    if (d == 0)
        r = PyObject_CallMethodOneArg(fut, is_exc ? s_set_exception : s_set_result, val);
    Py_DECREF(val);
    if (d < 0 || (d == 0 && !r)) {
        if (!vpy_exc_escapes())
            PyErr_WriteUnraisable(fut);
    }
    Py_XDECREF(r);
}

/* OSError (its errno's subclass: FileNotFoundError, IsADirectoryError...) with the
 * path(s) as filename(s), as os's calls raise. */
static PyObject *os_error(int err, PyObject *path, PyObject *path2)
{
    PyObject *args = path2 ? Py_BuildValue("(isOiO)", err, strerror(err), path, 0, path2)
                           : path ? Py_BuildValue("(isO)", err, strerror(err), path)
                                  : Py_BuildValue("(is)", err, strerror(err));
    if (!args)
        return NULL;
    PyObject *e = PyObject_Call(PyExc_OSError, args, NULL);
    Py_DECREF(args);
    return e;
}

/* ------------------------------------------------------------ requests */

static const struct vpy_handle_ops freq_ops;

static void on_done(vigil_loop *vl, vigil_file_req *r, int64_t res)
{
    struct freq *f = vpy_container_of(r, struct freq, req);
    f->res = res;
    f->called = 1;
    vpy_pend_push(vigil_loop_data(vl), &f->lh, 0);
}

static struct freq *freq_new(LoopObject *l, enum fop op, FileObject *fo)
{
    struct freq *f = calloc(1, sizeof *f);
    if (!f) {
        PyErr_NoMemory();
        return NULL;
    }
    f->loop = l;
    f->op = op;
    f->sock = -1;
    vpy_handle_init(&f->lh, &freq_ops);
    f->fut = new_future(l);
    if (!f->fut) {
        free(f);
        return NULL;
    }
    if (fo) {
        Py_INCREF(fo);
        f->file = fo;
    }
    return f;
}

/* Drops what f holds, and f. */
static void freq_free(struct freq *f)
{
    if (f->sock >= 0)
        close(f->sock); /* the request ended: nothing uses the dup any more */
    if (f->has_view)
        PyBuffer_Release(&f->view);
    free(f->dirbuf);
    PyObject *fut = f->fut, *o = f->obj, *o2 = f->obj2, *fo = (PyObject *)f->file;
    free(f);
    Py_XDECREF(o);
    Py_XDECREF(o2);
    Py_XDECREF(fut);
    Py_XDECREF(fo); /* last: dropping it may close the file */
}

/* Starts f's vigil request. 0, or -1 with f's future failed (f not freed). */
static int freq_start(struct freq *f)
{
    LoopObject *l = f->loop;
    if (!l->vl) {
        fut_settle(f->fut, os_error(EBADF, NULL, NULL), 1);
        return -1;
    }
    f->req.data = f;
    int r = vigil_file_start(l->vl, &f->req);
    if (r < 0) {
        fut_settle(f->fut, os_error(-r, NULL, NULL), 1);
        return -1;
    }
    f->started = 1;
    vpy_handle_start(l, &f->lh);
    if (f->file && f->op != F_CLOSE)
        f->file->nreq++;
    return 0;
}

static void file_pump(FileObject *fo);

/* Prepares a cursor operation at the file's position and starts it; SEEK is done here.
 * 1: running (fo->cur), 0: finished at once (f freed). */
static int cursor_run(FileObject *fo, struct freq *f)
{
    switch (f->op) {
    case F_READ:
        vigil_file_prep_read(&f->req, fo->fd, PyBytes_AS_STRING(f->obj), (size_t)PyBytes_GET_SIZE(f->obj), fo->pos,
                             on_done);
        break;
    case F_WRITE:
        vigil_file_prep_write(&f->req, fo->fd, f->view.buf, (size_t)f->view.len, fo->pos, on_done);
        break;
    case F_READDIR:
        vigil_file_prep_readdir(&f->req, fo->fd, f->dirbuf, DIRBUF_LEN, VIGIL_FILE_DIR_NEXT, on_done);
        break;
    case F_SEEK: {
        int64_t base = 0, np;
        if (f->whence == SEEK_CUR) {
            base = fo->pos;
        } else if (f->whence == SEEK_END) {
            struct stat st; /* the inode is in memory while the file is open: no I/O */
            if (fstat(fo->fd, &st) < 0) {
                fut_settle(f->fut, os_error(errno, fo->name, NULL), 1);
                goto done;
            }
            base = st.st_size;
        }
        if (__builtin_add_overflow(base, f->seek_off, &np) || np < 0) {
            fut_settle(f->fut, os_error(EINVAL, fo->name, NULL), 1);
            goto done;
        }
        fo->pos = np;
        fut_settle(f->fut, PyLong_FromLongLong(np), 0);
        goto done;
    }
    default:
        break;
    }
    fo->cur = f;
    if (freq_start(f) == 0)
        return 1;
    fo->cur = NULL;
done:
    freq_free(f);
    return 0;
}

/* A close that found the file idle: starts it (or closes at once when the loop is gone). */
static void close_run(FileObject *fo, struct freq *f)
{
    fo->closing = NULL;
    vigil_file_prep_close(&f->req, fo->fd, on_done);
    if (freq_start(f) < 0) {
        close(fo->fd);
        fo->fd = -1;
        freq_free(f);
    }
}

/* Runs the file's queue: the next cursor operations whose futures still wait (one is
 * left running), then a close once nothing runs on the fd. */
static void file_pump(FileObject *fo)
{
    Py_INCREF(fo);
    while (!fo->cur && fo->qhead) {
        struct freq *f = fo->qhead;
        fo->qhead = f->next;
        if (!fo->qhead)
            fo->qtail = NULL;
        f->next = NULL;
        if (f->op == F_CLOSE) {
            fo->closing = f;
            break;
        }
        int d = fut_done(f->fut); /* cancelled while it waited: never started */
        if (d != 0) {
            if (d < 0)
                PyErr_WriteUnraisable(f->fut);
            freq_free(f);
            continue;
        }
        cursor_run(fo, f);
    }
    if (fo->closing && fo->nreq == 0 && !fo->cur)
        close_run(fo, fo->closing);
    Py_DECREF(fo);
}

/* A cursor operation (or a close) for fo: queued behind the running one, or run now. */
static PyObject *file_enqueue(FileObject *fo, struct freq *f)
{
    PyObject *fut = Py_NewRef(f->fut);
    if (fo->qtail)
        fo->qtail->next = f;
    else
        fo->qhead = f;
    fo->qtail = f;
    file_pump(fo);
    return fut;
}

/* The list of names in a READDIR buffer ("." and ".." left out). */
static PyObject *dir_names(struct freq *f, size_t len)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    size_t pos = 0;
    const struct vigil_dirent *d;
    while ((d = vigil_file_dirent_next(f->dirbuf, len, &pos))) {
        size_t n = strnlen(d->name, d->reclen - offsetof(struct vigil_dirent, name));
        if ((n == 1 && d->name[0] == '.') || (n == 2 && d->name[0] == '.' && d->name[1] == '.'))
            continue;
        PyObject *s = f->as_bytes ? PyBytes_FromStringAndSize(d->name, (Py_ssize_t)n)
                                  : PyUnicode_DecodeFSDefaultAndSize(d->name, (Py_ssize_t)n);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    return list;
}

static PyObject *stat_result(const struct statx *x)
{
    static PyObject *cls;
    if (!cls) {
        PyObject *os = PyImport_ImportModule("os");
        if (!os)
            return NULL;
        cls = PyObject_GetAttrString(os, "stat_result");
        Py_DECREF(os);
        if (!cls)
            return NULL;
    }
    const struct statx_timestamp *ts[3] = {&x->stx_atime, &x->stx_mtime, &x->stx_ctime};
    PyObject *t = PyTuple_New(19);
    if (!t)
        return NULL;
    PyTuple_SET_ITEM(t, 0, PyLong_FromUnsignedLong(x->stx_mode));
    PyTuple_SET_ITEM(t, 1, PyLong_FromUnsignedLongLong(x->stx_ino));
    PyTuple_SET_ITEM(t, 2, PyLong_FromUnsignedLongLong(makedev(x->stx_dev_major, x->stx_dev_minor)));
    PyTuple_SET_ITEM(t, 3, PyLong_FromUnsignedLong(x->stx_nlink));
    PyTuple_SET_ITEM(t, 4, PyLong_FromUnsignedLong(x->stx_uid));
    PyTuple_SET_ITEM(t, 5, PyLong_FromUnsignedLong(x->stx_gid));
    PyTuple_SET_ITEM(t, 6, PyLong_FromUnsignedLongLong(x->stx_size));
    for (int i = 0; i < 3; i++) {
        PyTuple_SET_ITEM(t, 7 + i, PyLong_FromLongLong(ts[i]->tv_sec));
        PyTuple_SET_ITEM(t, 10 + i, PyFloat_FromDouble((double)ts[i]->tv_sec + ts[i]->tv_nsec * 1e-9));
        PyTuple_SET_ITEM(t, 13 + i, PyLong_FromLongLong(ts[i]->tv_sec * 1000000000LL + ts[i]->tv_nsec));
    }
    PyTuple_SET_ITEM(t, 16, PyLong_FromUnsignedLong(x->stx_blksize));
    PyTuple_SET_ITEM(t, 17, PyLong_FromUnsignedLongLong(x->stx_blocks));
    PyTuple_SET_ITEM(t, 18, PyLong_FromUnsignedLongLong(makedev(x->stx_rdev_major, x->stx_rdev_minor)));
    for (int i = 0; i < 19; i++) {
        if (!PyTuple_GET_ITEM(t, i)) {
            Py_DECREF(t);
            return NULL;
        }
    }
    PyObject *r = PyObject_CallOneArg(cls, t);
    Py_DECREF(t);
    return r;
}

static PyObject *file_make(LoopObject *l, PyTypeObject *cls, int fd, PyObject *name, int flags);

/* The completion, with the GIL: the file's bookkeeping, then the future. */
static void freq_complete(struct freq *f)
{
    FileObject *fo = f->file;
    int64_t res = f->res;
    int err = res < 0 ? (int)-res : 0;
    int dropped = fut_done(f->fut);
    if (dropped < 0) {
        PyErr_WriteUnraisable(f->fut);
        dropped = 1;
    }
    PyObject *val = NULL;
    int is_exc = err != 0;
    if (fo && f->op != F_CLOSE)
        fo->nreq--;
    switch (f->op) {
    case F_OPEN:
        if (err)
            break;
        if (dropped) {
            close((int)res); /* nobody takes the new fd */
            break;
        }
        val = file_make(f->loop, (PyTypeObject *)f->obj2, (int)res, f->obj, f->req.arg);
        if (!val)
            close((int)res);
        break;
    case F_CLOSE:
        fo->fd = -1;
        if (!err)
            val = Py_NewRef(Py_None);
        break;
    case F_READ:
    case F_PREAD:
        if (err || dropped)
            break;
        if (f->op == F_READ)
            fo->pos += res;
        if (res != PyBytes_GET_SIZE(f->obj) && _PyBytes_Resize(&f->obj, (Py_ssize_t)res) < 0) {
            f->obj = NULL;
            break;
        }
        val = Py_NewRef(f->obj);
        break;
    case F_WRITE:
    case F_PWRITE:
    case F_SENDFILE:
        if (!err && f->op == F_WRITE)
            fo->pos += res; /* in the file, taken or not */
        if (!err)
            val = PyLong_FromLongLong(res);
        break;
    case F_READDIR: /* (names, at_end): a short buffer means the end was reached */
        if (!err && !dropped) {
            PyObject *names = dir_names(f, (size_t)res);
            if (names)
                val = Py_BuildValue("(NO)", names, res < DIRBUF_LEN - 280 ? Py_True : Py_False);
        }
        break;
    case F_STAT:
    case F_FSTAT:
        if (!err && !dropped)
            val = stat_result(&f->stx);
        break;
    default:
        if (!err)
            val = Py_NewRef(Py_None);
        break;
    }
    if (fo && fo->cur == f)
        fo->cur = NULL;
    if (!dropped) {
        if (err)
            val = os_error(err, f->op == F_OPEN || (f->op >= F_STAT && f->op != F_SENDFILE) ? f->obj : fo ? fo->name : NULL,
                           f->op == F_RENAME ? f->obj2 : NULL);
        fut_settle(f->fut, val, is_exc);
    } else {
        Py_XDECREF(val);
        if (PyErr_Occurred())
            PyErr_WriteUnraisable(f->fut);
    }
    if (fo)
        file_pump(fo);
}

static int freq_event(LoopObject *l, struct vpy_handle *h, int revents)
{
    struct freq *f = vpy_container_of(h, struct freq, lh);
    vpy_handle_stop(l, h);
    freq_complete(f);
    freq_free(f);
    if (PyErr_Occurred()) {
        if (vpy_exc_escapes())
            return -1;
        PyErr_WriteUnraisable(NULL);
    }
    return 0;
}

static void file_drop_queue(FileObject *fo);

/* The loop is gone: nothing queued will run; a close that waited closes now. */
static void file_loop_gone(FileObject *fo)
{
    file_drop_queue(fo);
    if (fo->closing && fo->nreq == 0) {
        struct freq *c = fo->closing;
        fo->closing = NULL;
        if (fo->fd >= 0)
            close(fo->fd);
        fo->fd = -1;
        freq_free(c);
    }
}

/* vigil_loop_free ended the request: nobody will take its result. */
static void freq_loop_freed(LoopObject *l, struct vpy_handle *h)
{
    struct freq *f = vpy_container_of(h, struct freq, lh);
    vpy_handle_stop(l, h);
    FileObject *fo = f->file;
    if (f->op == F_OPEN && f->called && f->res >= 0)
        close((int)f->res);
    if (fo) {
        Py_INCREF(fo);
        if (f->op == F_CLOSE) {
            if (!(f->called && f->res == 0) && fo->fd >= 0)
                close(fo->fd); /* cancelled by vigil_loop_free, or never run */
            fo->fd = -1;
        } else {
            fo->nreq--;
        }
        if (fo->cur == f)
            fo->cur = NULL;
    }
    freq_free(f);
    if (fo) {
        file_loop_gone(fo);
        Py_DECREF(fo);
    }
}

static int freq_traverse(struct vpy_handle *h, visitproc visit, void *arg)
{
    struct freq *f = vpy_container_of(h, struct freq, lh);
    Py_VISIT(f->fut);
    Py_VISIT(f->obj);
    Py_VISIT(f->obj2);
    Py_VISIT((PyObject *)f->file);
    return 0;
}

static const struct vpy_handle_ops freq_ops = {
    .kind = VPY_KIND_FILE,
    .event = freq_event,
    .loop_freed = freq_loop_freed,
    .traverse = freq_traverse,
};

/* ------------------------------------------------------------- FileIO */

static PyObject *file_make(LoopObject *l, PyTypeObject *cls, int fd, PyObject *name, int flags)
{
    FileObject *fo = (FileObject *)cls->tp_alloc(cls, 0);
    if (!fo)
        return NULL;
    fo->loop = (LoopObject *)Py_NewRef(l);
    fo->fd = fd;
    fo->name = Py_NewRef(name ? name : Py_None);
    int acc = flags & O_ACCMODE;
    fo->readable = acc == O_RDONLY || acc == O_RDWR;
    fo->writable = acc == O_WRONLY || acc == O_RDWR;
    fo->append = (flags & O_APPEND) != 0;
    fo->is_dir = (flags & O_DIRECTORY) != 0;
    if (fo->append) {
        struct stat st; /* the inode is in memory while the file is open: no I/O */
        if (fstat(fd, &st) == 0)
            fo->pos = st.st_size;
    }
    return (PyObject *)fo;
}

static int file_check(FileObject *fo)
{
    if (fo->close_asked || fo->fd < 0) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on closed file");
        return -1;
    }
    return vpy_check_open(fo->loop);
}

static int file_check_mode(FileObject *fo, int write)
{
    if (file_check(fo) < 0)
        return -1;
    if (write ? !fo->writable : !fo->readable) {
        PyObject *io = PyImport_ImportModule("io");
        PyObject *exc = io ? PyObject_GetAttrString(io, "UnsupportedOperation") : NULL;
        Py_XDECREF(io);
        if (exc) {
            PyErr_SetString(exc, write ? "File not open for writing" : "File not open for reading");
            Py_DECREF(exc);
        }
        return -1;
    }
    return 0;
}

static Py_ssize_t read_size(FileObject *fo, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "read size must be >= 0 (vigil.files.File.read(-1) reads to the end)");
        return -1;
    }
    if (n > 0x7ffff000)
        n = 0x7ffff000;
    return n;
}

/* read(n): up to n bytes at the position (b"" at the end of the file). */
static PyObject *file_read(FileObject *fo, PyObject *arg)
{
    if (file_check_mode(fo, 0) < 0)
        return NULL;
    Py_ssize_t n = read_size(fo, arg);
    if (n < 0)
        return NULL;
    struct freq *f = freq_new(fo->loop, F_READ, fo);
    if (!f)
        return NULL;
    if (!(f->obj = PyBytes_FromStringAndSize(NULL, n))) {
        freq_free(f);
        return NULL;
    }
    return file_enqueue(fo, f);
}

static int hold_buffer(struct freq *f, PyObject *b)
{
    if (PyUnicode_Check(b)) {
        PyErr_SetString(PyExc_TypeError, "a bytes-like object is required, not 'str' (vigil's files are binary)");
        return -1;
    }
    if (PyObject_GetBuffer(b, &f->view, PyBUF_SIMPLE) < 0)
        return -1;
    f->has_view = 1;
    return 0;
}

/* write(b): b at the position; the count written (len(b) but on a full disk). */
static PyObject *file_write(FileObject *fo, PyObject *b)
{
    if (file_check_mode(fo, 1) < 0)
        return NULL;
    struct freq *f = freq_new(fo->loop, F_WRITE, fo);
    if (!f)
        return NULL;
    if (hold_buffer(f, b) < 0) {
        freq_free(f);
        return NULL;
    }
    return file_enqueue(fo, f);
}

static PyObject *file_pread(FileObject *fo, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pread(n, offset)");
        return NULL;
    }
    if (file_check_mode(fo, 0) < 0)
        return NULL;
    Py_ssize_t n = read_size(fo, args[0]);
    long long off = PyLong_AsLongLong(args[1]);
    if (n < 0 || (off == -1 && PyErr_Occurred()))
        return NULL;
    if (off < 0) {
        PyErr_SetString(PyExc_ValueError, "negative offset");
        return NULL;
    }
    struct freq *f = freq_new(fo->loop, F_PREAD, fo);
    if (!f)
        return NULL;
    if (!(f->obj = PyBytes_FromStringAndSize(NULL, n))) {
        freq_free(f);
        return NULL;
    }
    vigil_file_prep_read(&f->req, fo->fd, PyBytes_AS_STRING(f->obj), (size_t)n, off, on_done);
    PyObject *fut = Py_NewRef(f->fut);
    if (freq_start(f) < 0)
        freq_free(f);
    return fut;
}

static PyObject *file_pwrite(FileObject *fo, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pwrite(b, offset)");
        return NULL;
    }
    if (file_check_mode(fo, 1) < 0)
        return NULL;
    long long off = PyLong_AsLongLong(args[1]);
    if (off == -1 && PyErr_Occurred())
        return NULL;
    if (off < 0) {
        PyErr_SetString(PyExc_ValueError, "negative offset");
        return NULL;
    }
    struct freq *f = freq_new(fo->loop, F_PWRITE, fo);
    if (!f)
        return NULL;
    if (hold_buffer(f, args[0]) < 0) {
        freq_free(f);
        return NULL;
    }
    vigil_file_prep_write(&f->req, fo->fd, f->view.buf, (size_t)f->view.len, off, on_done);
    PyObject *fut = Py_NewRef(f->fut);
    if (freq_start(f) < 0)
        freq_free(f);
    return fut;
}

/* _sendfile(sockfd, offset, count): one sendfile(2) from the file at offset to the
 * socket, through the engine; the count sent (may be short; BlockingIOError when the
 * socket stays full). The request owns a dup of the socket: closing the transport
 * meanwhile cannot hand its number to another file. vigil.files.sendfile drives it. */
static PyObject *file_sendfile(FileObject *fo, PyObject *const *args, Py_ssize_t nargs)
{
    int sock;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "_sendfile(sockfd, offset, count)");
        return NULL;
    }
    if (file_check_mode(fo, 0) < 0 || int_arg(args[0], &sock) < 0)
        return NULL;
    long long off = PyLong_AsLongLong(args[1]);
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    if ((off == -1 || n == -1) && PyErr_Occurred())
        return NULL;
    if (off < 0 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "negative offset or count");
        return NULL;
    }
    struct freq *f = freq_new(fo->loop, F_SENDFILE, fo);
    if (!f)
        return NULL;
    f->sock = fcntl(sock, F_DUPFD_CLOEXEC, 0);
    if (f->sock < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        freq_free(f);
        return NULL;
    }
    vigil_file_prep_sendfile(&f->req, f->sock, fo->fd, off, (size_t)n, on_done);
    PyObject *fut = Py_NewRef(f->fut);
    if (freq_start(f) < 0)
        freq_free(f);
    return fut;
}

/* seek(offset, whence=0): queued with the reads and writes; the new position. */
static PyObject *file_seek(FileObject *fo, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "seek(offset, whence=0)");
        return NULL;
    }
    if (file_check(fo) < 0)
        return NULL;
    long long off = PyLong_AsLongLong(args[0]);
    int whence = SEEK_SET;
    if ((off == -1 && PyErr_Occurred()) || (nargs > 1 && int_arg(args[1], &whence) < 0))
        return NULL;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) {
        PyErr_Format(PyExc_ValueError, "invalid whence (%d, should be 0, 1 or 2)", whence);
        return NULL;
    }
    struct freq *f = freq_new(fo->loop, F_SEEK, fo);
    if (!f)
        return NULL;
    f->seek_off = off;
    f->whence = whence;
    return file_enqueue(fo, f);
}

static PyObject *file_readdir(FileObject *fo, PyObject *unused)
{
    if (file_check(fo) < 0)
        return NULL;
    struct freq *f = freq_new(fo->loop, F_READDIR, fo);
    if (!f)
        return NULL;
    f->as_bytes = fo->names_bytes;
    if (!(f->dirbuf = malloc(DIRBUF_LEN))) {
        freq_free(f);
        return PyErr_NoMemory();
    }
    return file_enqueue(fo, f);
}

static PyObject *file_fstat(FileObject *fo, PyObject *unused)
{
    if (file_check(fo) < 0)
        return NULL;
    struct freq *f = freq_new(fo->loop, F_FSTAT, fo);
    if (!f)
        return NULL;
    vigil_file_prep_stat(&f->req, fo->fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &f->stx, on_done);
    PyObject *fut = Py_NewRef(f->fut);
    if (freq_start(f) < 0)
        freq_free(f);
    return fut;
}

/* close(): after the operations already asked for and every request on the fd; the
 * close runs whether or not its future is awaited. A second close: done at once. */
static PyObject *file_close(FileObject *fo, PyObject *unused)
{
    if (fo->close_asked || fo->fd < 0) {
        PyObject *fut = new_future(fo->loop);
        if (fut)
            fut_settle(fut, Py_NewRef(Py_None), 0);
        return fut;
    }
    if (fo->loop->closed || !fo->loop->vl) {
        close(fo->fd); /* the loop is closed: nothing runs on the fd any more */
        fo->fd = -1;
        PyObject *fut = new_future(fo->loop);
        if (fut)
            fut_settle(fut, Py_NewRef(Py_None), 0);
        return fut;
    }
    struct freq *f = freq_new(fo->loop, F_CLOSE, fo);
    if (!f)
        return NULL;
    fo->close_asked = 1;
    return file_enqueue(fo, f);
}

static PyObject *file_tell(FileObject *fo, PyObject *unused)
{
    return PyLong_FromLongLong(fo->pos);
}

static PyObject *file_fileno(FileObject *fo, PyObject *unused)
{
    if (fo->fd < 0) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on closed file");
        return NULL;
    }
    return PyLong_FromLong(fo->fd);
}

static PyObject *file_get_closed(FileObject *fo, void *c)
{
    return PyBool_FromLong(fo->close_asked || fo->fd < 0);
}

static PyObject *file_get_busy(FileObject *fo, void *c)
{
    return PyLong_FromLong(fo->nreq + (fo->closing != NULL));
}

static int file_traverse(FileObject *fo, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(fo));
    Py_VISIT((PyObject *)fo->loop);
    Py_VISIT(fo->name);
    for (struct freq *f = fo->qhead; f; f = f->next)
        Py_VISIT(f->fut);
    return 0;
}

static void file_drop_queue(FileObject *fo)
{
    struct freq *f = fo->qhead;
    fo->qhead = fo->qtail = NULL;
    while (f) {
        struct freq *n = f->next;
        f->file = NULL; /* it does not hold fo any more (fo is going) */
        Py_DECREF(fo);
        freq_free(f);
        f = n;
    }
}

static int file_clear(FileObject *fo)
{
    /* Queued operations hold fo: only the GC breaks that cycle, and nothing runs them. */
    file_drop_queue(fo);
    Py_CLEAR(fo->name);
    return 0;
}

static void file_dealloc(FileObject *fo)
{
    vpy_dealloc_begin((PyObject *)fo, fo->weakreflist);
    /* No request runs (each holds fo); a file nobody closed is closed here, as io's are. */
    if (fo->closing) {
        fo->closing->file = NULL;
        freq_free(fo->closing);
    }
    if (fo->fd >= 0)
        close(fo->fd);
    Py_CLEAR(fo->name);
    Py_CLEAR(fo->loop);
    vpy_dealloc_end((PyObject *)fo);
}

static PyObject *file_set_names_bytes(FileObject *fo, PyObject *v)
{
    int b = PyObject_IsTrue(v);
    if (b < 0)
        return NULL;
    fo->names_bytes = (char)b;
    Py_RETURN_NONE;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL

static PyMethodDef file_methods[] = {
    {"read", (PyCFunction)file_read, METH_O, NULL},
    {"_read", (PyCFunction)file_read, METH_O, NULL},
    {"write", (PyCFunction)file_write, METH_O, NULL},
    {"pread", FASTCALL(file_pread), NULL},
    {"pwrite", FASTCALL(file_pwrite), NULL},
    {"seek", FASTCALL(file_seek), NULL},
    {"tell", (PyCFunction)file_tell, METH_NOARGS, NULL},
    {"stat", (PyCFunction)file_fstat, METH_NOARGS, NULL},
    {"close", (PyCFunction)file_close, METH_NOARGS, NULL},
    {"fileno", (PyCFunction)file_fileno, METH_NOARGS, NULL},
    {"_readdir", (PyCFunction)file_readdir, METH_NOARGS, NULL},
    {"_sendfile", FASTCALL(file_sendfile), NULL},
    {"_names_bytes", (PyCFunction)file_set_names_bytes, METH_O, NULL},
    {NULL},
};

static PyGetSetDef file_getset[] = {
    {"closed", (getter)file_get_closed, NULL, "True once close() was called.", NULL},
    {"_inflight", (getter)file_get_busy, NULL, NULL, NULL},
    {NULL},
};

static PyMemberDef file_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(FileObject, weakreflist), READONLY, NULL},
    {"name", T_OBJECT, offsetof(FileObject, name), READONLY, NULL},
    {NULL},
};

static PyType_Slot file_slots[] = {
    {Py_tp_doc, "The C half of vigil.files.File (made by vigil.open, never directly)."},
    {Py_tp_dealloc, file_dealloc},
    {Py_tp_traverse, file_traverse},
    {Py_tp_clear, file_clear},
    {Py_tp_methods, file_methods},
    {Py_tp_getset, file_getset},
    {Py_tp_members, file_members},
    {0, NULL},
};

static PyType_Spec file_spec = {
    .name = "vigil._core.FileIO",
    .basicsize = sizeof(FileObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = file_slots,
};

/* ------------------------------------------------------ the path calls */

static PyTypeObject *file_type; /* for the check in file_open (a heap type of this module) */

/* The engine, on a loop's first file call: io_uring on the uring backend, else the
 * engine's threads, not vigil's AUTO choice of Linux AIO, which performs a buffered
 * request synchronously inside io_submit (a read of an uncached file would stall the
 * loop's thread). VIGIL_FILE_ENGINE, when set, decides instead. Later calls find the
 * engine chosen (-EBUSY: a pointer test). */
static void choose_engine(LoopObject *l)
{
    static int env = -1;
    if (env < 0)
        env = getenv("VIGIL_FILE_ENGINE") != NULL;
    struct vigil_file_options opt;
    vigil_file_options_init(&opt);
    opt.engine = env ? VIGIL_FILE_ENGINE_AUTO
                     : strcmp(vigil_loop_backend(l->vl), "uring") ? VIGIL_FILE_ENGINE_THREADS : VIGIL_FILE_ENGINE_URING;
    int r = vigil_file_setup(l->vl, &opt);
    if (r < 0 && r != -EBUSY && opt.engine == VIGIL_FILE_ENGINE_URING) {
        opt.engine = VIGIL_FILE_ENGINE_AUTO; /* io_uring refused the file engine: vigil's fallback */
        (void)vigil_file_setup(l->vl, &opt);
    }
}

static LoopObject *loop_arg(PyObject *m, PyObject *o)
{
    vpy_state *st = PyModule_GetState(m);
    if (!PyObject_TypeCheck(o, st->loop_type)) {
        PyErr_SetString(PyExc_TypeError, "vigil's file calls run on vigil's loop (vigil.new_event_loop)");
        return NULL;
    }
    LoopObject *l = (LoopObject *)o;
    if (vpy_check_open(l) < 0)
        return NULL;
    choose_engine(l);
    return l;
}

/* A path argument as os takes it (str, bytes, os.PathLike): *name is its fspath (str or
 * bytes: what errors and File.name show, as os's), *enc its bytes (os.fsencode's), with
 * no embedded NUL. New references; -1 with an exception. */
static int path_conv(PyObject *p, PyObject **name, PyObject **enc)
{
    PyObject *n = PyOS_FSPath(p);
    if (!n)
        return -1;
    PyObject *e = PyBytes_Check(n) ? Py_NewRef(n) : PyUnicode_EncodeFSDefault(n);
    if (!e) {
        Py_DECREF(n);
        return -1;
    }
    if (strlen(PyBytes_AS_STRING(e)) != (size_t)PyBytes_GET_SIZE(e)) {
        PyErr_SetString(PyExc_ValueError, "embedded null byte");
        Py_DECREF(n);
        Py_DECREF(e);
        return -1;
    }
    *name = n;
    *enc = e;
    return 0;
}

/* A path call's request: f->obj the name, f->obj2 the bytes (kept until it ends). */
static struct freq *path_req(LoopObject *l, enum fop op, PyObject *path)
{
    PyObject *name, *enc;
    if (path_conv(path, &name, &enc) < 0)
        return NULL;
    struct freq *f = freq_new(l, op, NULL);
    if (!f) {
        Py_DECREF(name);
        Py_DECREF(enc);
        return NULL;
    }
    f->obj = name;
    f->obj2 = enc;
    return f;
}

static PyObject *path_start(struct freq *f)
{
    PyObject *fut = Py_NewRef(f->fut);
    if (freq_start(f) < 0)
        freq_free(f);
    return fut;
}

/* file_open(loop, path, flags, mode, cls) -> future of a cls (a FileIO subclass) */
static PyObject *mod_file_open(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    LoopObject *l;
    int flags, mode;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "file_open(loop, path, flags, mode, cls)");
        return NULL;
    }
    if (!(l = loop_arg(m, args[0])) || int_arg(args[2], &flags) < 0 || int_arg(args[3], &mode) < 0)
        return NULL;
    if (!PyType_Check(args[4]) || !PyType_IsSubtype((PyTypeObject *)args[4], file_type)) {
        PyErr_SetString(PyExc_TypeError, "cls must be a FileIO subclass");
        return NULL;
    }
    struct freq *f = path_req(l, F_OPEN, args[1]);
    if (!f)
        return NULL;
    /* the path's bytes live as long as the request, in view; obj2 becomes the class */
    if (PyObject_GetBuffer(f->obj2, &f->view, PyBUF_SIMPLE) < 0) {
        freq_free(f);
        return NULL;
    }
    f->has_view = 1;
    Py_SETREF(f->obj2, Py_NewRef(args[4]));
    vigil_file_prep_open(&f->req, AT_FDCWD, f->view.buf, flags | O_CLOEXEC, (unsigned)mode, on_done);
    return path_start(f);
}

/* file_stat(loop, path, follow_symlinks) */
static PyObject *mod_file_stat(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    LoopObject *l;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "file_stat(loop, path, follow_symlinks)");
        return NULL;
    }
    if (!(l = loop_arg(m, args[0])))
        return NULL;
    int follow = PyObject_IsTrue(args[2]);
    if (follow < 0)
        return NULL;
    struct freq *f = path_req(l, F_STAT, args[1]);
    if (!f)
        return NULL;
    vigil_file_prep_stat(&f->req, AT_FDCWD, PyBytes_AS_STRING(f->obj2), follow ? 0 : AT_SYMLINK_NOFOLLOW,
                         STATX_BASIC_STATS, &f->stx, on_done);
    return path_start(f);
}

/* file_unlink(loop, path, rmdir) */
static PyObject *mod_file_unlink(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    LoopObject *l;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "file_unlink(loop, path, rmdir)");
        return NULL;
    }
    if (!(l = loop_arg(m, args[0])))
        return NULL;
    int rmdir_ = PyObject_IsTrue(args[2]);
    if (rmdir_ < 0)
        return NULL;
    struct freq *f = path_req(l, F_UNLINK, args[1]);
    if (!f)
        return NULL;
    if (rmdir_)
        vigil_file_prep_rmdir(&f->req, AT_FDCWD, PyBytes_AS_STRING(f->obj2), on_done);
    else
        vigil_file_prep_unlink(&f->req, AT_FDCWD, PyBytes_AS_STRING(f->obj2), on_done);
    return path_start(f);
}

/* file_mkdir(loop, path, mode) */
static PyObject *mod_file_mkdir(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    LoopObject *l;
    int mode;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "file_mkdir(loop, path, mode)");
        return NULL;
    }
    if (!(l = loop_arg(m, args[0])) || int_arg(args[2], &mode) < 0)
        return NULL;
    struct freq *f = path_req(l, F_MKDIR, args[1]);
    if (!f)
        return NULL;
    vigil_file_prep_mkdir(&f->req, AT_FDCWD, PyBytes_AS_STRING(f->obj2), (unsigned)mode, on_done);
    return path_start(f);
}

/* file_rename(loop, src, dst, flags): errors name both. src's bytes stay alive in the
 * view, dst's in a copy (dirbuf); obj and obj2 are the names. */
static PyObject *mod_file_rename(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    LoopObject *l;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "file_rename(loop, src, dst, flags)");
        return NULL;
    }
    if (!(l = loop_arg(m, args[0])))
        return NULL;
    unsigned long flags = PyLong_AsUnsignedLong(args[3]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *dname, *denc;
    if (path_conv(args[2], &dname, &denc) < 0)
        return NULL;
    struct freq *f = path_req(l, F_RENAME, args[1]);
    if (!f) {
        Py_DECREF(dname);
        Py_DECREF(denc);
        return NULL;
    }
    int ok = PyObject_GetBuffer(f->obj2, &f->view, PyBUF_SIMPLE) == 0;
    f->has_view = (char)ok;
    if (ok && !(f->dirbuf = malloc((size_t)PyBytes_GET_SIZE(denc) + 1)))
        ok = 0, PyErr_NoMemory();
    if (!ok) {
        Py_DECREF(dname);
        Py_DECREF(denc);
        freq_free(f);
        return NULL;
    }
    memcpy(f->dirbuf, PyBytes_AS_STRING(denc), (size_t)PyBytes_GET_SIZE(denc) + 1);
    Py_DECREF(denc);
    Py_SETREF(f->obj2, dname);
    vigil_file_prep_rename(&f->req, AT_FDCWD, f->view.buf, AT_FDCWD, f->dirbuf, (unsigned)flags, on_done);
    return path_start(f);
}

/* file_engine(loop) -> "uring", "aio" or "threads" */
static PyObject *mod_file_engine(PyObject *m, PyObject *loop)
{
    LoopObject *l = loop_arg(m, loop);
    if (!l)
        return NULL;
    const char *e = vigil_file_engine(l->vl);
    if (!e)
        Py_RETURN_NONE;
    return PyUnicode_FromString(e);
}

static PyMethodDef file_mod_methods[] = {
    {"file_open", FASTCALL(mod_file_open), NULL},
    {"file_stat", FASTCALL(mod_file_stat), NULL},
    {"file_unlink", FASTCALL(mod_file_unlink), NULL},
    {"file_mkdir", FASTCALL(mod_file_mkdir), NULL},
    {"file_rename", FASTCALL(mod_file_rename), NULL},
    {"file_engine", (PyCFunction)mod_file_engine, METH_O, NULL},
    {NULL},
};

int vpy_file_type_add(PyObject *m, vpy_state *st)
{
    (void)st;
    if (!s_set_result && (!(s_set_result = PyUnicode_InternFromString("set_result")) ||
                          !(s_set_exception = PyUnicode_InternFromString("set_exception")) ||
                          !(s_done = PyUnicode_InternFromString("done")) ||
                          !(s_create_future = PyUnicode_InternFromString("create_future"))))
        return -1;
    PyTypeObject *t = (PyTypeObject *)PyType_FromModuleAndSpec(m, &file_spec, NULL);
    if (!t || PyModule_AddType(m, t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    Py_XSETREF(file_type, t);
    return PyModule_AddFunctions(m, file_mod_methods);
}
