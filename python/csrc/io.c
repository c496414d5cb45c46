/* Readers and writers (add_reader/add_writer): one vigil_io per fd for both directions,
 * in a table by fd. A watch is a handle of the loop (VPY_KIND_FD) from its first reader
 * or writer to the removal of its last.
 *
 * File objects: a watch remembers the object it was last given (a socket, a file; not
 * an int), as a selector's key does, so a socket registered and then closed (its
 * fileno() is -1 now) still finds its watch: remove_reader(sock) answers True, as
 * asyncio's selector loop does (selectors' _fileobj_lookup searches its keys). */
#include "handle.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

struct vpy_fdwatch {
    vigil_io io;
    HandleObject *reader, *writer;
    PyObject *fileobj; /* the last non-int object given for fd (strong), or NULL */
    int fd;
    char io_on; /* the vigil_io is started */
    char idle;  /* on the loop's idle list: no reader or writer, the vigil_io kept */
    struct vpy_fdwatch *idle_prev, *idle_next;
    struct vpy_handle lh;
};

/* ---------------------------------------------------- the watch as a handle */

static int fdwatch_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    struct vpy_fdwatch *fw = vpy_container_of(lh, struct vpy_fdwatch, lh);
    int rc = 0;
    if (revents < 0) {
        /* The registration failed (the fd was closed since): vigil stopped the watcher.
         * Like a selector that dropped a closed fd, nothing runs. */
        fw->io_on = 0;
        return 0;
    }
    unsigned ev = (unsigned)revents;
    if ((ev & (VIGIL_READ | VIGIL_ERR | VIGIL_HUP)) && fw->reader && !fw->reader->cancelled) {
        Py_INCREF(fw->reader);
        if (vpy_ready_push(l, (PyObject *)fw->reader, NULL) < 0)
            rc = -1;
    }
    if ((ev & (VIGIL_WRITE | VIGIL_ERR | VIGIL_HUP)) && fw->writer && !fw->writer->cancelled) {
        Py_INCREF(fw->writer);
        if (vpy_ready_push(l, (PyObject *)fw->writer, NULL) < 0)
            rc = -1;
    }
    return rc;
}

static void idle_unlink(LoopObject *l, struct vpy_fdwatch *fw)
{
    if (!fw->idle)
        return;
    if (fw->idle_prev)
        fw->idle_prev->idle_next = fw->idle_next;
    else
        l->fdw_idle = fw->idle_next;
    if (fw->idle_next)
        fw->idle_next->idle_prev = fw->idle_prev;
    fw->idle_prev = fw->idle_next = NULL;
    fw->idle = 0;
}

static void fdwatch_free(LoopObject *l, struct vpy_fdwatch *fw)
{
    PyObject *fileobj = fw->fileobj;
    idle_unlink(l, fw);
    vpy_handle_stop(l, &fw->lh);
    l->fdw[fw->fd] = NULL;
    PyMem_Free(fw);
    Py_XDECREF(fileobj); /* last: dropping it may run Python code */
}

static void fdwatch_loop_closing(LoopObject *l, struct vpy_handle *lh)
{
    struct vpy_fdwatch *fw = vpy_container_of(lh, struct vpy_fdwatch, lh);
    HandleObject *r = fw->reader, *w = fw->writer;
    if (fw->io_on && l->vl)
        vigil_io_stop(l->vl, &fw->io);
    fdwatch_free(l, fw);
    Py_XDECREF(r);
    Py_XDECREF(w);
}

static int fdwatch_traverse(struct vpy_handle *lh, visitproc visit, void *arg)
{
    struct vpy_fdwatch *fw = vpy_container_of(lh, struct vpy_fdwatch, lh);
    Py_VISIT((PyObject *)fw->reader);
    Py_VISIT((PyObject *)fw->writer);
    Py_VISIT(fw->fileobj);
    return 0;
}

static const struct vpy_handle_ops fdwatch_ops = {
    .kind = VPY_KIND_FD,
    .event = fdwatch_event,
    .loop_closing = fdwatch_loop_closing,
    .traverse = fdwatch_traverse,
};

static void on_io(vigil_loop *vl, vigil_io *w, int revents)
{
    struct vpy_fdwatch *fw = w->data;
    vpy_pend_push(vigil_loop_data(vl), &fw->lh, revents);
}

void vpy_fdwatch_table_free(LoopObject *l)
{
    PyMem_Free(l->fdw);
    l->fdw = NULL;
    l->nfdw = 0;
    l->fdw_idle = NULL;
}

/* ----------------------------------------------------------------- the table */

