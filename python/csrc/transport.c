/* The stream socket transport's hot path: vigil._core.TransportIO, the C half of
 * vigil._loop.SocketTransport (the Python shell gives it asyncio's class hierarchy and
 * does the rare work: errors, connection_lost, flow-control calls into the protocol).
 *
 * The I/O sits behind three functions, the only ones that touch the socket, so the
 * completion sockets API (<vigil/net.h>: receives into loop-owned buffers, sends that
 * complete when every byte is out) can replace readiness + recv/send later:
 *   tio_recv()       read what is there into the loop's buffer (or the protocol's)
 *   tio_send_now()   try a write immediately; report how much went out
 *   tio_flush()      push the buffered bytes when the socket is writable
 * and one function, tio_watch(), that makes the vigil_io's mask match the state
 * (READ while reading, WRITE only while bytes wait: a write is tried at once and the fd
 * is watched for writability only when it would block).
 *
 * Lifetime: while its vigil_io is started, a TransportIO holds a reference to itself
 * (vigil keeps a raw pointer) and sits on the loop's list, so closing the loop can stop
 * it. Events recorded during the wait queue the object itself on the ready queue (one
 * entry per turn, with the union of its events), so its reads and writes run in FIFO
 * order with every other callback, as a selector loop's reader and writer handles do. */
#include "core.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define WQ_IOV 64

typedef struct TransportObject {
    PyObject_HEAD
    LoopObject *loop;
    PyObject *sock, *shell, *protocol;
    PyObject *data_received;             /* bound: protocol.data_received */
    PyObject *get_buffer, *buffer_updated; /* bound: BufferedProtocol */
    vigil_io io;
    int fd;
    uint32_t pend_ev;
    Py_ssize_t high, low;
    /* The write buffer: bytes objects, the first one sent up to wq_off. */
    PyObject **wq;
    size_t wq_head, wq_len, wq_cap, wq_off;
    Py_ssize_t wsize;
    int conn_lost;
    char io_active, queued, started, paused, closing, eof, read_eof, buffered, empty_waiter, detached;
    struct TransportObject *lprev, *lnext;
    PyObject *weakreflist;
} TransportObject;

/* --------------------------------------------------------------- helpers */

