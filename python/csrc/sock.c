/* loop.sock_recv, sock_recv_into and sock_sendall in C (SockCall).
 *
 * asyncio defines the three as coroutines. Here each call returns a SockCall: a small
 * awaitable with a coroutine's protocol (send, throw, close, __await__; it is a
 * collections.abc.Coroutine, so create_task and ensure_future take it) that does what
 * vigil._loop's Python coroutines did, with no Python frame per call:
 *   - its first step checks the socket as asyncio does (_sock_check: not an SSLSocket,
 *     non-blocking in debug mode), then tries the call at once: recv(2)/send(2) on the
 *     fd for a plain socket.socket, the socket's method otherwise. Done: it returns.
 *   - would block: it makes a future, watches the fd with itself as the reader (writer)
 *     callback, and yields the future to the task, as `await fut` does.
 *   - the callback retries the call; once it completes it removes the watch (io.c keeps
 *     the fd's registration until the turn's wait, so the next wait on the same socket
 *     costs none) and completes the future, which wakes the task: no done callback.
 *   - resumed, it returns the future's result, or raises its exception (the future
 *     cancelled: CancelledError), removing the watch first if it is still its own
 *     (a later call on the same fd may have replaced it: asyncio's _sock_read_done).
 *   - throw() and close() (a task cancelled before the wait began, a coroutine closed)
 *     remove the watch, then raise/return as a coroutine would.
 * sock_recv/sock_recv_into skip the first attempt on an fd whose last receive had to
 * wait (the loop's _recv_waited set; see vigil._loop's comment), and try it again after
 * a receive that filled the buffer. */
#include "handle.h"

#include <errno.h>
#include <sys/socket.h>

enum { OP_RECV, OP_RECV_INTO, OP_SENDALL };
enum { ST_NEW, ST_WAITING, ST_DONE };

typedef struct {
    PyObject_HEAD
    LoopObject *loop;
    PyObject *sock;
    PyObject *arg;    /* recv: n; recv_into: the buffer; sendall: the data */
    PyObject *fut;    /* while waiting */
    PyObject *fdobj;  /* while waiting: the fd as an int (the watch's key) */
    HandleObject *h;  /* while waiting: the reader/writer handle, its callback self */
    Py_buffer view;   /* sendall: the data, from the first attempt to the end */
    Py_ssize_t n;     /* recv: bytes asked for */
    Py_ssize_t pos;   /* sendall: bytes sent */
    int fd;
    char op, state, has_view, plain;
} SockCallObject;

/* Interned names (process-wide: strings only). */
static PyObject *s_sock_check, *s_recv_waited, *s_create_future, *s_blocking, *s_transports, *s_data,
    *s_ensure_no_transport, *s_recv, *s_recv_into, *s_send, *s_set_result, *s_set_exception, *s_result,
    *s_done;

static int names_init(void)
{
    if (s_done)
        return 0;
#define S(v, s)                                                                                                        \
    if (!(v = PyUnicode_InternFromString(s)))                                                                         \
        return -1;
    S(s_sock_check, "_sock_check") S(s_recv_waited, "_recv_waited") S(s_create_future, "create_future")
    S(s_blocking, "_asyncio_future_blocking") S(s_transports, "_transports") S(s_data, "data")
    S(s_ensure_no_transport, "_ensure_fd_no_transport") S(s_recv, "recv") S(s_recv_into, "recv_into")
    S(s_send, "send") S(s_set_result, "set_result") S(s_set_exception, "set_exception") S(s_result, "result")
    S(s_done, "done")
#undef S
    return 0;
}