static struct vpy_fdwatch *fdw_get(LoopObject *l, int fd, int create)
{
    if (fd < l->nfdw && l->fdw[fd])
        return l->fdw[fd];
    if (!create)
        return NULL;
    if (fd >= l->nfdw) {
        int n = l->nfdw ? l->nfdw : 64;
        while (n <= fd)
            n *= 2;
        struct vpy_fdwatch **a = PyMem_Realloc(l->fdw, (size_t)n * sizeof *a);
        if (!a) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(a + l->nfdw, 0, (size_t)(n - l->nfdw) * sizeof *a);
        l->fdw = a;
        l->nfdw = n;
    }
    struct vpy_fdwatch *fw = PyMem_Calloc(1, sizeof *fw);
    if (!fw) {
        PyErr_NoMemory();
        return NULL;
    }
    fw->fd = fd;
    fw->io.data = fw;
    vpy_handle_init(&fw->lh, &fdwatch_ops);
    vpy_handle_start(l, &fw->lh);
    l->fdw[fd] = fw;
    return fw;
}

/* The fd of fileobj: its fileno(), or, when that fails as a closed object's does (a
 * closed socket's -1), the fd of the watch last given that same object; -1 with the
 * fileno() error set if there is none (asyncio's selectors: _fileobj_lookup). */
static int fd_of_live(LoopObject *l, PyObject *fileobj, int *live)
{
    int fd = PyObject_AsFileDescriptor(fileobj);
    *live = fd >= 0;
    if (fd >= 0 || PyLong_Check(fileobj))
        return fd;
    if (!PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_TypeError) &&
        !PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    for (int i = 0; i < l->nfdw; i++) {
        if (l->fdw[i] && !l->fdw[i]->idle && l->fdw[i]->fileobj == fileobj) {
            PyErr_Clear();
            return i;
        }
    }
    return -1;
}

static int fd_of(LoopObject *l, PyObject *fileobj)
{
    int live;
    return fd_of_live(l, fileobj, &live);
}

/* Remembers the object fd was given as (an int forgets it, as a selector's new key). */
static void fdw_set_fileobj(struct vpy_fdwatch *fw, PyObject *fileobj)
{
    PyObject *old = fw->fileobj;
    fw->fileobj = PyLong_Check(fileobj) ? NULL : Py_NewRef(fileobj);
    Py_XDECREF(old);
}

