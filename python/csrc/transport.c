/* The stream socket transport's hot path: vigil._core.TransportIO, the C half of
 * vigil._loop.SocketTransport (the Python shell gives it asyncio's class hierarchy and
 * does the rare work: errors, connection_lost, flow-control calls into the protocol).
 *
 * The I/O goes through the completion sockets API (<vigil/net.h>), so on io_uring a
 * turn's receives and sends ride the turn's one io_uring_enter (a multishot receive into
 * the loop's buffer pool, sends that complete when every byte is out); on epoll and
 * poll vigil emulates the same completions. At creation the transport gives vigil a
 * dup() of the socket's fd (vigil_sock_open owns and closes it; the Python socket stays
 * the shell's: get_extra_info('socket'), sendfile). The vigil_sock is malloc'd: a
 * transport freed while vigil still finishes its close leaves it to the close callback.
 *
 *   tio_rx_update()  start/stop the receive stream to match the state (reading, paused,
 *                    closing); pause_reading keeps what vigil already received
 *   tio_deliver()    hand the recorded receives to the protocol, in order
 *   tio_send()       start a send (a bytes object: no copy) or a sendv of the queue
 *   tio_reap()       end the sends vigil completed: release their objects
 *
 * vigil's callbacks run inside vigil_loop_run, maybe without the GIL: they only record
 * (the buffer on the transport's receive ring, a send slot's result) and push the
 * transport once on the loop's pending list; the transport then runs from the ready
 * queue with the GIL, in FIFO order with every other callback.
 *
 * Lifetime: while vigil may call back (a receive stream runs or a send is in flight) the
 * transport holds a reference to itself; while its vigil_sock is open it sits on the
 * loop's list, so closing the loop can finish it. */
#include "core.h"

#include <structmember.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define NSLOT 2
#define SENDV_MAX 512
#define RX_JOIN_MAX (256 * 1024)
#define POOL_BUF_SIZE 16384
#define POOL_BUF_COUNT 1024 /* 16 MiB of address space per loop, touched as used */

typedef struct TransportObject TransportObject;

/* A send in flight: the objects it keeps alive and its iovec array. */
struct wslot {
    vigil_net_req req;
    TransportObject *t;
    PyObject **objs;
    size_t n, cap;
    struct iovec *iov;
    Py_ssize_t bytes;
    ssize_t res;
    char busy, done;
};

struct rxe {
    vigil_buf *buf;
    ssize_t res;
};

struct TransportObject {
    PyObject_HEAD
    LoopObject *loop;
    PyObject *sock, *shell, *protocol;
    PyObject *data_received;             /* bound: protocol.data_received */
    PyObject *get_buffer, *buffer_updated; /* bound: BufferedProtocol */
    vigil_sock *vs;                      /* NULL once closed */
    struct wslot slot[NSLOT];
    int nbusy;
    /* Receives recorded by the callback: a ring (C heap), the head used up to rx_off. */
    struct rxe *rx;
    size_t rx_head, rx_len, rx_cap;
    size_t rx_off;
    Py_ssize_t high, low;
    /* The write queue: bytes objects not yet handed to vigil. */
    PyObject **wq;
    size_t wq_head, wq_len, wq_cap;
    Py_ssize_t wq_bytes, fly_bytes;
    int conn_lost;
    char queued, pend_marked, selfref, rx_on, rx_ended, started, paused, closing, eof, eof_done, read_eof,
        buffered, empty_waiter, detached, lost_called;
    struct TransportObject *lprev, *lnext;
    PyObject *weakreflist;
};

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

