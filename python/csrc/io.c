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
    for (size_t i = 0; i < sizeof l->io_names / sizeof l->io_names[0]; i++)
        Py_CLEAR(l->io_names[i]);
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

/* ------------------------------------------------- sock_recv's wait, in C
 *
 * _loop.py's sock_recv/sock_recv_into, when the receive must wait: one callable is both
 * the fd's reader (called with no argument: the socket is readable) and the future's
 * done callback (called with the future: it was cancelled, or failed). Its self is a
 * list (RW_*). When the receive completes, the reader goes at once (its watch kept idle
 * for the next wait: see remove_rw) and the done callback is taken back before the
 * result is set, so a completed wait schedules nothing but the awaiting task (asyncio's
 * loop also schedules the done callback, and runs a Python function per readiness). A
 * cancelled or failed wait removes the reader from the done callback, as asyncio's
 * _sock_read_done does. */
enum { RW_LOOP, RW_FUT, RW_SOCK, RW_FD, RW_BUF, RW_N, RW_HANDLE, RW_FUNC, RW_LEN };

/* The methods it calls, by interned name (l->io_names, made on first use). */
enum { N_DONE, N_RECV, N_RECV_INTO, N_SET_RESULT, N_REMOVE_DONE, N_ADD_DONE, N_COUNT };
static const char *const io_name_str[N_COUNT] = {"done", "recv", "recv_into", "set_result",
                                                 "remove_done_callback", "add_done_callback"};

static int io_names_init(LoopObject *l)
{
    if (l->io_names[0])
        return 0;
    for (int i = 0; i < N_COUNT; i++)
        if (!(l->io_names[i] = PyUnicode_InternFromString(io_name_str[i])))
            return -1;
    return 0;
}