static int call_shell(TransportObject *t, const char *meth, PyObject *arg)
{
    PyObject *r = arg ? PyObject_CallMethod(t->shell, meth, "O", arg) : PyObject_CallMethod(t->shell, meth, NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* An escaping exception is reported unless it is SystemExit/KeyboardInterrupt. */
static int swallow(void)
{
    if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        return -1;
    PyErr_WriteUnraisable(NULL);
    return 0;
}

static PyObject *errno_exc(int err)
{
    PyObject *args = Py_BuildValue("(is)", err, strerror(err));
    if (!args)
        return NULL;
    PyObject *e = PyObject_Call(PyExc_OSError, args, NULL);
    Py_DECREF(args);
    return e;
}

/* The rare paths into Python: the shell's _fatal_error / _write_error. */
static int fatal(TransportObject *t, int err, const char *msg, int write_side)
{
    PyObject *exc = errno_exc(err);
    if (!exc)
        return swallow();
    PyObject *r = write_side ? PyObject_CallMethod(t->shell, "_write_error", "O", exc)
                             : PyObject_CallMethod(t->shell, "_fatal_error", "Os", exc, msg);
    Py_DECREF(exc);
    if (!r)
        return swallow();
    Py_DECREF(r);
    return 0;
}

static void wq_clear(TransportObject *t)
{
    while (t->wq_len) {
        Py_DECREF(t->wq[t->wq_head]);
        t->wq_head = (t->wq_head + 1) & (t->wq_cap - 1);
        t->wq_len--;
    }
    t->wq_head = 0;
    t->wq_off = 0;
    t->wsize = 0;
}

static int wq_push(TransportObject *t, PyObject *bytes)
{
    if (t->wq_len == t->wq_cap) {
        size_t ncap = t->wq_cap ? t->wq_cap * 2 : 16;
        PyObject **n = PyMem_Malloc(ncap * sizeof *n);
        if (!n) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < t->wq_len; i++)
            n[i] = t->wq[(t->wq_head + i) & (t->wq_cap - 1)];
        PyMem_Free(t->wq);
        t->wq = n;
        t->wq_head = 0;
        t->wq_cap = ncap;
    }
    Py_INCREF(bytes);
    t->wq[(t->wq_head + t->wq_len) & (t->wq_cap - 1)] = bytes;
    t->wq_len++;
    t->wsize += PyBytes_GET_SIZE(bytes);
    return 0;
}

static void on_tio(vigil_loop *vl, vigil_io *w, int revents)
{
    vigil_py_pend_push(vigil_loop_data(vl), w->data, 2, revents);
}

static void list_add(TransportObject *t)
{
    LoopObject *l = t->loop;
    t->lprev = NULL;
    t->lnext = l->trs;
    if (l->trs)
        l->trs->lprev = t;
    l->trs = t;
}

static void list_del(TransportObject *t)
{
    if (t->lprev)
        t->lprev->lnext = t->lnext;
    else
        t->loop->trs = t->lnext;
    if (t->lnext)
        t->lnext->lprev = t->lprev;
    t->lprev = t->lnext = NULL;
}

/* Makes the watcher match the state. May drop the self-reference: callers hold one. */
static int tio_watch(TransportObject *t)
{
    LoopObject *l = t->loop;
    uint32_t mask = 0;
    if (!t->detached && l->vl) {
        if (t->started && !t->paused && !t->closing && !t->read_eof)
            mask |= VIGIL_READ;
        if (t->wq_len)
            mask |= VIGIL_WRITE;
    }
    int r = 0;
    if (!mask) {
        if (t->io_active) {
            if (l->vl)
                vigil_io_stop(l->vl, &t->io);
            t->io_active = 0;
            list_del(t);
            Py_DECREF(t);
        }
        return 0;
    }
    if (t->io_active) {
        if (t->io.events != mask)
            r = vigil_io_modify(l->vl, &t->io, mask);
    } else {
        r = vigil_io_start(l->vl, &t->io, t->fd, mask, on_tio);
        if (r == 0) {
            t->io_active = 1;
            list_add(t);
            Py_INCREF(t);
        }
    }
    if (r < 0) {
        errno = -r;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- reading */

/* Reads once what the socket holds and hands it to the protocol. */
static int tio_recv(TransportObject *t)
{
    LoopObject *l = t->loop;
    if (t->buffered) {
        static PyObject *minus_one;
        if (!minus_one && !(minus_one = PyLong_FromLong(-1)))
            return swallow();
        PyObject *buf = PyObject_CallOneArg(t->get_buffer, minus_one);
        if (!buf)
            goto proto_error_get;
        Py_buffer view;
        if (PyObject_GetBuffer(buf, &view, PyBUF_WRITABLE) < 0) {
            Py_DECREF(buf);
            goto proto_error_get;
        }
        if (view.len == 0) {
            PyBuffer_Release(&view);
            Py_DECREF(buf);
            PyErr_SetString(PyExc_RuntimeError, "get_buffer() returned an empty buffer");
            goto proto_error_get;
        }
        ssize_t n;
        do
            n = recv(t->fd, view.buf, (size_t)view.len, 0);
        while (n < 0 && errno == EINTR);
        int err = errno;
        PyBuffer_Release(&view);
        Py_DECREF(buf);
        if (n < 0) {
            if (err == EAGAIN || err == EWOULDBLOCK)
                return 0;
            return fatal(t, err, "Fatal read error on socket transport", 0);
        }
        if (n == 0)
            return call_shell(t, "_eof_received", NULL) < 0 ? swallow() : 0;
        PyObject *nb = PyLong_FromSsize_t(n);
        PyObject *r = nb ? PyObject_CallOneArg(t->buffer_updated, nb) : NULL;
        Py_XDECREF(nb);
        if (!r)
            goto proto_error_upd;
        Py_DECREF(r);
        return 0;
    proto_error_get:
        if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
            return -1;
        {
            PyObject *tp, *v, *tb;
            PyErr_Fetch(&tp, &v, &tb);
            PyErr_NormalizeException(&tp, &v, &tb);
            if (tb)
                PyException_SetTraceback(v, tb);
            PyObject *x = PyObject_CallMethod(t->shell, "_fatal_error", "Os", v,
                                              "Fatal error: protocol.get_buffer() call failed.");
            Py_XDECREF(tp);
            Py_XDECREF(v);
            Py_XDECREF(tb);
            if (!x)
                return swallow();
            Py_DECREF(x);
            return 0;
        }
    proto_error_upd:
        if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
            return -1;
        {
            PyObject *tp, *v, *tb;
            PyErr_Fetch(&tp, &v, &tb);
            PyErr_NormalizeException(&tp, &v, &tb);
            if (tb)
                PyException_SetTraceback(v, tb);
            PyObject *x = PyObject_CallMethod(t->shell, "_fatal_error", "Os", v,
                                              "Fatal error: protocol.buffer_updated() call failed.");
            Py_XDECREF(tp);
            Py_XDECREF(v);
            Py_XDECREF(tb);
            if (!x)
                return swallow();
            Py_DECREF(x);
            return 0;
        }
    }
    if (!l->rbuf) {
        l->rbuf = PyMem_Malloc(VIGIL_PY_RBUF);
        if (!l->rbuf) {
            PyErr_NoMemory();
            return swallow();
        }
    }
    ssize_t n;
    do
        n = recv(t->fd, l->rbuf, VIGIL_PY_RBUF, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return fatal(t, errno, "Fatal read error on socket transport", 0);
    }
    if (n == 0)
        return call_shell(t, "_eof_received", NULL) < 0 ? swallow() : 0;
    PyObject *data = PyBytes_FromStringAndSize(l->rbuf, n);
    if (!data)
        return swallow();
    PyObject *r = PyObject_CallOneArg(t->data_received, data);
    Py_DECREF(data);
    if (r) {
        Py_DECREF(r);
        return 0;
    }
    if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        return -1;
    PyObject *tp, *v, *tb;
    PyErr_Fetch(&tp, &v, &tb);
    PyErr_NormalizeException(&tp, &v, &tb);
    if (tb)
        PyException_SetTraceback(v, tb);
    PyObject *x = PyObject_CallMethod(t->shell, "_fatal_error", "Os", v,
                                      "Fatal error: protocol.data_received() call failed.");
    Py_XDECREF(tp);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    if (!x)
        return swallow();
    Py_DECREF(x);
    return 0;
}

/* --------------------------------------------------------------- writing */

/* One send attempt: bytes sent (>= 0), or -errno. EAGAIN counts as 0 sent. */
static ssize_t tio_send_now(TransportObject *t, const char *p, size_t len)
{
    ssize_t n;
    do
        n = send(t->fd, p, len, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        return n;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return 0;
    return -errno;
}

static int maybe_pause(TransportObject *t)
{
    if (t->wsize <= t->high)
        return 0;
    if (call_shell(t, "_maybe_pause_protocol", NULL) < 0)
        return swallow();
    return 0;
}

/* Writes the buffer out while the socket takes it (writev, up to WQ_IOV chunks). */
static int tio_flush(TransportObject *t)
{
    while (t->wq_len) {
        struct iovec iov[WQ_IOV];
        int cnt = 0;
        for (size_t i = 0; i < t->wq_len && cnt < WQ_IOV; i++, cnt++) {
            PyObject *b = t->wq[(t->wq_head + i) & (t->wq_cap - 1)];
            size_t off = i == 0 ? t->wq_off : 0;
            iov[cnt].iov_base = PyBytes_AS_STRING(b) + off;
            iov[cnt].iov_len = (size_t)PyBytes_GET_SIZE(b) - off;
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)cnt};
        ssize_t n;
        do
            n = sendmsg(t->fd, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            int err = errno;
            wq_clear(t);
            if (tio_watch(t) < 0)
                PyErr_Clear();
            return fatal(t, err, "Fatal write error on socket transport", 1);
        }
        t->wsize -= n;
        while (n > 0) {
            PyObject *b = t->wq[t->wq_head];
            size_t left = (size_t)PyBytes_GET_SIZE(b) - t->wq_off;
            if ((size_t)n >= left) {
                n -= (ssize_t)left;
                Py_DECREF(b);
                t->wq_head = (t->wq_head + 1) & (t->wq_cap - 1);
                t->wq_len--;
                t->wq_off = 0;
            } else {
                t->wq_off += (size_t)n;
                n = 0;
            }
        }
    }
    if (t->wsize <= t->low) {
        PyObject *p = PyObject_GetAttrString(t->shell, "_protocol_paused");
        int paused = p ? PyObject_IsTrue(p) : 0;
        Py_XDECREF(p);
        if (PyErr_Occurred())
            PyErr_Clear();
        if (paused && call_shell(t, "_maybe_resume_protocol", NULL) < 0 && swallow() < 0)
            return -1;
    }
    if (t->wq_len)
        return 0;
    if (tio_watch(t) < 0)
        PyErr_Clear();
    if (t->empty_waiter && call_shell(t, "_drained", NULL) < 0 && swallow() < 0)
        return -1;
    if (t->closing) {
        if (call_shell(t, "_call_connection_lost", Py_None) < 0)
            return swallow();
    } else if (t->eof) {
        shutdown(t->fd, SHUT_WR);
    }
    return 0;
}

static PyObject *tio_write(TransportObject *t, PyObject *data)
{
    Py_buffer view;
    if (!PyBytes_CheckExact(data) && !PyByteArray_Check(data) && !PyMemoryView_Check(data) && !PyBytes_Check(data))
        return PyErr_Format(PyExc_TypeError, "data argument must be a bytes-like object, not '%.200s'",
                            Py_TYPE(data)->tp_name);
    if (t->eof) {
        PyErr_SetString(PyExc_RuntimeError, "Cannot call write() after write_eof()");
        return NULL;
    }
    if (t->empty_waiter) {
        PyErr_SetString(PyExc_RuntimeError, "unable to write; sendfile is in progress");
        return NULL;
    }
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len == 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    if (t->conn_lost || t->detached) {
        PyBuffer_Release(&view);
        t->conn_lost++;
        PyObject *n = PyLong_FromLong(t->conn_lost);
        int r = n ? call_shell(t, "_lost_write", n) : -1;
        Py_XDECREF(n);
        if (r < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    size_t off = 0;
    if (!t->wq_len) {
        ssize_t n = tio_send_now(t, view.buf, (size_t)view.len);
        if (n < 0) {
            PyBuffer_Release(&view);
            if (fatal(t, (int)-n, "Fatal write error on socket transport", 1) < 0)
                return NULL;
            Py_RETURN_NONE;
        }
        if (n == view.len) {
            PyBuffer_Release(&view);
            Py_RETURN_NONE;
        }
        off = (size_t)n;
    }
    /* Keep what is left: a bytes object is immutable and kept as is; anything else is
     * copied (the caller may reuse its buffer). */
    PyObject *keep;
    if (PyBytes_CheckExact(data) && off == 0) {
        Py_INCREF(data);
        keep = data;
    } else {
        keep = PyBytes_FromStringAndSize((const char *)view.buf + off, view.len - (Py_ssize_t)off);
    }
    PyBuffer_Release(&view);
    if (!keep)
        return NULL;
    int r = wq_push(t, keep);
    Py_DECREF(keep);
    if (r < 0)
        return NULL;
    if (t->wq_len == 1 && tio_watch(t) < 0)
        return NULL;
    if (maybe_pause(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* -------------------------------------------------------- loop interface */

int vigil_py_transport_event(LoopObject *l, void *obj, int revents)
{
    TransportObject *t = obj;
    if (revents < 0) {
        /* vigil could not register the fd (closed under the transport): its watcher is
         * stopped. Let a read or write find the error and close the transport. */
        t->io_active = 0;
        list_del(t);
        t->pend_ev |= VIGIL_ERR;
        if (!t->queued) {
            t->queued = 1;
            /* the self-reference becomes the queue's */
            return vigil_py_rq_push(l, (PyObject *)t);
        }
        Py_DECREF(t);
        return 0;
    }
    t->pend_ev |= (uint32_t)revents;
    if (t->queued)
        return 0;
    t->queued = 1;
    Py_INCREF(t);
    return vigil_py_rq_push(l, (PyObject *)t);
}

int vigil_py_transport_run(PyObject *o)
{
    TransportObject *t = (TransportObject *)o;
    uint32_t ev = t->pend_ev;
    t->pend_ev = 0;
    t->queued = 0;
    if (t->detached)
        return 0;
    if ((ev & (VIGIL_READ | VIGIL_ERR | VIGIL_HUP)) && t->started && !t->paused && !t->closing && !t->read_eof) {
        if (tio_recv(t) < 0)
            return -1;
    }
    if ((ev & (VIGIL_WRITE | VIGIL_ERR | VIGIL_HUP)) && t->wq_len && !t->detached) {
        if (tio_flush(t) < 0)
            return -1;
    }
    return 0;
}

void vigil_py_transport_loop_closed(LoopObject *l)
{
    while (l->trs) {
        TransportObject *t = l->trs;
        list_del(t);
        if (t->io_active && l->vl)
            vigil_io_stop(l->vl, &t->io);
        t->io_active = 0;
        Py_DECREF(t);
    }
}

/* ------------------------------------------------------------ the type */

static PyObject *tio_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *loop, *sock, *shell, *protocol;
    int buffered;
    if (!PyArg_ParseTuple(args, "O!OOOp", &Vigil_LoopType, &loop, &sock, &shell, &protocol, &buffered))
        return NULL;
    int fd = PyObject_AsFileDescriptor(sock);
    if (fd < 0)
        return NULL;
    TransportObject *t = (TransportObject *)type->tp_alloc(type, 0);
    if (!t)
        return NULL;
    Py_INCREF(loop);
    t->loop = (LoopObject *)loop;
    Py_INCREF(sock);
    t->sock = sock;
    Py_INCREF(shell);
    t->shell = shell;
    t->fd = fd;
    t->io.data = t;
    t->high = 64 * 1024;
    t->low = 16 * 1024;
    PyObject *r = PyObject_CallMethod((PyObject *)t, "_set_protocol", "Oi", protocol, buffered);
    if (!r) {
        Py_DECREF(t);
        return NULL;
    }
    Py_DECREF(r);
    return (PyObject *)t;
}

static int tio_traverse(TransportObject *t, visitproc visit, void *arg)
{
    Py_VISIT(t->loop);
    Py_VISIT(t->sock);
    Py_VISIT(t->shell);
    Py_VISIT(t->protocol);
    Py_VISIT(t->data_received);
    Py_VISIT(t->get_buffer);
    Py_VISIT(t->buffer_updated);
    for (size_t i = 0; i < t->wq_len; i++)
        Py_VISIT(t->wq[(t->wq_head + i) & (t->wq_cap - 1)]);
    return 0;
}

static int tio_clear(TransportObject *t)
{
    Py_CLEAR(t->sock);
    Py_CLEAR(t->shell);
    Py_CLEAR(t->protocol);
    Py_CLEAR(t->data_received);
    Py_CLEAR(t->get_buffer);
    Py_CLEAR(t->buffer_updated);
    wq_clear(t);
    t->detached = 1;
    return 0;
}

static void tio_dealloc(TransportObject *t)
{
    PyObject_GC_UnTrack(t);
    if (t->weakreflist)
        PyObject_ClearWeakRefs((PyObject *)t);
    tio_clear(t);
    PyMem_Free(t->wq);
    Py_CLEAR(t->loop);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyObject *m_set_protocol(TransportObject *t, PyObject *args)
{
    PyObject *protocol;
    int buffered;
    if (!PyArg_ParseTuple(args, "Op", &protocol, &buffered))
        return NULL;
    PyObject *dr = NULL, *gb = NULL, *bu = NULL;
    if (buffered) {
        gb = PyObject_GetAttrString(protocol, "get_buffer");
        bu = gb ? PyObject_GetAttrString(protocol, "buffer_updated") : NULL;
        if (!bu) {
            Py_XDECREF(gb);
            return NULL;
        }
    } else {
        dr = PyObject_GetAttrString(protocol, "data_received");
        if (!dr)
            return NULL;
    }
    Py_INCREF(protocol);
    Py_XSETREF(t->protocol, protocol);
    Py_XSETREF(t->data_received, dr);
    Py_XSETREF(t->get_buffer, gb);
    Py_XSETREF(t->buffer_updated, bu);
    t->buffered = (char)buffered;
    Py_RETURN_NONE;
}

static PyObject *m_start_reading(TransportObject *t, PyObject *unused)
{
    if (t->closing || t->detached || t->started)
        Py_RETURN_NONE;
    t->started = 1;
    if (tio_watch(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_pause_reading(TransportObject *t, PyObject *unused)
{
    if (t->closing || t->paused)
        Py_RETURN_NONE;
    t->paused = 1;
    if (tio_watch(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_resume_reading(TransportObject *t, PyObject *unused)
{
    if (t->closing || !t->paused)
        Py_RETURN_NONE;
    t->paused = 0;
    if (tio_watch(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_stop_reading_eof(TransportObject *t, PyObject *unused)
{
    t->read_eof = 1;
    if (tio_watch(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_is_reading(TransportObject *t, PyObject *unused)
{
    return PyBool_FromLong(!t->paused && !t->closing);
}

static PyObject *m_is_closing(TransportObject *t, PyObject *unused)
{
    return PyBool_FromLong(t->closing);
}

static PyObject *m_get_write_buffer_size(TransportObject *t, PyObject *unused)
{
    return PyLong_FromSsize_t(t->wsize);
}

static PyObject *m_set_limits(TransportObject *t, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "nn", &t->high, &t->low))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_set_empty_waiter(TransportObject *t, PyObject *arg)
{
    t->empty_waiter = (char)PyObject_IsTrue(arg);
    Py_RETURN_NONE;
}

static PyObject *m_write_eof(TransportObject *t, PyObject *unused)
{
    if (t->closing || t->eof)
        Py_RETURN_NONE;
    t->eof = 1;
    if (!t->wq_len && !t->detached && shutdown(t->fd, SHUT_WR) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static int schedule_lost(TransportObject *t, PyObject *exc)
{
    PyObject *cb = PyObject_GetAttrString(t->shell, "_call_connection_lost");
    if (!cb)
        return -1;
    PyObject *r = PyObject_CallMethod((PyObject *)t->loop, "call_soon", "OO", cb, exc);
    Py_DECREF(cb);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *m_close(TransportObject *t, PyObject *unused)
{
    if (t->closing)
        Py_RETURN_NONE;
    t->closing = 1;
    if (tio_watch(t) < 0)
        PyErr_Clear();
    if (!t->wq_len) {
        t->conn_lost++;
        if (schedule_lost(t, Py_None) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *m_force_close(TransportObject *t, PyObject *exc)
{
    if (t->conn_lost)
        Py_RETURN_NONE;
    wq_clear(t);
    t->closing = 1;
    if (tio_watch(t) < 0)
        PyErr_Clear();
    t->conn_lost++;
    if (schedule_lost(t, exc) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* After connection_lost: stop watching, drop the buffer and the protocol. */
static PyObject *m_detach(TransportObject *t, PyObject *unused)
{
    t->closing = 1;
    t->detached = 1;
    wq_clear(t);
    if (tio_watch(t) < 0)
        PyErr_Clear();
    Py_CLEAR(t->data_received);
    Py_CLEAR(t->get_buffer);
    Py_CLEAR(t->buffer_updated);
    Py_CLEAR(t->protocol);
    Py_RETURN_NONE;
}

static PyMethodDef tio_methods[] = {
    {"write", (PyCFunction)tio_write, METH_O, "Write bytes: sent at once, buffered only if the socket is full."},
    {"get_write_buffer_size", (PyCFunction)m_get_write_buffer_size, METH_NOARGS, NULL},
    {"is_reading", (PyCFunction)m_is_reading, METH_NOARGS, NULL},
    {"is_closing", (PyCFunction)m_is_closing, METH_NOARGS, NULL},
    {"pause_reading", (PyCFunction)m_pause_reading, METH_NOARGS, NULL},
    {"resume_reading", (PyCFunction)m_resume_reading, METH_NOARGS, NULL},
    {"write_eof", (PyCFunction)m_write_eof, METH_NOARGS, NULL},
    {"close", (PyCFunction)m_close, METH_NOARGS, NULL},
    {"_force_close", (PyCFunction)m_force_close, METH_O, NULL},
    {"_detach", (PyCFunction)m_detach, METH_NOARGS, NULL},
    {"_start_reading", (PyCFunction)m_start_reading, METH_NOARGS, NULL},
    {"_stop_reading_eof", (PyCFunction)m_stop_reading_eof, METH_NOARGS, NULL},
    {"_set_protocol", (PyCFunction)m_set_protocol, METH_VARARGS, NULL},
    {"_set_limits", (PyCFunction)m_set_limits, METH_VARARGS, NULL},
    {"_set_empty_waiter", (PyCFunction)m_set_empty_waiter, METH_O, NULL},
    {NULL},
};

PyTypeObject Vigil_TransportType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vigil._core.TransportIO",
    .tp_basicsize = sizeof(TransportObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The read/write path of a stream socket transport (see vigil._loop.SocketTransport).",
    .tp_new = tio_new,
    .tp_dealloc = (destructor)tio_dealloc,
    .tp_traverse = (traverseproc)tio_traverse,
    .tp_clear = (inquiry)tio_clear,
    .tp_methods = tio_methods,
    .tp_weaklistoffset = offsetof(TransportObject, weakreflist),
};

int vigil_py_transport_init(PyObject *m)
{
    if (PyType_Ready(&Vigil_TransportType) < 0)
        return -1;
    Py_INCREF(&Vigil_TransportType);
    return PyModule_AddObject(m, "TransportIO", (PyObject *)&Vigil_TransportType);
}