/* A protocol callback raised: the shell's _fatal_error with the exception. */
static int proto_error(TransportObject *t, const char *msg)
{
    if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        return -1;
    PyObject *tp, *v, *tb;
    PyErr_Fetch(&tp, &v, &tb);
    PyErr_NormalizeException(&tp, &v, &tb);
    if (tb)
        PyException_SetTraceback(v, tb);
    PyObject *x = PyObject_CallMethod(t->shell, "_fatal_error", "Os", v, msg);
    Py_XDECREF(tp);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    if (!x)
        return swallow();
    Py_DECREF(x);
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
    t->wq_bytes = 0;
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
    t->wq_bytes += PyBytes_GET_SIZE(bytes);
    return 0;
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

/* Holds the self-reference while vigil may call back. May drop the last reference:
 * callers hold one. */
static void ref_update(TransportObject *t)
{
    int want = t->nbusy || (t->vs && t->rx_on);
    if (want && !t->selfref) {
        t->selfref = 1;
        Py_INCREF(t);
    } else if (!want && t->selfref) {
        t->selfref = 0;
        Py_DECREF(t);
    }
}

static void set_oserror(int err)
{
    errno = err;
    PyErr_SetFromErrno(PyExc_OSError);
}

/* ------------------------------------------------- vigil's callbacks (no GIL) */

static void mark(TransportObject *t, vigil_loop *vl)
{
    if (t->pend_marked)
        return;
    t->pend_marked = 1;
    vigil_py_pend_push(vigil_loop_data(vl), t, 2, 0);
}

static void on_recv(vigil_loop *vl, vigil_sock *s, ssize_t res, vigil_buf *buf)
{
    TransportObject *t = s->data;
    if (!t) {
        vigil_buf_put(vl, buf);
        return;
    }
    if (res <= 0) {
        t->rx_on = 0;
        t->rx_ended = 1;
    }
    if (t->rx_len == t->rx_cap) {
        size_t ncap = t->rx_cap ? t->rx_cap * 2 : 8;
        struct rxe *n = malloc(ncap * sizeof *n); /* no GIL here: plain C heap */
        if (!n) {
            /* Out of memory: end the stream with an error the protocol will see. */
            vigil_buf_put(vl, buf);
            if (t->rx_on)
                vigil_sock_recv_stop(vl, s);
            t->rx_on = 0;
            t->rx_ended = 1;
            if (t->rx_len) {
                struct rxe *last = &t->rx[(t->rx_head + t->rx_len - 1) & (t->rx_cap - 1)];
                if (last->res > 0) {
                    vigil_buf_put(vl, last->buf);
                    last->buf = NULL;
                }
                last->res = -ENOMEM;
            }
            mark(t, vl);
            return;
        }
        for (size_t i = 0; i < t->rx_len; i++)
            n[i] = t->rx[(t->rx_head + i) & (t->rx_cap - 1)];
        free(t->rx);
        t->rx = n;
        t->rx_head = 0;
        t->rx_cap = ncap;
    }
    t->rx[(t->rx_head + t->rx_len) & (t->rx_cap - 1)] = (struct rxe){buf, res};
    t->rx_len++;
    mark(t, vl);
}

static void on_sent(vigil_loop *vl, vigil_net_req *req, ssize_t res)
{
    struct wslot *w = req->data;
    w->res = res;
    w->done = 1;
    mark(w->t, vl);
}

static void on_sock_closed(vigil_loop *vl, vigil_sock *s)
{
    (void)vl;
    free(s);
}

/* Closes the vigil socket (the dup): receives stop now, sends in flight complete
 * (-ECANCELED) later, and the close callback frees the vigil_sock. */
static void sock_close(TransportObject *t)
{
    if (!t->vs)
        return;
    vigil_loop *vl = t->loop->vl;
    vigil_sock *vs = t->vs;
    t->vs = NULL;
    list_del(t);
    if (vl) {
        while (t->rx_len) {
            vigil_buf_put(vl, t->rx[t->rx_head].buf);
            t->rx_head = (t->rx_head + 1) & (t->rx_cap - 1);
            t->rx_len--;
        }
        t->rx_off = 0;
        vs->data = NULL;
        if (vigil_sock_close(vl, vs, on_sock_closed) < 0)
            free(vs);
    } else {
        free(vs); /* the loop is gone, and vigil_loop_free closed it */
    }
    t->rx_on = 0;
}

/* --------------------------------------------------------------- reading */

/* Starts or stops the receive stream to match the state. */
static int tio_rx_update(TransportObject *t)
{
    vigil_loop *vl = t->loop->vl;
    int want = t->vs && vl && t->started && !t->paused && !t->closing && !t->read_eof && !t->detached &&
               !t->rx_ended;
    int r = 0;
    if (want && !t->rx_on) {
        r = vigil_sock_recv_start(vl, t->vs, on_recv);
        if (r == 0)
            t->rx_on = 1;
    } else if (!want && t->rx_on) {
        vigil_sock_recv_stop(vl, t->vs);
        t->rx_on = 0;
    }
    ref_update(t);
    if (r < 0 && r != -EPIPE) {
        set_oserror(-r);
        return -1;
    }
    return 0;
}

static void rx_pop(TransportObject *t)
{
    vigil_loop *vl = t->loop->vl;
    struct rxe *e = &t->rx[t->rx_head];
    if (e->buf && vl)
        vigil_buf_put(vl, e->buf);
    t->rx_head = (t->rx_head + 1) & (t->rx_cap - 1);
    t->rx_len--;
    t->rx_off = 0;
}

static int can_deliver(TransportObject *t)
{
    return t->rx_len && !t->paused && !t->closing && !t->detached && !t->read_eof;
}

/* Hands the recorded receives to the protocol, in order, while it reads. */
static int tio_deliver(TransportObject *t)
{
    while (can_deliver(t)) {
        struct rxe *e = &t->rx[t->rx_head];
        if (e->res == 0) {
            rx_pop(t);
            if (call_shell(t, "_eof_received", NULL) < 0 && swallow() < 0)
                return -1;
            continue;
        }
        if (e->res < 0) {
            int err = (int)-e->res;
            rx_pop(t);
            if (fatal(t, err, "Fatal read error on socket transport", 0) < 0)
                return -1;
            continue;
        }
        if (t->buffered) {
            static PyObject *minus_one;
            if (!minus_one && !(minus_one = PyLong_FromLong(-1)))
                return swallow();
            PyObject *buf = PyObject_CallOneArg(t->get_buffer, minus_one);
            if (!buf) {
                if (proto_error(t, "Fatal error: protocol.get_buffer() call failed.") < 0)
                    return -1;
                continue;
            }
            Py_buffer view;
            if (PyObject_GetBuffer(buf, &view, PyBUF_WRITABLE) < 0) {
                Py_DECREF(buf);
                if (proto_error(t, "Fatal error: protocol.get_buffer() call failed.") < 0)
                    return -1;
                continue;
            }
            if (view.len == 0) {
                PyBuffer_Release(&view);
                Py_DECREF(buf);
                PyErr_SetString(PyExc_RuntimeError, "get_buffer() returned an empty buffer");
                if (proto_error(t, "Fatal error: protocol.get_buffer() call failed.") < 0)
                    return -1;
                continue;
            }
            size_t left = (size_t)e->res - t->rx_off;
            size_t n = (size_t)view.len < left ? (size_t)view.len : left;
            memcpy(view.buf, e->buf->data + t->rx_off, n);
            PyBuffer_Release(&view);
            Py_DECREF(buf);
            t->rx_off += n;
            if (t->rx_off == (size_t)e->res)
                rx_pop(t);
            PyObject *nb = PyLong_FromSize_t(n);
            PyObject *r = nb ? PyObject_CallOneArg(t->buffer_updated, nb) : NULL;
            Py_XDECREF(nb);
            if (!r) {
                if (proto_error(t, "Fatal error: protocol.buffer_updated() call failed.") < 0)
                    return -1;
                continue;
            }
            Py_DECREF(r);
            continue;
        }
        /* Consecutive receives become one bytes object (up to RX_JOIN_MAX). */
        size_t total = 0, cnt = 0;
        for (size_t i = 0; i < t->rx_len; i++) {
            struct rxe *x = &t->rx[(t->rx_head + i) & (t->rx_cap - 1)];
            if (x->res <= 0 || (cnt && total + (size_t)x->res > RX_JOIN_MAX))
                break;
            total += (size_t)x->res;
            cnt++;
        }
        PyObject *data;
        if (cnt == 1) {
            data = PyBytes_FromStringAndSize(e->buf->data, e->res);
            if (!data)
                return swallow();
            rx_pop(t);
        } else {
            data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
            if (!data)
                return swallow();
            char *p = PyBytes_AS_STRING(data);
            for (size_t i = 0; i < cnt; i++) {
                struct rxe *x = &t->rx[t->rx_head];
                memcpy(p, x->buf->data, (size_t)x->res);
                p += x->res;
                rx_pop(t);
            }
        }
        PyObject *r = PyObject_CallOneArg(t->data_received, data);
        Py_DECREF(data);
        if (r) {
            Py_DECREF(r);
            continue;
        }
        if (proto_error(t, "Fatal error: protocol.data_received() call failed.") < 0)
            return -1;
    }
    if (t->rx_len && (t->closing || t->detached)) {
        while (t->rx_len)
            rx_pop(t);
    }
    return 0;
}

/* --------------------------------------------------------------- writing */

static struct wslot *free_slot(TransportObject *t)
{
    for (int i = 0; i < NSLOT; i++)
        if (!t->slot[i].busy)
            return &t->slot[i];
    return NULL;
}

static int slot_reserve(struct wslot *w, size_t n)
{
    if (w->cap >= n)
        return 0;
    size_t ncap = w->cap ? w->cap : 4;
    while (ncap < n)
        ncap *= 2;
    PyObject **o = PyMem_Realloc(w->objs, ncap * sizeof *o);
    if (!o)
        goto nomem;
    w->objs = o;
    struct iovec *v = PyMem_Realloc(w->iov, ncap * sizeof *v);
    if (!v)
        goto nomem;
    w->iov = v;
    w->cap = ncap;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

static void slot_release(TransportObject *t, struct wslot *w)
{
    for (size_t i = 0; i < w->n; i++)
        Py_DECREF(w->objs[i]);
    w->n = 0;
    t->fly_bytes -= w->bytes;
    w->bytes = 0;
    w->busy = 0;
    w->done = 0;
    t->nbusy--;
}

/* Starts a send: `one` (a new reference, handed over) or else the whole write queue (up
 * to SENDV_MAX chunks). 0, or a negative errno from vigil (nothing in flight then). */
static int tio_send(TransportObject *t, PyObject *one)
{
    struct wslot *w = free_slot(t);
    vigil_loop *vl = t->loop->vl;
    if (!w || !t->vs || !vl) {
        Py_XDECREF(one);
        return -EBADF;
    }
    size_t n = one ? 1 : (t->wq_len < SENDV_MAX ? t->wq_len : SENDV_MAX);
    if (slot_reserve(w, n) < 0) {
        PyErr_Clear();
        Py_XDECREF(one);
        return -ENOMEM;
    }
    Py_ssize_t bytes = 0;
    if (one) {
        w->objs[0] = one;
        bytes = PyBytes_GET_SIZE(one);
    } else {
        for (size_t i = 0; i < n; i++) {
            PyObject *b = t->wq[t->wq_head];
            t->wq_head = (t->wq_head + 1) & (t->wq_cap - 1);
            t->wq_len--;
            w->objs[i] = b;
            w->iov[i].iov_base = PyBytes_AS_STRING(b);
            w->iov[i].iov_len = (size_t)PyBytes_GET_SIZE(b);
            bytes += PyBytes_GET_SIZE(b);
        }
        t->wq_bytes -= bytes;
    }
    w->n = n;
    w->bytes = bytes;
    w->t = t;
    w->req.data = w;
    w->busy = 1;
    w->done = 0;
    t->nbusy++;
    t->fly_bytes += bytes;
    int r = n == 1 ? vigil_sock_send(vl, t->vs, &w->req, PyBytes_AS_STRING(w->objs[0]),
                                     (size_t)PyBytes_GET_SIZE(w->objs[0]), on_sent)
                   : vigil_sock_sendv(vl, t->vs, &w->req, w->iov, (int)n, on_sent);
    if (r < 0) {
        slot_release(t, w);
        return r;
    }
    ref_update(t);
    return 0;
}

/* write_eof once every queued byte is handed to vigil (vigil shuts down after them). */
static void maybe_shutdown(TransportObject *t)
{
    if (t->eof && !t->eof_done && !t->wq_len && t->vs && t->loop->vl) {
        t->eof_done = 1;
        vigil_sock_shutdown(t->loop->vl, t->vs, SHUT_WR);
    }
}

/* Hands the write queue to vigil when no send is in flight. */
static int tio_flush(TransportObject *t)
{
    if (t->nbusy || !t->wq_len || t->detached)
        return 0;
    int r = tio_send(t, NULL);
    if (r < 0) {
        wq_clear(t);
        return fatal(t, -r, "Fatal write error on socket transport", 1);
    }
    maybe_shutdown(t);
    return 0;
}

/* Ends the sends vigil completed; then the write-side consequences (next send, resume
 * the protocol, the drained waiter, connection_lost after close). */
static int tio_reap(TransportObject *t)
{
    int err = 0, any = 0;
    for (int i = 0; i < NSLOT; i++) {
        struct wslot *w = &t->slot[i];
        if (!w->busy || !w->done)
            continue;
        if (w->res < 0 && w->res != -ECANCELED && !err)
            err = (int)-w->res;
        slot_release(t, w);
        any = 1;
    }
    if (!any || t->detached)
        return 0;
    if (err) {
        if (t->conn_lost)
            return 0;
        wq_clear(t);
        return fatal(t, err, "Fatal write error on socket transport", 1);
    }
    if (tio_flush(t) < 0)
        return -1;
    if (t->detached)
        return 0;
    if (t->wq_bytes + t->fly_bytes <= t->low) {
        static PyObject *name; /* interned once: no string made per completed send */
        if (!name && !(name = PyUnicode_InternFromString("_protocol_paused")))
            return -1;
        PyObject *p = PyObject_GetAttr(t->shell, name);
        int paused = p ? PyObject_IsTrue(p) : 0;
        Py_XDECREF(p);
        if (PyErr_Occurred())
            PyErr_Clear();
        if (paused && call_shell(t, "_maybe_resume_protocol", NULL) < 0 && swallow() < 0)
            return -1;
    }
    if (t->nbusy || t->wq_len || t->detached)
        return 0;
    if (t->empty_waiter && call_shell(t, "_drained", NULL) < 0 && swallow() < 0)
        return -1;
    if (t->closing && !t->conn_lost && !t->lost_called && !t->detached) {
        t->lost_called = 1;
        if (call_shell(t, "_call_connection_lost", Py_None) < 0)
            return swallow();
    }
    return 0;
}

static int maybe_pause(TransportObject *t)
{
    if (t->wq_bytes + t->fly_bytes <= t->high)
        return 0;
    if (call_shell(t, "_maybe_pause_protocol", NULL) < 0)
        return swallow();
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
    if (t->conn_lost || t->detached || !t->vs) {
        PyBuffer_Release(&view);
        t->conn_lost++;
        PyObject *n = PyLong_FromLong(t->conn_lost);
        int r = n ? call_shell(t, "_lost_write", n) : -1;
        Py_XDECREF(n);
        if (r < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    /* A bytes object is immutable and kept as is; anything else is copied (the caller
     * may reuse its buffer). */
    PyObject *keep;
    if (PyBytes_CheckExact(data)) {
        Py_INCREF(data);
        keep = data;
    } else {
        keep = PyBytes_FromStringAndSize((const char *)view.buf, view.len);
    }
    PyBuffer_Release(&view);
    if (!keep)
        return NULL;
    if (!t->nbusy && !t->wq_len) {
        int r = tio_send(t, keep);
        if (r < 0) {
            if (fatal(t, -r, "Fatal write error on socket transport", 1) < 0)
                return NULL;
            Py_RETURN_NONE;
        }
    } else {
        int r = wq_push(t, keep);
        Py_DECREF(keep);
        if (r < 0)
            return NULL;
    }
    if (maybe_pause(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* -------------------------------------------------------- loop interface */

int vigil_py_transport_event(LoopObject *l, void *obj, int revents)
{
    TransportObject *t = obj;
    (void)revents;
    t->pend_marked = 0;
    if (t->queued)
        return 0;
    t->queued = 1;
    Py_INCREF(t);
    return vigil_py_rq_push(l, (PyObject *)t);
}

static int queue_self(TransportObject *t)
{
    if (t->queued)
        return 0;
    t->queued = 1;
    Py_INCREF(t);
    return vigil_py_rq_push(t->loop, (PyObject *)t);
}

int vigil_py_transport_run(PyObject *o)
{
    TransportObject *t = (TransportObject *)o;
    t->queued = 0;
    int rc = 0;
    if (tio_reap(t) < 0)
        rc = -1;
    else if (tio_deliver(t) < 0)
        rc = -1;
    ref_update(t);
    return rc;
}

/* The loop was freed (or forked away): vigil closed every socket and ended every
 * request; drop what they held. */
void vigil_py_transport_loop_closed(LoopObject *l)
{
    while (l->trs) {
        TransportObject *t = l->trs;
        Py_INCREF(t);
        list_del(t);
        free(t->vs);
        t->vs = NULL;
        t->rx_len = t->rx_head = t->rx_off = 0; /* the pool is gone */
        for (int i = 0; i < NSLOT; i++)
            if (t->slot[i].busy)
                slot_release(t, &t->slot[i]);
        t->rx_on = 0;
        ref_update(t);
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
    LoopObject *l = (LoopObject *)loop;
    if (!l->vl || l->closed) {
        PyErr_SetString(PyExc_RuntimeError, "Event loop is closed");
        return NULL;
    }
    int fd = PyObject_AsFileDescriptor(sock);
    if (fd < 0)
        return NULL;
    TransportObject *t = (TransportObject *)type->tp_alloc(type, 0);
    if (!t)
        return NULL;
    Py_INCREF(loop);
    t->loop = l;
    Py_INCREF(sock);
    t->sock = sock;
    Py_INCREF(shell);
    t->shell = shell;
    t->high = 64 * 1024;
    t->low = 16 * 1024;
    PyObject *r = PyObject_CallMethod((PyObject *)t, "_set_protocol", "Oi", protocol, buffered);
    if (!r) {
        Py_DECREF(t);
        return NULL;
    }
    Py_DECREF(r);
    struct vigil_net_options no;
    vigil_net_options_init(&no);
    no.buf_size = POOL_BUF_SIZE;
    no.buf_count = POOL_BUF_COUNT;
    int e = vigil_net_setup(l->vl, &no);
    if (e < 0 && e != -EBUSY) {
        set_oserror(-e);
        Py_DECREF(t);
        return NULL;
    }
    int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dfd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        Py_DECREF(t);
        return NULL;
    }
    vigil_sock *vs = calloc(1, sizeof *vs);
    if (!vs) {
        close(dfd);
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    vs->data = t;
    e = vigil_sock_open(l->vl, vs, dfd);
    if (e < 0) {
        close(dfd);
        free(vs);
        set_oserror(-e);
        Py_DECREF(t);
        return NULL;
    }
    t->vs = vs;
    list_add(t);
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
    sock_close(t); /* no receive stream and no send in flight: we hold no self-reference */
    free(t->rx);
    for (int i = 0; i < NSLOT; i++) {
        PyMem_Free(t->slot[i].objs);
        PyMem_Free(t->slot[i].iov);
    }
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
    if (tio_rx_update(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_pause_reading(TransportObject *t, PyObject *unused)
{
    if (t->closing || t->paused)
        Py_RETURN_NONE;
    t->paused = 1;
    if (tio_rx_update(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_resume_reading(TransportObject *t, PyObject *unused)
{
    if (t->closing || !t->paused)
        Py_RETURN_NONE;
    t->paused = 0;
    /* What was received before the pause goes first: from the ready queue. */
    if (t->rx_len && t->started && queue_self(t) < 0)
        return NULL;
    if (tio_rx_update(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_stop_reading_eof(TransportObject *t, PyObject *unused)
{
    t->read_eof = 1;
    if (tio_rx_update(t) < 0)
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
    return PyLong_FromSsize_t(t->conn_lost ? t->wq_bytes : t->wq_bytes + t->fly_bytes);
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
    maybe_shutdown(t); /* now, or once the queue is handed to vigil */
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
    if (tio_rx_update(t) < 0)
        PyErr_Clear();
    if (!t->wq_len && !t->nbusy) {
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
    if (tio_rx_update(t) < 0)
        PyErr_Clear();
    t->conn_lost++;
    if (schedule_lost(t, exc) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* After connection_lost: close the vigil socket, drop the buffer and the protocol. */
static PyObject *m_detach(TransportObject *t, PyObject *unused)
{
    t->closing = 1;
    t->detached = 1;
    wq_clear(t);
    if (tio_rx_update(t) < 0)
        PyErr_Clear();
    sock_close(t);
    Py_CLEAR(t->data_received);
    Py_CLEAR(t->get_buffer);
    Py_CLEAR(t->buffer_updated);
    Py_CLEAR(t->protocol);
    Py_RETURN_NONE;
}

/* ------------------------------------------------- the shell's hot methods
 *
 * asyncio code calls transport.write(data), transport.is_closing() and the like on the
 * shell (streams: two such calls per request). Bound methods of the C object stored in
 * the shell's instance dict shadow the class's methods, and CPython 3.11 cannot
 * specialise a LOAD_METHOD whose name the instance dict holds: every such call took the
 * generic lookup (_PyObject_GetMethod was 3.5% of a streams server's CPU at 1000
 * connections, 0.6% on uvloop, whose transport is a C type). So the shell's class gets
 * these as method descriptors of its own (TransportIO._bind_shell), which the
 * interpreter specialises like any method; each finds the C half in the class's `_io`
 * slot, at a fixed offset, without a lookup. */
static Py_ssize_t shell_io_offset;

static TransportObject *io_of(PyObject *shell)
{
    PyObject *io = shell_io_offset > 0 ? *(PyObject **)((char *)shell + shell_io_offset) : NULL;
    if (!io || !Py_IS_TYPE(io, &Vigil_TransportType)) {
        PyErr_SetString(PyExc_RuntimeError, "the transport is not initialised");
        return NULL;
    }
    return (TransportObject *)io;
}

#define SHELL_NOARGS(name, impl)                                                                                       \
    static PyObject *name(PyObject *self, PyObject *unused)                                                            \
    {                                                                                                                  \
        TransportObject *t = io_of(self);                                                                              \
        return t ? impl(t, NULL) : NULL;                                                                               \
    }
SHELL_NOARGS(s_get_write_buffer_size, m_get_write_buffer_size)
SHELL_NOARGS(s_is_reading, m_is_reading)
SHELL_NOARGS(s_is_closing, m_is_closing)
SHELL_NOARGS(s_pause_reading, m_pause_reading)
SHELL_NOARGS(s_resume_reading, m_resume_reading)

static PyObject *s_write(PyObject *self, PyObject *data)
{
    TransportObject *t = io_of(self);
    return t ? tio_write(t, data) : NULL;
}

static PyMethodDef shell_methods[] = {
    {"write", s_write, METH_O, "Write bytes: sent at once, buffered only if the socket is full."},
    {"get_write_buffer_size", s_get_write_buffer_size, METH_NOARGS, "Bytes queued or in flight."},
    {"is_reading", s_is_reading, METH_NOARGS, "True while the transport receives."},
    {"is_closing", s_is_closing, METH_NOARGS, "True once closing or closed."},
    {"pause_reading", s_pause_reading, METH_NOARGS, "Stop delivering data until resume_reading()."},
    {"resume_reading", s_resume_reading, METH_NOARGS, "Deliver data again."},
    {NULL},
};

/* TransportIO._bind_shell(cls): cls must have an `_io` slot (__slots__); its hot
 * methods become the descriptors above. One shell class per process (subclasses share
 * its slot offset). */
static PyObject *m_bind_shell(PyObject *unused, PyObject *cls)
{
    if (!PyType_Check(cls))
        return PyErr_Format(PyExc_TypeError, "_bind_shell: a class, not '%.200s'", Py_TYPE(cls)->tp_name);
    PyObject *slot = PyDict_GetItemString(((PyTypeObject *)cls)->tp_dict, "_io"); /* borrowed */
    if (!slot || !Py_IS_TYPE(slot, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)slot)->d_member->type != T_OBJECT_EX)
        return PyErr_Format(PyExc_TypeError, "_bind_shell: %R has no _io slot", cls);
    Py_ssize_t off = ((PyMemberDescrObject *)slot)->d_member->offset;
    if (shell_io_offset && shell_io_offset != off)
        return PyErr_Format(PyExc_RuntimeError, "_bind_shell: another shell class is bound");
    shell_io_offset = off;
    for (PyMethodDef *d = shell_methods; d->ml_name; d++) {
        PyObject *descr = PyDescr_NewMethod((PyTypeObject *)cls, d);
        int r = descr ? PyObject_SetAttrString(cls, d->ml_name, descr) : -1;
        Py_XDECREF(descr);
        if (r < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef tio_methods[] = {
    {"_bind_shell", (PyCFunction)m_bind_shell, METH_O | METH_STATIC, NULL},
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