static PyObject *call0(PyObject *obj, PyObject *name)
{
    PyObject *argv[1] = {obj};
    return PyObject_VectorcallMethod(name, argv, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call1(PyObject *obj, PyObject *name, PyObject *arg)
{
    PyObject *argv[2] = {obj, arg};
    return PyObject_VectorcallMethod(name, argv, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* A receive's scratch buffer: a plain socket's recv(2) lands here and is copied into a
 * bytes object of the size received (socket.recv allocates n bytes and shrinks them: a
 * 64 KiB malloc and realloc per call for sock_recv(sock, 65536)). Process-wide, made
 * once; only touched with the GIL held, between the system call and the copy (no
 * Python code runs in between). */
#define SCRATCH 65536
static char *scratch;

/* --------------------------------------------------------------- one attempt */

/* 1: done, *res set (a new reference); 0: would block; -1: an error set. */
static int attempt(SockCallObject *c, PyObject **res)
{
    *res = NULL;
    if (c->op == OP_RECV) {
        if (c->plain && c->n <= SCRATCH && scratch) {
            ssize_t got = recv(c->fd, scratch, (size_t)c->n, 0);
            if (got < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                    return 0;
                PyErr_SetFromErrno(PyExc_OSError);
                return -1;
            }
            *res = PyBytes_FromStringAndSize(scratch, got);
            return *res ? 1 : -1;
        }
        PyObject *n = PyLong_FromSsize_t(c->n);
        if (!n)
            return -1;
        *res = call1(c->sock, s_recv, n);
        Py_DECREF(n);
    } else if (c->op == OP_RECV_INTO) {
        if (c->plain) {
            Py_buffer b;
            if (PyObject_GetBuffer(c->arg, &b, PyBUF_WRITABLE) < 0)
                return -1;
            ssize_t got = recv(c->fd, b.buf, (size_t)b.len, 0);
            int e = errno;
            PyBuffer_Release(&b);
            if (got < 0) {
                if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR)
                    return 0;
                errno = e;
                PyErr_SetFromErrno(PyExc_OSError);
                return -1;
            }
            *res = PyLong_FromSsize_t(got);
            return *res ? 1 : -1;
        }
        *res = call1(c->sock, s_recv_into, c->arg);
    } else {
        do { /* at least one send, as asyncio's (sending b"" still reports a broken pipe) */
            Py_ssize_t sent;
            if (c->plain) {
                ssize_t r = send(c->fd, (char *)c->view.buf + c->pos, (size_t)(c->view.len - c->pos), 0);
                if (r < 0) {
                    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                        return 0;
                    PyErr_SetFromErrno(PyExc_OSError);
                    return -1;
                }
                sent = r;
            } else {
                PyObject *mv = PyMemoryView_FromBuffer(&c->view);
                PyObject *part = mv ? PySequence_GetSlice(mv, c->pos, c->view.len) : NULL;
                Py_XDECREF(mv);
                PyObject *r = part ? call1(c->sock, s_send, part) : NULL;
                Py_XDECREF(part);
                if (!r)
                    goto err;
                sent = PyLong_AsSsize_t(r);
                Py_DECREF(r);
                if (sent < 0 && PyErr_Occurred())
                    return -1;
            }
            c->pos += sent;
        } while (c->pos < c->view.len);
        *res = Py_NewRef(Py_None);
        return 1;
    }
    if (*res)
        return 1;
err:
    if (PyErr_ExceptionMatches(PyExc_BlockingIOError) || PyErr_ExceptionMatches(PyExc_InterruptedError)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

/* The fd's entry in the loop's _recv_waited set: add (1), discard (0), or test (-1,
 * returns 1 if present). */
static int waited(SockCallObject *c, int how)
{
    PyObject *set = PyObject_GetAttr((PyObject *)c->loop, s_recv_waited);
    if (!set)
        return -1;
    PyObject *fd = PyLong_FromLong(c->fd);
    int r = -1;
    if (fd)
        r = how > 0 ? PySet_Add(set, fd) : how == 0 ? PySet_Discard(set, fd) : PySet_Contains(set, fd);
    Py_XDECREF(fd);
    Py_DECREF(set);
    return r;
}

/* ----------------------------------------------------------------- the wait */

/* Removes the watch if it is still this call's. */
static int unwatch(SockCallObject *c)
{
    HandleObject *h = c->h;
    int r = 0;
    if (!h)
        return 0;
    c->h = NULL;
    if (!h->cancelled) {
        PyObject *x = c->op == OP_SENDALL ? vpy_loop_remove_writer(c->loop, c->fdobj)
                                          : vpy_loop_remove_reader(c->loop, c->fdobj);
        if (x)
            Py_DECREF(x);
        else
            r = -1;
    }
    Py_DECREF(h);
    return r;
}

/* The end of the call: the watch removed, the references of the wait dropped. */
static int finish(SockCallObject *c)
{
    int r = unwatch(c);
    c->state = ST_DONE;
    Py_CLEAR(c->fut);
    Py_CLEAR(c->fdobj);
    if (c->has_view) {
        c->has_view = 0;
        PyBuffer_Release(&c->view);
    }
    return r;
}

/* The fd is ready (the handle's callback, no argument). */
static PyObject *sockcall_call(SockCallObject *c, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw;
    if (c->state != ST_WAITING || !c->fut)
        Py_RETURN_NONE;
    PyObject *fut = Py_NewRef(c->fut), *res = NULL, *r = NULL;
    PyObject *d = call0(fut, s_done);
    int isdone = d ? PyObject_IsTrue(d) : -1;
    Py_XDECREF(d);
    if (isdone != 0)
        goto out; /* cancelled: the resumed task cleans up */
    int a = attempt(c, &res);
    if (a == 0)
        goto out;
    if (a > 0 && c->op != OP_SENDALL) {
        Py_ssize_t got = c->op == OP_RECV ? PyBytes_GET_SIZE(res) : PyLong_AsSsize_t(res);
        if (got >= c->n && waited(c, 0) < 0) /* a full buffer: try at once next time */
            a = -1;
    }
    if (a < 0 && vpy_exc_escapes()) {
        isdone = -1;
        goto out;
    }
    if (unwatch(c) < 0) {
        isdone = -1;
        goto out;
    }
    if (a > 0) {
        r = call1(fut, s_set_result, res);
    } else {
        PyObject *exc = vpy_fetch_exc();
        r = call1(fut, s_set_exception, exc);
        Py_XDECREF(exc);
    }
    isdone = r ? 0 : -1;
out:
    Py_XDECREF(r);
    Py_XDECREF(res);
    Py_DECREF(fut);
    if (isdone < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Makes the future and the watch; yields the future. */
static PySendResult start_wait(SockCallObject *c, PyObject **out)
{
    PyObject *t = PyObject_GetAttr((PyObject *)c->loop, s_transports);
    PyObject *d = t ? PyObject_GetAttr(t, s_data) : NULL;
    Py_XDECREF(t);
    if (!d)
        return PYGEN_ERROR;
    Py_ssize_t nt = PyDict_Check(d) ? PyDict_GET_SIZE(d) : 1;
    Py_DECREF(d);
    if (!(c->fdobj = PyLong_FromLong(c->fd)))
        return PYGEN_ERROR;
    if (nt) {
        PyObject *x = call1((PyObject *)c->loop, s_ensure_no_transport, c->fdobj);
        if (!x)
            return PYGEN_ERROR;
        Py_DECREF(x);
    }
    if (!(c->fut = call0((PyObject *)c->loop, s_create_future)))
        return PYGEN_ERROR;
    /* On a plain socket the callback runs only C (the system call, then the future's
     * completion, whose done callbacks have contexts of their own): an empty context,
     * not a copy per wait. A subclass's methods run in the caller's, as in asyncio. */
    PyObject *h = vpy_fdwatch_add(c->loop, c->sock, (PyObject *)c, c->op == OP_SENDALL,
                                  c->plain ? c->loop->st->sock_context : NULL);
    if (!h)
        return PYGEN_ERROR;
    c->h = (HandleObject *)h;
    c->state = ST_WAITING;
    if (PyObject_SetAttr(c->fut, s_blocking, Py_True) < 0)
        return PYGEN_ERROR;
    *out = Py_NewRef(c->fut);
    return PYGEN_NEXT;
}

/* The first step: checks, the attempt, the wait. */
static PySendResult first_step(SockCallObject *c, PyObject **out)
{
    LoopObject *l = c->loop;
    vpy_state *st = l->st;
    if (Py_TYPE(c->sock) != (PyTypeObject *)st->socket_type || l->debug) {
        PyObject *x = call1((PyObject *)l, s_sock_check, c->sock);
        if (!x)
            return PYGEN_ERROR;
        Py_DECREF(x);
    }
    c->plain = Py_TYPE(c->sock) == (PyTypeObject *)st->socket_type;
    if ((c->fd = PyObject_AsFileDescriptor(c->sock)) < 0) {
        if (c->plain)
            return PYGEN_ERROR;
        PyErr_Clear(); /* not a socket: asyncio's error is the attempt's (no recv/send) */
    }
    if (c->op == OP_RECV) {
        c->n = PyNumber_AsSsize_t(c->arg, PyExc_OverflowError);
        if (c->n == -1 && PyErr_Occurred())
            return PYGEN_ERROR;
        if (c->n < 0)
            c->plain = 0; /* socket.recv's own error */
    } else if (c->op == OP_RECV_INTO) {
        Py_buffer b;
        if (PyObject_GetBuffer(c->arg, &b, PyBUF_WRITABLE) < 0) {
            PyErr_Clear(); /* socket.recv_into's own error (TypeError), at once */
            c->plain = 0;
            c->n = -1;
        } else {
            c->n = b.len;
            PyBuffer_Release(&b);
        }
    } else {
        if (PyObject_GetBuffer(c->arg, &c->view, PyBUF_SIMPLE) < 0)
            return PYGEN_ERROR;
        c->has_view = 1;
    }
    int a = 0;
    PyObject *res = NULL;
    if (c->op == OP_SENDALL) {
        a = attempt(c, &res);
    } else {
        int w = c->n < 0 || c->fd < 0 ? 0 : waited(c, -1); /* recv(-1): socket.recv's error at once */
        if (w < 0)
            return PYGEN_ERROR;
        if (!w) {
            a = attempt(c, &res);
            if (a == 0 && c->fd >= 0 && waited(c, 1) < 0)
                return PYGEN_ERROR;
        }
    }
    if (a < 0)
        return PYGEN_ERROR;
    if (a > 0) {
        *out = res;
        return PYGEN_RETURN;
    }
    if (c->fd < 0 && (c->fd = PyObject_AsFileDescriptor(c->sock)) < 0)
        return PYGEN_ERROR;
    return start_wait(c, out);
}

static PySendResult sockcall_am_send(SockCallObject *c, PyObject *arg, PyObject **out)
{
    (void)arg;
    *out = NULL;
    PySendResult r;
    if (c->state == ST_NEW) {
        r = first_step(c, out);
    } else if (c->state == ST_WAITING) {
        PyObject *d = call0(c->fut, s_done);
        int isdone = d ? PyObject_IsTrue(d) : -1;
        Py_XDECREF(d);
        if (isdone < 0)
            return PYGEN_ERROR; /* still waiting: close() or the loop's end cleans up */
        if (!isdone) { /* resumed early (as Future.__await__, yield the future again) */
            if (PyObject_SetAttr(c->fut, s_blocking, Py_True) < 0)
                return PYGEN_ERROR;
            *out = Py_NewRef(c->fut);
            return PYGEN_NEXT;
        }
        PyObject *fut = Py_NewRef(c->fut);
        if (finish(c) < 0) {
            Py_DECREF(fut);
            return PYGEN_ERROR;
        }
        PyObject *res = call0(fut, s_result);
        Py_DECREF(fut);
        if (!res)
            return PYGEN_ERROR;
        *out = res;
        return PYGEN_RETURN;
    } else {
        PyErr_SetString(PyExc_RuntimeError, "cannot reuse already awaited coroutine");
        return PYGEN_ERROR;
    }
    if (r != PYGEN_NEXT) {
        /* Done at once, or failed: nothing stays (a failed wait's watch goes too). */
        if (r == PYGEN_ERROR) {
            PyObject *t, *v, *tb;
            PyErr_Fetch(&t, &v, &tb);
            finish(c);
            PyErr_Clear();
            PyErr_Restore(t, v, tb);
        } else {
            finish(c);
        }
    }
    return r;
}

/* StopIteration(value) for the iterator protocol. */
static PyObject *stop_with(PyObject *v)
{
    if (v == Py_None) {
        Py_DECREF(v);
        PyErr_SetNone(PyExc_StopIteration);
        return NULL;
    }
    PyObject *e = PyObject_CallOneArg(PyExc_StopIteration, v);
    Py_DECREF(v);
    if (e) {
        PyErr_SetObject(PyExc_StopIteration, e);
        Py_DECREF(e);
    }
    return NULL;
}

static PyObject *sockcall_iternext(SockCallObject *c)
{
    PyObject *out;
    PySendResult r = sockcall_am_send(c, Py_None, &out);
    if (r == PYGEN_NEXT)
        return out;
    if (r == PYGEN_RETURN)
        return stop_with(out);
    return NULL;
}

static PyObject *sockcall_send(SockCallObject *c, PyObject *arg)
{
    return sockcall_iternext(c);
}

/* A wait abandoned (throw, close, the object freed): the watch removed, so no data
 * is read for nobody (asyncio's coroutine leaves its reader to complete a future no one
 * awaits). The future stays as it is, as a coroutine closed inside `await fut` leaves
 * it: no one awaits it (a task waiting on it would have cancelled it, not thrown), and
 * cancelling it would call into a loop that may be closed by now. */
static int abandon(SockCallObject *c)
{
    return finish(c);
}

static PyObject *sockcall_throw(SockCallObject *c, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "throw expected 1 to 3 arguments");
        return NULL;
    }
    PyObject *typ = args[0], *val = nargs > 1 ? args[1] : Py_None, *tb = nargs > 2 ? args[2] : Py_None;
    if (abandon(c) < 0)
        return NULL;
    PyObject *exc;
    if (PyExceptionInstance_Check(typ)) {
        exc = Py_NewRef(typ);
    } else if (PyExceptionClass_Check(typ)) {
        if (PyExceptionInstance_Check(val) && PyObject_IsInstance(val, typ) == 1)
            exc = Py_NewRef(val);
        else
            exc = val == Py_None ? PyObject_CallNoArgs(typ) : PyObject_CallOneArg(typ, val);
        if (!exc)
            return NULL;
    } else {
        PyErr_SetString(PyExc_TypeError, "exceptions must be classes or instances deriving from BaseException");
        return NULL;
    }
    if (tb != Py_None && PyException_SetTraceback(exc, tb) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *sockcall_close(SockCallObject *c, PyObject *unused)
{
    if (abandon(c) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *sockcall_await(SockCallObject *c)
{
    return Py_NewRef(c);
}

static void sockcall_finalize(SockCallObject *c)
{
    if (c->state != ST_WAITING)
        return;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (abandon(c) < 0)
        PyErr_WriteUnraisable((PyObject *)c);
    PyErr_Restore(t, v, tb);
}

static int sockcall_traverse(SockCallObject *c, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(c));
    Py_VISIT((PyObject *)c->loop);
    Py_VISIT(c->sock);
    Py_VISIT(c->arg);
    Py_VISIT(c->fut);
    Py_VISIT((PyObject *)c->h);
    return 0;
}

static int sockcall_clear(SockCallObject *c)
{
    Py_CLEAR(c->fut);
    Py_CLEAR(c->h);
    Py_CLEAR(c->fdobj);
    Py_CLEAR(c->sock);
    Py_CLEAR(c->arg);
    Py_CLEAR(c->loop);
    if (c->has_view) {
        c->has_view = 0;
        PyBuffer_Release(&c->view);
    }
    return 0;
}

static void sockcall_dealloc(SockCallObject *c)
{
    if (PyObject_CallFinalizerFromDealloc((PyObject *)c) < 0)
        return;
    vpy_dealloc_begin((PyObject *)c, NULL);
    sockcall_clear(c);
    vpy_dealloc_end((PyObject *)c);
}

static const char *const op_names[] = {"sock_recv", "sock_recv_into", "sock_sendall"};

static PyObject *sockcall_get_name(SockCallObject *c, void *unused)
{
    return PyUnicode_FromString(op_names[(int)c->op]);
}

static PyObject *sockcall_get_qualname(SockCallObject *c, void *unused)
{
    return PyUnicode_FromFormat("Loop.%s", op_names[(int)c->op]);
}

static PyObject *sockcall_repr(SockCallObject *c)
{
    return PyUnicode_FromFormat("<vigil Loop.%s awaitable at %p>", op_names[(int)c->op], (void *)c);
}

static PyMethodDef sockcall_methods[] = {
    {"send", (PyCFunction)sockcall_send, METH_O, NULL},
    {"throw", (PyCFunction)(void (*)(void))sockcall_throw, METH_FASTCALL, NULL},
    {"close", (PyCFunction)sockcall_close, METH_NOARGS, NULL},
    {NULL},
};

static PyGetSetDef sockcall_getset[] = {
    {"__name__", (getter)sockcall_get_name, NULL, NULL, NULL},
    {"__qualname__", (getter)sockcall_get_qualname, NULL, NULL, NULL},
    {NULL},
};

static PyType_Slot sockcall_slots[] = {
    {Py_tp_dealloc, sockcall_dealloc},
    {Py_tp_finalize, sockcall_finalize},
    {Py_tp_traverse, sockcall_traverse},
    {Py_tp_clear, sockcall_clear},
    {Py_tp_call, sockcall_call},
    {Py_tp_iter, sockcall_await},
    {Py_tp_iternext, sockcall_iternext},
    {Py_tp_repr, sockcall_repr},
    {Py_tp_methods, sockcall_methods},
    {Py_tp_getset, sockcall_getset},
    {Py_am_await, sockcall_await},
    {Py_am_send, sockcall_am_send},
    {0, NULL},
};

static PyType_Spec sockcall_spec = {
    .name = "vigil._core.SockCall",
    .basicsize = sizeof(SockCallObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = sockcall_slots,
};

/* ------------------------------------------------------------- the methods */

static PyObject *sockcall_new(LoopObject *l, int op, PyObject *sock, PyObject *arg)
{
    SockCallObject *c = PyObject_GC_New(SockCallObject, l->st->sockcall_type);
    if (!c)
        return NULL;
    c->loop = (LoopObject *)Py_NewRef((PyObject *)l);
    c->sock = Py_NewRef(sock);
    c->arg = Py_NewRef(arg);
    c->fut = c->fdobj = NULL;
    c->h = NULL;
    c->n = c->pos = 0;
    c->fd = -1;
    c->op = (char)op;
    c->state = ST_NEW;
    c->has_view = c->plain = 0;
    memset(&c->view, 0, sizeof c->view);
    PyObject_GC_Track(c);
    return (PyObject *)c;
}

/* The two arguments, by position (the fast path) or by asyncio's parameter names. */
static int two_args(const char *name, const char *second, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames, PyObject **a, PyObject **b)
{
    if (nargs == 2 && (!kwnames || PyTuple_GET_SIZE(kwnames) == 0)) {
        *a = args[0];
        *b = args[1];
        return 0;
    }
    PyObject *t = PyTuple_New(nargs), *kw = NULL;
    if (!t)
        return -1;
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        if (!(kw = PyDict_New()))
            goto fail;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++)
            if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
                goto fail;
    }
    char fmt[64];
    snprintf(fmt, sizeof fmt, "OO:%s", name);
    char *kwlist[] = {"sock", (char *)second, NULL};
    if (!PyArg_ParseTupleAndKeywords(t, kw, fmt, kwlist, a, b))
        goto fail;
    Py_DECREF(t);
    Py_XDECREF(kw);
    return 0; /* *a and *b are borrowed from args */
fail:
    Py_DECREF(t);
    Py_XDECREF(kw);
    return -1;
}

static PyObject *loop_sock_recv(PyObject *self, PyTypeObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    PyObject *a, *b;
    (void)cls;
    if (two_args("sock_recv", "n", args, nargs, kwnames, &a, &b) < 0)
        return NULL;
    return sockcall_new((LoopObject *)self, OP_RECV, a, b);
}

static PyObject *loop_sock_recv_into(PyObject *self, PyTypeObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
    PyObject *a, *b;
    (void)cls;
    if (two_args("sock_recv_into", "buf", args, nargs, kwnames, &a, &b) < 0)
        return NULL;
    return sockcall_new((LoopObject *)self, OP_RECV_INTO, a, b);
}

static PyObject *loop_sock_sendall(PyObject *self, PyTypeObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    PyObject *a, *b;
    (void)cls;
    if (two_args("sock_sendall", "data", args, nargs, kwnames, &a, &b) < 0)
        return NULL;
    return sockcall_new((LoopObject *)self, OP_SENDALL, a, b);
}

static PyMethodDef sock_loop_defs[] = {
    {"sock_recv", (PyCFunction)(void (*)(void))loop_sock_recv, METH_METHOD | METH_FASTCALL | METH_KEYWORDS,
     "Receive up to n bytes from sock (asyncio's sock_recv; an awaitable coroutine object)."},
    {"sock_recv_into", (PyCFunction)(void (*)(void))loop_sock_recv_into, METH_METHOD | METH_FASTCALL | METH_KEYWORDS,
     "Receive into buf from sock (asyncio's sock_recv_into)."},
    {"sock_sendall", (PyCFunction)(void (*)(void))loop_sock_sendall, METH_METHOD | METH_FASTCALL | METH_KEYWORDS,
     "Send all of data on sock (asyncio's sock_sendall)."},
    {NULL},
};

/* _sock_methods(): {name: method descriptor of vigil._core.Loop} for vigil._loop.Loop. */
static PyObject *mod_sock_methods(PyObject *m, PyObject *unused)
{
    vpy_state *st = PyModule_GetState(m);
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    for (PyMethodDef *def = sock_loop_defs; def->ml_name; def++) {
        PyObject *f = PyDescr_NewMethod(st->loop_type, def);
        if (!f || PyDict_SetItemString(d, def->ml_name, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(f);
    }
    return d;
}

static PyMethodDef sock_mod_defs[] = {
    {"_sock_methods", mod_sock_methods, METH_NOARGS, "sock_recv/sock_recv_into/sock_sendall in C (sock.c)."},
    {NULL, NULL, 0, NULL},
};

int vpy_sock_add(PyObject *m, vpy_state *st)
{
    if (names_init() < 0)
        return -1;
    if (!scratch && !(scratch = PyMem_RawMalloc(SCRATCH))) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *sockmod = PyImport_ImportModule("socket");
    if (!sockmod)
        return -1;
    st->socket_type = PyObject_GetAttrString(sockmod, "socket");
    Py_DECREF(sockmod);
    if (!st->socket_type)
        return -1;
    if (!(st->sock_context = PyContext_New()))
        return -1;
    st->sockcall_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &sockcall_spec, NULL);
    if (!st->sockcall_type)
        return -1;
    return PyModule_AddFunctions(m, sock_mod_defs);
}