/* obj.<name>(arg) (arg NULL: no argument). */
static PyObject *call1(LoopObject *l, PyObject *obj, int name, PyObject *arg)
{
    PyObject *argv[2] = {obj, arg};
    return PyObject_VectorcallMethod(l->io_names[name], argv, (arg ? 2 : 1) | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *recv_waiter_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyMethodDef recv_waiter_def = {"_vigil_recv_ready", (PyCFunction)(void (*)(void))recv_waiter_call,
                                      METH_FASTCALL, NULL};

/* Removes the reader if it is still this wait's (a later wait may have replaced it). */
static int recv_waiter_unwatch(PyObject *self)
{
    LoopObject *l = (LoopObject *)PyList_GET_ITEM(self, RW_LOOP);
    PyObject *h = PyList_GET_ITEM(self, RW_HANDLE);
    if (h == Py_None || ((HandleObject *)h)->cancelled)
        return 0;
    PyObject *r = remove_rw(l, PyList_GET_ITEM(self, RW_FD), 0);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Drops the list's references to the future, the handle and the callable (cycles). */
static void recv_waiter_end(PyObject *self)
{
    for (int i = RW_FUT; i < RW_LEN; i++)
        if (i == RW_FUT || i == RW_HANDLE || i == RW_FUNC || i == RW_BUF)
            PyList_SetItem(self, i, Py_NewRef(Py_None));
}

static int recv_waiter_full(PyObject *self)
{
    PyObject *set = PyObject_GetAttrString(PyList_GET_ITEM(self, RW_LOOP), "_recv_waited");
    if (!set)
        return -1;
    int r = PySet_Discard(set, PyList_GET_ITEM(self, RW_FD));
    Py_DECREF(set);
    return r < 0 ? -1 : 0;
}

static PyObject *recv_waiter_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs) { /* the done callback */
        if (recv_waiter_unwatch(self) < 0)
            return NULL;
        recv_waiter_end(self);
        Py_RETURN_NONE;
    }
    PyObject *fut = PyList_GET_ITEM(self, RW_FUT);
    if (fut == Py_None)
        Py_RETURN_NONE;
    Py_INCREF(fut);
    PyObject *sock = PyList_GET_ITEM(self, RW_SOCK), *buf = PyList_GET_ITEM(self, RW_BUF);
    PyObject *n = PyList_GET_ITEM(self, RW_N), *res = NULL, *r = NULL;
    LoopObject *l = (LoopObject *)PyList_GET_ITEM(self, RW_LOOP);
    PyObject *done = call1(l, fut, N_DONE, NULL);
    int isdone = done ? PyObject_IsTrue(done) : -1;
    Py_XDECREF(done);
    if (isdone != 0)
        goto out; /* done (cancelled: its done callback removes the reader), or an error */
    res = buf == Py_None ? call1(l, sock, N_RECV, n) : call1(l, sock, N_RECV_INTO, buf);
    if (!res) {
        if (PyErr_ExceptionMatches(PyExc_BlockingIOError) || PyErr_ExceptionMatches(PyExc_InterruptedError)) {
            PyErr_Clear();
            isdone = 0;
            goto out;
        }
        if (vpy_exc_escapes())
            goto out;
        PyObject *exc = vpy_fetch_exc();
        r = PyObject_CallMethod(fut, "set_exception", "O", exc); /* the done callback unwatches */
        Py_DECREF(exc);
        isdone = r ? 0 : -1;
        goto out;
    }
    Py_ssize_t got = buf == Py_None ? PyBytes_Size(res) : PyLong_AsSsize_t(res);
    Py_ssize_t want = PyLong_AsSsize_t(n);
    isdone = -1;
    if (PyErr_Occurred())
        goto out;
    if (got >= want && recv_waiter_full(self) < 0) /* a full buffer: try at once next time */
        goto out;
    if (recv_waiter_unwatch(self) < 0)
        goto out;
    r = call1(l, fut, N_REMOVE_DONE, PyList_GET_ITEM(self, RW_FUNC));
    if (!r)
        goto out;
    Py_DECREF(r);
    recv_waiter_end(self);
    r = call1(l, fut, N_SET_RESULT, res);
    isdone = r ? 0 : -1;
out:
    Py_XDECREF(r);
    Py_XDECREF(res);
    Py_DECREF(fut);
    if (isdone < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* _recv_arm(fut, sock, fd, buf, n): sock's reader and fut's done callback for one
 * receive (see above). */
PyObject *vpy_loop_recv_arm(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "_recv_arm(fut, sock, fd, buf, n)");
        return NULL;
    }
    if (io_names_init(l) < 0)
        return NULL;
    PyObject *self = PyList_New(RW_LEN);
    if (!self)
        return NULL;
    PyList_SET_ITEM(self, RW_LOOP, Py_NewRef((PyObject *)l));
    PyList_SET_ITEM(self, RW_FUT, Py_NewRef(args[0]));
    PyList_SET_ITEM(self, RW_SOCK, Py_NewRef(args[1]));
    PyList_SET_ITEM(self, RW_FD, Py_NewRef(args[2]));
    PyList_SET_ITEM(self, RW_BUF, Py_NewRef(args[3]));
    PyList_SET_ITEM(self, RW_N, Py_NewRef(args[4]));
    PyList_SET_ITEM(self, RW_HANDLE, Py_NewRef(Py_None));
    PyList_SET_ITEM(self, RW_FUNC, Py_NewRef(Py_None));
    PyObject *func = PyCFunction_New(&recv_waiter_def, self);
    if (!func) {
        Py_DECREF(self);
        return NULL;
    }
    PyObject *argv[2] = {args[1], func};
    PyObject *h = add_rw(l, argv, 2, 0);
    if (!h)
        goto fail;
    PyList_SetItem(self, RW_HANDLE, h);
    PyList_SetItem(self, RW_FUNC, Py_NewRef(func));
    PyObject *r = call1(l, args[0], N_ADD_DONE, func);
    if (!r) {
        recv_waiter_unwatch(self);
        recv_waiter_end(self);
        goto fail;
    }
    Py_DECREF(r);
    Py_DECREF(func);
    Py_DECREF(self);
    Py_RETURN_NONE;
fail:
    Py_DECREF(func);
    Py_DECREF(self);
    return NULL;
}