/* Makes the vigil watcher's mask match the handles present. */
static int fdw_update(LoopObject *l, struct vpy_fdwatch *fw)
{
    uint32_t mask = (fw->reader ? VIGIL_READ : 0) | (fw->writer ? VIGIL_WRITE : 0);
    int r = 0;
    if (!mask) {
        if (fw->io_on)
            vigil_io_stop(l->vl, &fw->io);
        fw->io_on = 0;
        return 0;
    }
    if (fw->io_on) {
        if (fw->io.events != mask)
            r = vigil_io_modify(l->vl, &fw->io, mask);
    } else {
        if (l->is_epoll) {
            /* epoll refuses regular files and directories (EPERM) when the registration
             * reaches the kernel; say so now, as a selector loop would. */
            struct stat st;
            if (fstat(fw->fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
                r = -EPERM;
        }
        if (r == 0)
            r = vigil_io_start(l->vl, &fw->io, fw->fd, mask, on_io);
        if (r == 0)
            fw->io_on = 1;
    }
    if (r < 0) {
        vpy_set_oserror(-r);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ the methods */

static PyObject *add_rw_ctx(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, int writer, PyObject *context);

static PyObject *add_rw(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, int writer)
{
    return add_rw_ctx(l, args, nargs, writer, NULL);
}

/* sock.c's waits: fileobj's reader/writer cb() run in context (their callback needs no
 * copy of the caller's). */
PyObject *vpy_fdwatch_add(LoopObject *l, PyObject *fileobj, PyObject *cb, int writer, PyObject *context)
{
    PyObject *argv[2] = {fileobj, cb};
    return add_rw_ctx(l, argv, 2, writer, context);
}

static PyObject *add_rw_ctx(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, int writer, PyObject *context)
{
    const char *name = writer ? "add_writer" : "add_reader";
    if (nargs < 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes at least 2 arguments", name);
        return NULL;
    }
    if (vpy_check_open(l) < 0)
        return NULL;
    int live;
    int fd = fd_of_live(l, args[0], &live);
    if (fd < 0)
        return NULL;
    HandleObject *h = vpy_handle_new(l, 0, args[1], args + 2, nargs - 2, context);
    if (!h)
        return NULL;
    struct vpy_fdwatch *fw = fdw_get(l, fd, 1);
    if (!fw) {
        Py_DECREF(h);
        return NULL;
    }
    if (fw->idle) {
        /* A watch kept since its last removal this turn (see vpy_fdwatch_flush): the
         * same open object may take it back as it is; anything else (an int, another
         * object, a closed one: the number may name another file now) registers afresh. */
        int same = live && fw->fileobj && fw->fileobj == args[0];
        idle_unlink(l, fw);
        if (!same && fw->io_on) {
            vigil_io_stop(l->vl, &fw->io);
            fw->io_on = 0;
        }
    }
    HandleObject **slot = writer ? &fw->writer : &fw->reader;
    HandleObject *old = *slot;
    *slot = h;
    if (fdw_update(l, fw) < 0) {
        *slot = old;
        Py_DECREF(h);
        if (!fw->reader && !fw->writer)
            fdwatch_free(l, fw); /* stops an io left on by a kept watch */
        return NULL;
    }
    fdw_set_fileobj(fw, args[0]);
    if (old) {
        vpy_handle_cancel(old);
        Py_DECREF(old);
    }
    Py_INCREF(h);
    return (PyObject *)h;
}

static PyObject *remove_rw(LoopObject *l, PyObject *fileobj, int writer)
{
    if (l->closed || !l->vl)
        Py_RETURN_FALSE;
    int live;
    int fd = fd_of_live(l, fileobj, &live);
    if (fd < 0)
        return NULL;
    struct vpy_fdwatch *fw = fdw_get(l, fd, 0);
    if (!fw)
        Py_RETURN_FALSE;
    HandleObject **slot = writer ? &fw->writer : &fw->reader;
    HandleObject *old = *slot;
    if (!old)
        Py_RETURN_FALSE;
    *slot = NULL;
    vpy_handle_cancel(old);
    Py_DECREF(old);
    if (live && !fw->reader && !fw->writer && fw->io_on && fw->fileobj) {
        /* The last one goes: keep the vigil_io as it is until the turn's wait
         * (vpy_fdwatch_flush), so a sock_recv that waits again on the same socket this
         * turn costs no new registration (vigil would re-register the fd afresh: one
         * fcntl and one fstat per wait). Its events meanwhile find no handle. Not for
         * an object closed already (found through fd_of's search): that watch goes. */
        fw->idle = 1;
        fw->idle_prev = NULL;
        fw->idle_next = l->fdw_idle;
        if (fw->idle_next)
            fw->idle_next->idle_prev = fw;
        l->fdw_idle = fw;
        Py_RETURN_TRUE;
    }
    if (fdw_update(l, fw) < 0)
        PyErr_Clear(); /* a narrowed mask cannot fail on a live fd; a dead one is moot */
    if (!fw->reader && !fw->writer)
        fdwatch_free(l, fw);
    Py_RETURN_TRUE;
}

/* Before the turn's wait: the watches kept idle since their last removal stop now (an
 * event for them would find no handle; epoll, level-triggered, would report it every
 * wait). */
void vpy_fdwatch_flush(LoopObject *l)
{
    struct vpy_fdwatch *fw;
    while ((fw = l->fdw_idle)) {
        idle_unlink(l, fw);
        if (fw->io_on && l->vl)
            vigil_io_stop(l->vl, &fw->io);
        fw->io_on = 0;
        fdwatch_free(l, fw);
    }
}

/* C code about to start a vigil watcher on fd (a transport's socket) calls this first:
 * a watch kept idle on the same number (its file closed since, the number reused) must
 * not leave its registration standing for the new file. */
void vpy_fdwatch_forget(LoopObject *l, int fd)
{
    struct vpy_fdwatch *fw = fd >= 0 && fd < l->nfdw ? l->fdw[fd] : NULL;
    if (fw && fw->idle) {
        idle_unlink(l, fw);
        if (fw->io_on && l->vl)
            vigil_io_stop(l->vl, &fw->io);
        fw->io_on = 0;
        fdwatch_free(l, fw);
    }
}

PyObject *vpy_loop_add_reader(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    return add_rw(l, args, nargs, 0);
}

PyObject *vpy_loop_add_writer(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    return add_rw(l, args, nargs, 1);
}

PyObject *vpy_loop_remove_reader(LoopObject *l, PyObject *fd)
{
    return remove_rw(l, fd, 0);
}

PyObject *vpy_loop_remove_writer(LoopObject *l, PyObject *fd)
{
    return remove_rw(l, fd, 1);
}

/* (reader handle or None, writer handle or None) for fd: the selector key's data. */
PyObject *vpy_loop_fd_handles(LoopObject *l, PyObject *fileobj)
{
    int fd = fd_of(l, fileobj);
    if (fd < 0)
        return NULL;
    struct vpy_fdwatch *fw = l->vl ? fdw_get(l, fd, 0) : NULL;
    PyObject *r = fw && fw->reader ? (PyObject *)fw->reader : Py_None;
    PyObject *w = fw && fw->writer ? (PyObject *)fw->writer : Py_None;
    return PyTuple_Pack(2, r, w);
}
