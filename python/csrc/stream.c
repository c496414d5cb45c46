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
 * (the buffer on the transport's receive ring, a send slot's result) and record one
 * event for the transport (vpy_pend_push); the transport then runs from the ready queue
 * with the GIL, in FIFO order with every other callback. Only a send from a send buffer
 * that completes with nothing waiting on it is ended in its callback (send_quiet_done:
 * plain C on the slot, no Python object touched).
 *
 * Context: everything the transport calls from the ready queue (data_received,
 * get_buffer/buffer_updated, eof_received, resume_writing, connection_lost) runs in the
 * contextvars.Context captured at creation (t->context), so request-scoped context
 * variables set before create_connection/create_server are seen by the protocol.
 *
 * Lifetime: while vigil may call back (a receive stream runs or a send is in flight) the
 * transport holds a reference to itself; while its vigil_sock is open it is a started
 * handle of the loop (VPY_KIND_STREAM), so closing the loop can finish it. */
#include "loop.h"

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
#define RX_FIRST_CAP 8
#define WQ_FIRST_CAP 16

typedef struct TransportObject TransportObject;

/* A send in flight: the objects it keeps alive and its iovec array. */
struct wslot {
    vigil_net_req req;
    TransportObject *t;
    char *sbuf; /* a copy in one of the loop's send buffers (io_uring), or NULL */
    PyObject **objs;
    size_t n, cap;
    struct iovec *iov;
    Py_ssize_t bytes;
    ssize_t res;
    char busy, done;
};

/* A receive vigil completed: its pool buffer and its result (bytes, 0 for EOF, or a
 * negative errno). */
struct rxe {
    vigil_buf *buf;
    ssize_t res;
};

/* The transport's state, one word. The bits vigil's callbacks write (TF_PEND_MARKED,
 * TF_RX_ON, TF_RX_ENDED) are written by the loop thread only, inside vigil_loop_run,
 * while no other code touches the transport: the word has one writer at a time. */
enum {
    TF_QUEUED = 1u << 0,        /* on the ready queue */
    TF_PEND_MARKED = 1u << 1,   /* an event recorded this turn (one per turn) */
    TF_SELFREF = 1u << 2,       /* holds a reference to itself: vigil may call back */
    TF_RX_ON = 1u << 3,         /* vigil's receive stream runs */
    TF_RX_ENDED = 1u << 4,      /* vigil ended it (EOF, an error) */
    TF_STARTED = 1u << 5,       /* _start_reading() was called */
    TF_PAUSED = 1u << 6,        /* pause_reading() */
    TF_CLOSING = 1u << 7,       /* close() or a fatal error */
    TF_EOF = 1u << 8,           /* write_eof() asked */
    TF_EOF_DONE = 1u << 9,      /* the shutdown was handed to vigil */
    TF_READ_EOF = 1u << 10,     /* _stop_reading_eof(): no more reading */
    TF_BUFFERED = 1u << 11,     /* the protocol is a BufferedProtocol */
    TF_EMPTY_WAITER = 1u << 12, /* sendfile waits for the queue to drain */
    TF_DETACHED = 1u << 13,     /* after connection_lost: no protocol */
    TF_LOST_CALLED = 1u << 14,  /* connection_lost was called from here */
    TF_MAY_PAUSE = 1u << 15,    /* _maybe_pause_protocol was called (maybe_pause, new limits)
                                   since the last reap at the low-water mark: the protocol may
                                   be paused, so completed sends go through tio_reap */
    TF_DELIVERED = 1u << 16,    /* something received was handed to the protocol: later
                                   receives run before the ready queue (runloop.c) */
};

struct TransportObject {
    PyObject_HEAD
    LoopObject *loop;
    PyObject *sock, *shell, *protocol;
    PyObject *data_received;               /* bound: protocol.data_received */
    PyObject *get_buffer, *buffer_updated; /* bound: BufferedProtocol */
    /* The contextvars.Context the protocol's callbacks run in: a copy of the one current
     * when the transport was made (create_connection, create_server's accept, ...), as
     * asyncio's reader handle and uvloop's transport capture it. */
    PyObject *context;
    vigil_sock *vs;                        /* NULL once closed */
    struct wslot slot[NSLOT];
    int nbusy;
    /* Receives recorded by the callback (struct rxe), the head used up to rx_off. */
    struct vpy_ring rx;
    size_t rx_off;
    Py_ssize_t high, low;
    /* The write queue: bytes objects not yet handed to vigil. */
    struct vpy_ring wq;
    Py_ssize_t wq_bytes, fly_bytes;
    int conn_lost;
    unsigned flags; /* TF_* */
    struct vpy_handle lh;
    PyObject *weakreflist;
};

#define RX_AT(t, i) VPY_RING_AT(&(t)->rx, struct rxe, i)
#define WQ_AT(t, i) VPY_RING_AT(&(t)->wq, PyObject *, i)

/* --------------------------------------------------------------- helpers */

/* The shell's method: nothing once the shell is let go (m_detach). */
static int call_shell(TransportObject *t, const char *meth, PyObject *arg)
{
    if (!t->shell)
        return 0;
    PyObject *r = arg ? PyObject_CallMethod(t->shell, meth, "O", arg) : PyObject_CallMethod(t->shell, meth, NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* An escaping exception is reported unless it is SystemExit/KeyboardInterrupt. */
static int swallow(void)
{
    if (vpy_exc_escapes())
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
    if (!t->shell)
        return 0;
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
    if (vpy_exc_escapes())
        return -1;
    if (!t->shell) {
        PyErr_WriteUnraisable(NULL);
        return 0;
    }
    PyObject *exc = vpy_fetch_exc();
    PyObject *x = PyObject_CallMethod(t->shell, "_fatal_error", "Os", exc, msg);
    Py_XDECREF(exc);
    if (!x)
        return swallow();
    Py_DECREF(x);
    return 0;
}

static void wq_clear(TransportObject *t)
{
    while (t->wq.len) {
        Py_DECREF(WQ_AT(t, 0));
        vpy_ring_drop(&t->wq);
    }
    t->wq.head = 0;
    t->wq_bytes = 0;
}

static int wq_push(TransportObject *t, PyObject *bytes)
{
    PyObject **slot = vpy_ring_push(&t->wq, sizeof *slot, WQ_FIRST_CAP);
    if (!slot) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(bytes);
    *slot = bytes;
    t->wq_bytes += PyBytes_GET_SIZE(bytes);
    return 0;
}

/* Holds the self-reference while vigil may call back. May drop the last reference:
 * callers hold one. */
static void ref_update(TransportObject *t)
{
    int want = t->nbusy || (t->vs && (t->flags & TF_RX_ON));
    if (want && !(t->flags & TF_SELFREF)) {
        t->flags |= TF_SELFREF;
        Py_INCREF(t);
    } else if (!want && (t->flags & TF_SELFREF)) {
        t->flags &= ~TF_SELFREF;
        Py_DECREF(t);
    }
}

/* ------------------------------------------------- vigil's callbacks (no GIL) */

static void mark(TransportObject *t, vigil_loop *vl)
{
    if (t->flags & TF_PEND_MARKED)
        return;
    t->flags |= TF_PEND_MARKED;
    /* Until the protocol got its first bytes, asyncio's order: behind what was ready
     * before the wait (create_connection's caller resumes before data_received). */
    if (t->flags & TF_DELIVERED)
        vpy_pend_push(vigil_loop_data(vl), &t->lh, 0);
    else
        vpy_pend_push_behind(vigil_loop_data(vl), &t->lh, 0);
}

static void on_recv(vigil_loop *vl, vigil_sock *s, ssize_t res, vigil_buf *buf)
{
    TransportObject *t = s->data;
    if (!t) {
        vigil_buf_put(vl, buf);
        return;
    }
    if (res <= 0)
        t->flags = (t->flags & ~TF_RX_ON) | TF_RX_ENDED;
    struct rxe *e = vpy_ring_push(&t->rx, sizeof *e, RX_FIRST_CAP); /* no GIL needed */
    if (!e) {
        /* Out of memory: end the stream with an error the protocol will see. */
        vigil_buf_put(vl, buf);
        if (t->flags & TF_RX_ON)
            vigil_sock_recv_stop(vl, s);
        t->flags = (t->flags & ~TF_RX_ON) | TF_RX_ENDED;
        if (t->rx.len) {
            struct rxe *last = &RX_AT(t, t->rx.len - 1);
            if (last->res > 0) {
                vigil_buf_put(vl, last->buf);
                last->buf = NULL;
            }
            last->res = -ENOMEM;
        }
        mark(t, vl);
        return;
    }
    *e = (struct rxe){buf, res};
    mark(t, vl);
}

static void sbuf_put(LoopObject *l, char *b);

/* A send from a send buffer completed with every byte out and nothing else to do: no
 * queued write to hand over, no paused protocol to resume (TF_MAY_PAUSE clear), no
 * drained waiter, close or write_eof waiting, and the transport's reference to itself
 * stays (another send in flight, or the receive stream runs). Then what tio_reap would
 * do is plain C on the slot, done here, and the transport is not queued for a run that
 * would call nothing: on io_uring that run was one of the two ready-queue runs of every
 * echoed message (py-echo protocol 100 x 4 KiB: 1.94 stream_run per request, ~400
 * instructions each with the context switch in and out and the _protocol_paused
 * lookup). Everything it touches is the transport's C state, on the loop thread, as
 * mark() does: no GIL needed. 1 when it was done here. */
static int send_quiet_done(TransportObject *t, struct wslot *w)
{
    enum { NOISY = TF_MAY_PAUSE | TF_EMPTY_WAITER | TF_CLOSING | TF_DETACHED | TF_EOF };
    if (w->res != w->bytes || w->n || (t->flags & NOISY) || t->wq.len || t->conn_lost)
        return 0;
    if (t->nbusy < 2 && !(t->vs && (t->flags & TF_RX_ON)))
        return 0; /* the last send out and no receive stream: ref_update drops the self-reference */
    t->fly_bytes -= w->bytes;
    w->bytes = 0;
    w->busy = 0;
    w->done = 0;
    t->nbusy--;
    return 1;
}

static void on_sent(vigil_loop *vl, vigil_net_req *req, ssize_t res)
{
    struct wslot *w = req->data;
    w->res = res;
    w->done = 1;
    /* The kernel is done with the copy: its buffer goes back to the loop's free list
     * now, not when the transport runs (later in the turn), so the next writes of the
     * turn reuse it while it is still cached (see sbuf_get and vpy_run_ready). Plain C
     * on the loop thread: no GIL needed. */
    if (w->sbuf) {
        sbuf_put(w->t->loop, w->sbuf);
        w->sbuf = NULL;
        if (send_quiet_done(w->t, w))
            return;
    }
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
    vpy_handle_stop(t->loop, &t->lh);
    if (vl) {
        while (t->rx.len) {
            vigil_buf_put(vl, RX_AT(t, 0).buf);
            vpy_ring_drop(&t->rx);
        }
        t->rx_off = 0;
        vs->data = NULL;
        if (vigil_sock_close(vl, vs, on_sock_closed) < 0)
            free(vs);
    } else {
        free(vs); /* the loop is gone, and vigil_loop_free closed it */
    }
    t->flags &= ~TF_RX_ON;
}

/* --------------------------------------------------------------- reading */

/* Starts or stops the receive stream to match the state. */
static int tio_rx_update(TransportObject *t)
{
    vigil_loop *vl = t->loop->vl;
    int want = t->vs && vl && (t->flags & TF_STARTED) &&
               !(t->flags & (TF_PAUSED | TF_CLOSING | TF_READ_EOF | TF_DETACHED | TF_RX_ENDED));
    int r = 0;
    if (want && !(t->flags & TF_RX_ON)) {
        r = vigil_sock_recv_start(vl, t->vs, on_recv);
        if (r == 0)
            t->flags |= TF_RX_ON;
    } else if (!want && (t->flags & TF_RX_ON)) {
        vigil_sock_recv_stop(vl, t->vs);
        t->flags &= ~TF_RX_ON;
    }
    ref_update(t);
    if (r < 0 && r != -EPIPE) {
        vpy_set_oserror(-r);
        return -1;
    }
    return 0;
}

static void rx_pop(TransportObject *t)
{
    vigil_loop *vl = t->loop->vl;
    struct rxe *e = &RX_AT(t, 0);
    if (e->buf && vl)
        vigil_buf_put(vl, e->buf);
    vpy_ring_drop(&t->rx);
    t->rx_off = 0;
}

static int can_deliver(TransportObject *t)
{
    return t->rx.len && !(t->flags & (TF_PAUSED | TF_CLOSING | TF_DETACHED | TF_READ_EOF));
}

/* The parts of tio_deliver. Each hands over what the head of the receive ring holds and
 * returns DELIVER_NEXT to go on, or what tio_deliver returns (0: stop delivering now;
 * -1: SystemExit/KeyboardInterrupt). */
#define DELIVER_NEXT 1

static int deliver_after_error(TransportObject *t, const char *msg)
{
    return proto_error(t, msg) < 0 ? -1 : DELIVER_NEXT;
}

/* Calls the protocol's method with arg (a new reference, which this takes; NULL when
 * making it failed, which fails the call the same way). */
static int deliver_call(TransportObject *t, PyObject *method, PyObject *arg, const char *failed)
{
    PyObject *r = arg ? PyObject_CallOneArg(method, arg) : NULL;
    Py_XDECREF(arg);
    if (!r)
        return deliver_after_error(t, failed);
    Py_DECREF(r);
    return DELIVER_NEXT;
}

/* EOF (res 0) or a receive error (res < 0). */
static int deliver_end(TransportObject *t, ssize_t res)
{
    rx_pop(t);
    if (res == 0)
        return call_shell(t, "_eof_received", NULL) < 0 && swallow() < 0 ? -1 : DELIVER_NEXT;
    return fatal(t, (int)-res, "Fatal read error on socket transport", 0) < 0 ? -1 : DELIVER_NEXT;
}

/* A BufferedProtocol: copy into get_buffer(-1)'s buffer, then buffer_updated(n). */
static int deliver_into_buffer(TransportObject *t)
{
    static const char get_failed[] = "Fatal error: protocol.get_buffer() call failed.";
    struct rxe *e = &RX_AT(t, 0);
    PyObject *buf = PyObject_CallOneArg(t->get_buffer, t->loop->st->minus_one);
    if (!buf)
        return deliver_after_error(t, get_failed);
    Py_buffer view;
    if (PyObject_GetBuffer(buf, &view, PyBUF_WRITABLE) < 0) {
        Py_DECREF(buf);
        return deliver_after_error(t, get_failed);
    }
    if (view.len == 0) {
        PyBuffer_Release(&view);
        Py_DECREF(buf);
        PyErr_SetString(PyExc_RuntimeError, "get_buffer() returned an empty buffer");
        return deliver_after_error(t, get_failed);
    }
    size_t left = (size_t)e->res - t->rx_off;
    size_t n = (size_t)view.len < left ? (size_t)view.len : left;
    memcpy(view.buf, e->buf->data + t->rx_off, n);
    PyBuffer_Release(&view);
    Py_DECREF(buf);
    t->rx_off += n;
    if (t->rx_off == (size_t)e->res)
        rx_pop(t);
    return deliver_call(t, t->buffer_updated, PyLong_FromSize_t(n),
                        "Fatal error: protocol.buffer_updated() call failed.");
}

/* A Protocol: consecutive receives become one bytes object (up to RX_JOIN_MAX) for
 * data_received. */
static int deliver_bytes(TransportObject *t)
{
    size_t total = 0, cnt = 0;
    for (size_t i = 0; i < t->rx.len; i++) {
        struct rxe *x = &RX_AT(t, i);
        if (x->res <= 0 || (cnt && total + (size_t)x->res > RX_JOIN_MAX))
            break;
        total += (size_t)x->res;
        cnt++;
    }
    PyObject *data;
    if (cnt == 1) {
        struct rxe *e = &RX_AT(t, 0);
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
            struct rxe *x = &RX_AT(t, 0);
            memcpy(p, x->buf->data, (size_t)x->res);
            p += x->res;
            rx_pop(t);
        }
    }
    return deliver_call(t, t->data_received, data, "Fatal error: protocol.data_received() call failed.");
}

/* Hands the recorded receives to the protocol, in order, while it reads. */
static int tio_deliver(TransportObject *t)
{
    while (can_deliver(t)) {
        ssize_t res = RX_AT(t, 0).res;
        int r = res <= 0                     ? deliver_end(t, res)
                : t->flags & TF_BUFFERED ? deliver_into_buffer(t)
                                             : deliver_bytes(t);
        t->flags |= TF_DELIVERED;
        if (r != DELIVER_NEXT)
            return r;
    }
    if (t->rx.len && (t->flags & (TF_CLOSING | TF_DETACHED))) {
        while (t->rx.len)
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

/* The loop's send buffers (io_uring): a write that finds nothing queued or in flight is
 * copied into one and its object let go at once, as the readiness backends' send(2)
 * does (try_write). Holding the object instead until the completion is reaped keeps a
 * turn's writes alive together (1,000 connections x 4 KiB: 4 MiB each turn), and the
 * allocator grows, trims and faults the heap in every turn; the buffers stay allocated
 * (a free list, linked through their first word, up to SBUF_KEEP kept), so the memory
 * they cost is the most ever in flight at once, not per connection. */
#define SBUF_SIZE 8192
#define SBUF_KEEP 2048

static char *sbuf_get(LoopObject *l)
{
    char *b = l->sbuf_free;
    if (!b)
        return malloc(SBUF_SIZE);
    memcpy(&l->sbuf_free, b, sizeof(void *));
    l->nsbuf_free--;
    return b;
}

static void sbuf_put(LoopObject *l, char *b)
{
    if (l->nsbuf_free >= SBUF_KEEP) {
        free(b);
        return;
    }
    memcpy(b, &l->sbuf_free, sizeof(void *));
    l->sbuf_free = b;
    l->nsbuf_free++;
}

void vpy_stream_bufs_free(LoopObject *l)
{
    char *b;
    while ((b = l->sbuf_free)) {
        memcpy(&l->sbuf_free, b, sizeof(void *));
        free(b);
    }
    l->nsbuf_free = 0;
}

static void slot_release(TransportObject *t, struct wslot *w)
{
    for (size_t i = 0; i < w->n; i++)
        Py_DECREF(w->objs[i]);
    w->n = 0;
    if (w->sbuf) {
        if (t->loop)
            sbuf_put(t->loop, w->sbuf);
        else
            free(w->sbuf);
        w->sbuf = NULL;
    }
    t->fly_bytes -= w->bytes;
    w->bytes = 0;
    w->busy = 0;
    w->done = 0;
    t->nbusy--;
}

/* Starts a send: `one` (a new reference, handed over) or else the whole write queue (up
 * to SENDV_MAX chunks). 0, or a negative errno from vigil (nothing in flight then). */
static int tio_send_from(TransportObject *t, PyObject *one, Py_ssize_t off);

static int tio_send(TransportObject *t, PyObject *one)
{
    return tio_send_from(t, one, 0);
}

/* The readiness backends (epoll, poll) only: one non-blocking send(2) of a write that
 * finds nothing queued or in flight, as uvloop's uv_try_write. What it sends needs no
 * object kept alive: with 1,000 connections a turn otherwise holds a 4 KiB bytes object
 * per connection until the sends' completions are reaped, and the allocator's working
 * set (its trims and page faults included) grows with the number of connections (py-echo,
 * 1000 connections x 4 KiB). io_uring keeps the send in the turn's one system call.
 * Returns the bytes sent (0 when the socket is full or any error: the queued path then
 * sends, or reports the error, as before). */
static Py_ssize_t try_write(TransportObject *t, PyObject *b)
{
    if (!t->loop->sync_send || !t->vs || t->vs->fd < 0)
        return 0;
    ssize_t k;
    do
        k = send(t->vs->fd, PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b), MSG_DONTWAIT | MSG_NOSIGNAL);
    while (k < 0 && errno == EINTR);
    return k > 0 ? (Py_ssize_t)k : 0;
}

/* tio_send, with `one`'s first off bytes already sent. */
static int tio_send_from(TransportObject *t, PyObject *one, Py_ssize_t off)
{
    struct wslot *w = free_slot(t);
    vigil_loop *vl = t->loop->vl;
    if (!w || !t->vs || !vl) {
        Py_XDECREF(one);
        return -EBADF;
    }
    size_t n = one ? 1 : (t->wq.len < SENDV_MAX ? t->wq.len : SENDV_MAX);
    if (slot_reserve(w, n) < 0) {
        PyErr_Clear();
        Py_XDECREF(one);
        return -ENOMEM;
    }
    Py_ssize_t bytes = 0;
    if (one) {
        w->objs[0] = one;
        bytes = PyBytes_GET_SIZE(one) - off;
    } else {
        for (size_t i = 0; i < n; i++) {
            PyObject *b = WQ_AT(t, 0);
            vpy_ring_drop(&t->wq);
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
    t->loop->nsent_turn++;
    t->fly_bytes += bytes;
    int r = one ? vigil_sock_send(vl, t->vs, &w->req, PyBytes_AS_STRING(one) + off, (size_t)bytes, on_sent)
          : n == 1 ? vigil_sock_send(vl, t->vs, &w->req, PyBytes_AS_STRING(w->objs[0]),
                                     (size_t)PyBytes_GET_SIZE(w->objs[0]), on_sent)
                   : vigil_sock_sendv(vl, t->vs, &w->req, w->iov, (int)n, on_sent);
    if (r < 0) {
        slot_release(t, w);
        return r;
    }
    ref_update(t);
    return 0;
}

/* Sends len bytes at buf through a send buffer (see sbuf_get): 1 sent, 0 when none can
 * be had (the caller keeps the object instead), or a negative errno from vigil. */
static int tio_send_copy(TransportObject *t, const void *buf, Py_ssize_t len)
{
    struct wslot *w = free_slot(t);
    vigil_loop *vl = t->loop->vl;
    if (!w || !t->vs || !vl)
        return -EBADF;
    char *b = sbuf_get(t->loop);
    if (!b)
        return 0;
    memcpy(b, buf, (size_t)len);
    w->sbuf = b;
    w->n = 0;
    w->bytes = len;
    w->t = t;
    w->req.data = w;
    w->busy = 1;
    w->done = 0;
    t->nbusy++;
    t->loop->nsent_turn++;
    t->fly_bytes += len;
    int r = vigil_sock_send(vl, t->vs, &w->req, b, (size_t)len, on_sent);
    if (r < 0) {
        slot_release(t, w);
        return r;
    }
    ref_update(t);
    return 1;
}

/* write_eof once every queued byte is handed to vigil (vigil shuts down after them). */
static void maybe_shutdown(TransportObject *t)
{
    if ((t->flags & TF_EOF) && !(t->flags & TF_EOF_DONE) && !t->wq.len && t->vs && t->loop->vl) {
        t->flags |= TF_EOF_DONE;
        vigil_sock_shutdown(t->loop->vl, t->vs, SHUT_WR);
    }
}

/* Hands the write queue to vigil when no send is in flight. */
static int tio_flush(TransportObject *t)
{
    if (t->nbusy || !t->wq.len || (t->flags & TF_DETACHED))
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
    if (!any || (t->flags & TF_DETACHED))
        return 0;
    if (err) {
        if (t->conn_lost)
            return 0;
        wq_clear(t);
        return fatal(t, err, "Fatal write error on socket transport", 1);
    }
    if (tio_flush(t) < 0)
        return -1;
    if (t->flags & TF_DETACHED)
        return 0;
    if ((t->flags & TF_MAY_PAUSE) && t->wq_bytes + t->fly_bytes <= t->low) {
        /* At the low-water mark a pause is over (asyncio's _maybe_resume_protocol clears
         * it), so TF_MAY_PAUSE clears until the next _maybe_pause_protocol. */
        t->flags &= ~TF_MAY_PAUSE;
        /* interned once, in the module state: no string made per completed send */
        PyObject *p = PyObject_GetAttr(t->shell, t->loop->st->str_protocol_paused);
        int paused = p ? PyObject_IsTrue(p) : 0;
        Py_XDECREF(p);
        if (PyErr_Occurred())
            PyErr_Clear();
        if (paused && call_shell(t, "_maybe_resume_protocol", NULL) < 0 && swallow() < 0)
            return -1;
    }
    if (t->nbusy || t->wq.len || (t->flags & TF_DETACHED))
        return 0;
    if ((t->flags & TF_EMPTY_WAITER) && call_shell(t, "_drained", NULL) < 0 && swallow() < 0)
        return -1;
    if ((t->flags & TF_CLOSING) && !t->conn_lost && !(t->flags & (TF_LOST_CALLED | TF_DETACHED))) {
        t->flags |= TF_LOST_CALLED;
        if (call_shell(t, "_call_connection_lost", Py_None) < 0)
            return swallow();
    }
    return 0;
}

static int maybe_pause(TransportObject *t)
{
    if (t->wq_bytes + t->fly_bytes <= t->high)
        return 0;
    t->flags |= TF_MAY_PAUSE;
    if (call_shell(t, "_maybe_pause_protocol", NULL) < 0)
        return swallow();
    return 0;
}

/* shell: the transport the write was called on (its _lost_write warns of writes after
 * the connection is lost), or NULL. */
static PyObject *tio_write(TransportObject *t, PyObject *shell, PyObject *data)
{
    Py_buffer view;
    if (!PyBytes_CheckExact(data) && !PyByteArray_Check(data) && !PyMemoryView_Check(data) && !PyBytes_Check(data))
        return PyErr_Format(PyExc_TypeError, "data argument must be a bytes-like object, not '%.200s'",
                            Py_TYPE(data)->tp_name);
    if (t->flags & TF_EOF) {
        PyErr_SetString(PyExc_RuntimeError, "Cannot call write() after write_eof()");
        return NULL;
    }
    if (t->flags & TF_EMPTY_WAITER) {
        PyErr_SetString(PyExc_RuntimeError, "unable to write; sendfile is in progress");
        return NULL;
    }
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len == 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    if (t->conn_lost || (t->flags & TF_DETACHED) || !t->vs) {
        PyBuffer_Release(&view);
        t->conn_lost++;
        PyObject *n = PyLong_FromLong(t->conn_lost);
        PyObject *x = n && shell ? PyObject_CallMethod(shell, "_lost_write", "O", n) : NULL;
        int r = x || (n && !shell) ? 0 : -1;
        Py_XDECREF(x);
        Py_XDECREF(n);
        if (r < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    if (!t->loop->sync_send && view.len <= SBUF_SIZE && !t->nbusy && !t->wq.len) {
        int r = tio_send_copy(t, view.buf, view.len);
        if (r != 0) {
            PyBuffer_Release(&view);
            if (r < 0 && fatal(t, -r, "Fatal write error on socket transport", 1) < 0)
                return NULL;
            if (r > 0 && maybe_pause(t) < 0)
                return NULL;
            Py_RETURN_NONE;
        }
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
    if (!t->nbusy && !t->wq.len) {
        Py_ssize_t sent = try_write(t, keep);
        if (sent == PyBytes_GET_SIZE(keep)) {
            Py_DECREF(keep);
            Py_RETURN_NONE;
        }
        int r = tio_send_from(t, keep, sent);
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

/* ------------------------------------------- the transport as a loop handle */

static int queue_self(TransportObject *t)
{
    if (t->flags & TF_QUEUED)
        return 0;
    t->flags |= TF_QUEUED;
    Py_INCREF(t);
    return vpy_ready_push(t->loop, (PyObject *)t, &t->lh);
}

/* vigil recorded receives or completed sends (mark()): run from the ready queue. */
static int stream_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    TransportObject *t = vpy_container_of(lh, TransportObject, lh);
    (void)l;
    (void)revents;
    t->flags &= ~TF_PEND_MARKED;
    return queue_self(t);
}

static int stream_run(LoopObject *l, struct vpy_handle *lh)
{
    TransportObject *t = vpy_container_of(lh, TransportObject, lh);
    (void)l;
    t->flags &= ~TF_QUEUED;
    int rc = 0;
    /* In the transport's context (see the top of the file). Entering fails only if it is
     * entered already, which nothing here does; then the callbacks run where they are. */
    int entered = t->context && PyContext_Enter(t->context) == 0;
    if (t->context && !entered)
        PyErr_Clear();
    if (tio_reap(t) < 0)
        rc = -1;
    else if (tio_deliver(t) < 0)
        rc = -1;
    if (entered) {
        /* Exit cannot fail for the context entered just above, but keep an exception
         * already set (SystemExit from a callback) over its error if it did. */
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        if (PyContext_Exit(t->context) < 0)
            PyErr_Clear();
        PyErr_Restore(et, ev, etb);
    }
    ref_update(t);
    return rc;
}

/* The loop was freed (or forked away): vigil closed the socket and ended every request;
 * drop what they held. */
static void stream_loop_freed(LoopObject *l, struct vpy_handle *lh)
{
    TransportObject *t = vpy_container_of(lh, TransportObject, lh);
    Py_INCREF(t);
    vpy_handle_stop(l, lh);
    free(t->vs);
    t->vs = NULL;
    t->rx.len = t->rx.head = t->rx_off = 0; /* the pool is gone */
    for (int i = 0; i < NSLOT; i++)
        if (t->slot[i].busy)
            slot_release(t, &t->slot[i]);
    t->flags &= ~TF_RX_ON;
    ref_update(t);
    Py_DECREF(t);
}

/* Started while its vigil_sock is open; the loop holds no reference to it (the
 * transport holds one to itself while vigil may call back). */
static const struct vpy_handle_ops stream_ops = {
    .kind = VPY_KIND_STREAM,
    .event = stream_event,
    .run = stream_run,
    .loop_freed = stream_loop_freed,
};

/* ------------------------------------------------------------ the type */

static int set_protocol(TransportObject *t, PyObject *protocol, int buffered);

PyObject *vpy_tio_create(LoopObject *l, PyObject *sock, int fd, PyObject *shell, PyObject *protocol, int buffered)
{
    if (!l->vl || l->closed) {
        PyErr_SetString(PyExc_RuntimeError, "Event loop is closed");
        return NULL;
    }
    PyTypeObject *type = l->st->stream_type;
    TransportObject *t = (TransportObject *)type->tp_alloc(type, 0);
    if (!t)
        return NULL;
    vpy_handle_init(&t->lh, &stream_ops);
    Py_INCREF(l);
    t->loop = l;
    Py_INCREF(sock);
    t->sock = sock;
    Py_INCREF(shell);
    t->shell = shell;
    t->high = 64 * 1024;
    t->low = 16 * 1024;
    t->context = PyContext_CopyCurrent();
    if (!t->context || set_protocol(t, protocol, buffered) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    vigil_sock *vs = vpy_sock_open_dup(l, fd, t);
    if (!vs) {
        Py_DECREF(t);
        return NULL;
    }
    t->vs = vs;
    vpy_handle_start(l, &t->lh);
    return (PyObject *)t;
}

/* TransportIO(loop, sock, shell, protocol, buffered) */
static PyObject *tio_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *loop, *sock, *shell, *protocol;
    int buffered;
    vpy_state *st = vpy_state_of_type(type);
    if (!st)
        return NULL;
    if (!PyArg_ParseTuple(args, "O!OOOp", st->loop_type, &loop, &sock, &shell, &protocol, &buffered))
        return NULL;
    int fd = PyObject_AsFileDescriptor(sock);
    if (fd < 0)
        return NULL;
    return vpy_tio_create((LoopObject *)loop, sock, fd, shell, protocol, buffered);
}

static int tio_traverse(TransportObject *t, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(t)); /* a heap type */
    Py_VISIT(t->loop);
    Py_VISIT(t->sock);
    Py_VISIT(t->shell);
    Py_VISIT(t->protocol);
    Py_VISIT(t->data_received);
    Py_VISIT(t->get_buffer);
    Py_VISIT(t->buffer_updated);
    Py_VISIT(t->context);
    for (size_t i = 0; i < t->wq.len; i++)
        Py_VISIT(WQ_AT(t, i));
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
    Py_CLEAR(t->context);
    wq_clear(t);
    t->flags |= TF_DETACHED;
    return 0;
}

static void tio_dealloc(TransportObject *t)
{
    vpy_dealloc_begin((PyObject *)t, t->weakreflist);
    tio_clear(t);
    sock_close(t); /* no receive stream and no send in flight: we hold no self-reference */
    vpy_ring_free(&t->rx);
    for (int i = 0; i < NSLOT; i++) {
        PyMem_Free(t->slot[i].objs);
        PyMem_Free(t->slot[i].iov);
    }
    vpy_ring_free(&t->wq);
    Py_CLEAR(t->loop);
    vpy_dealloc_end((PyObject *)t);
}

/* The protocol whose callbacks the transport calls (its bound methods taken once).
 * 0, or -1 with the exception set (nothing changed). */
static int set_protocol(TransportObject *t, PyObject *protocol, int buffered)
{
    PyObject *dr = NULL, *gb = NULL, *bu = NULL;
    if (buffered) {
        gb = PyObject_GetAttrString(protocol, "get_buffer");
        bu = gb ? PyObject_GetAttrString(protocol, "buffer_updated") : NULL;
        if (!bu) {
            Py_XDECREF(gb);
            return -1;
        }
    } else {
        dr = PyObject_GetAttrString(protocol, "data_received");
        if (!dr)
            return -1;
    }
    Py_INCREF(protocol);
    Py_XSETREF(t->protocol, protocol);
    Py_XSETREF(t->data_received, dr);
    Py_XSETREF(t->get_buffer, gb);
    Py_XSETREF(t->buffer_updated, bu);
    if (buffered)
        t->flags |= TF_BUFFERED;
    else
        t->flags &= ~TF_BUFFERED;
    return 0;
}

static PyObject *m_set_protocol(TransportObject *t, PyObject *args)
{
    PyObject *protocol;
    int buffered;
    if (!PyArg_ParseTuple(args, "Op", &protocol, &buffered))
        return NULL;
    if (set_protocol(t, protocol, buffered) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* The reading state applied after a change of flags: None, or NULL with the error set. */
static PyObject *rx_applied(TransportObject *t)
{
    if (tio_rx_update(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Sets reading flag f and applies it, unless one of the flags in skip is set (f among
 * them: it is set already): then nothing changes. */
static PyObject *rx_flag_set(TransportObject *t, unsigned skip, unsigned f)
{
    if (t->flags & skip)
        Py_RETURN_NONE;
    t->flags |= f;
    return rx_applied(t);
}

static PyObject *m_start_reading(TransportObject *t, PyObject *unused)
{
    return rx_flag_set(t, TF_CLOSING | TF_DETACHED | TF_STARTED, TF_STARTED);
}

static PyObject *m_pause_reading(TransportObject *t, PyObject *unused)
{
    return rx_flag_set(t, TF_CLOSING | TF_PAUSED, TF_PAUSED);
}

static PyObject *m_resume_reading(TransportObject *t, PyObject *unused)
{
    if ((t->flags & TF_CLOSING) || !(t->flags & TF_PAUSED))
        Py_RETURN_NONE;
    t->flags &= ~TF_PAUSED;
    /* What was received before the pause goes first: from the ready queue. */
    if (t->rx.len && (t->flags & TF_STARTED) && queue_self(t) < 0)
        return NULL;
    return rx_applied(t);
}

static PyObject *m_stop_reading_eof(TransportObject *t, PyObject *unused)
{
    t->flags |= TF_READ_EOF;
    return rx_applied(t);
}

static PyObject *m_is_reading(TransportObject *t, PyObject *unused)
{
    return PyBool_FromLong(!(t->flags & (TF_PAUSED | TF_CLOSING)));
}

static PyObject *m_is_closing(TransportObject *t, PyObject *unused)
{
    return PyBool_FromLong(t->flags & TF_CLOSING);
}

static PyObject *m_get_write_buffer_size(TransportObject *t, PyObject *unused)
{
    return PyLong_FromSsize_t(t->conn_lost ? t->wq_bytes : t->wq_bytes + t->fly_bytes);
}

static PyObject *m_set_limits(TransportObject *t, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "nn", &t->high, &t->low))
        return NULL;
    t->flags |= TF_MAY_PAUSE; /* set_write_buffer_limits calls _maybe_pause_protocol next */
    Py_RETURN_NONE;
}

static PyObject *m_set_empty_waiter(TransportObject *t, PyObject *arg)
{
    if (PyObject_IsTrue(arg))
        t->flags |= TF_EMPTY_WAITER;
    else
        t->flags &= ~TF_EMPTY_WAITER;
    Py_RETURN_NONE;
}

static PyObject *m_write(TransportObject *t, PyObject *data)
{
    return tio_write(t, t->shell, data);
}

static PyObject *m_write_eof(TransportObject *t, PyObject *unused)
{
    if (t->flags & (TF_CLOSING | TF_EOF))
        Py_RETURN_NONE;
    t->flags |= TF_EOF;
    maybe_shutdown(t); /* now, or once the queue is handed to vigil */
    Py_RETURN_NONE;
}

static int schedule_lost(TransportObject *t, PyObject *exc)
{
    if (!t->shell)
        return 0; /* detached: connection_lost was called */
    PyObject *cb = PyObject_GetAttrString(t->shell, "_call_connection_lost");
    if (!cb)
        return -1;
    /* call_soon(cb, exc, context=t->context): connection_lost runs in the transport's
     * context whoever closed it (uvloop does the same). */
    PyObject *meth = PyObject_GetAttrString((PyObject *)t->loop, "call_soon");
    PyObject *kwnames = meth ? Py_BuildValue("(s)", "context") : NULL;
    PyObject *r = NULL;
    if (kwnames) {
        PyObject *argv[3] = {cb, exc, t->context ? t->context : Py_None};
        r = PyObject_Vectorcall(meth, argv, 2, kwnames);
    }
    Py_XDECREF(kwnames);
    Py_XDECREF(meth);
    Py_DECREF(cb);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *m_close(TransportObject *t, PyObject *unused)
{
    if (t->flags & TF_CLOSING)
        Py_RETURN_NONE;
    t->flags |= TF_CLOSING;
    if (tio_rx_update(t) < 0)
        PyErr_Clear();
    if (!t->wq.len && !t->nbusy) {
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
    t->flags |= TF_CLOSING;
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
    t->flags |= TF_CLOSING | TF_DETACHED;
    wq_clear(t);
    if (tio_rx_update(t) < 0)
        PyErr_Clear();
    sock_close(t);
    Py_CLEAR(t->data_received);
    Py_CLEAR(t->get_buffer);
    Py_CLEAR(t->buffer_updated);
    Py_CLEAR(t->protocol);
    /* The shell holds this object in its _io and this one held the shell: a cycle per
     * connection that only the full collection freed (with the transport's socket,
     * TransportSocket, context and dicts, 8 objects a connection), where asyncio's and
     * uvloop's transports go by reference counting. Nothing calls the shell once
     * detached (call_shell, fatal, schedule_lost see NULL; a write after the loss
     * warns through the shell it was called on). */
    Py_CLEAR(t->shell);
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
 * slot, at a fixed offset, without a lookup.
 *
 * The offset is the one process-wide variable of the extension: a plain number, the
 * layout of vigil._loop.SocketTransport's `_io` slot, which every import of vigil (a
 * subinterpreter's included) defines alike; a descriptor's C function gets no module to
 * find it in. The C half is recognised by its dealloc, common to the TransportIO types
 * of every module instance. */
static Py_ssize_t shell_io_offset;

static void tio_dealloc(TransportObject *t);

static TransportObject *io_of(PyObject *shell)
{
    PyObject *io = shell_io_offset > 0 ? *(PyObject **)((char *)shell + shell_io_offset) : NULL;
    if (!io || Py_TYPE(io)->tp_dealloc != (destructor)tio_dealloc) {
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
    return t ? tio_write(t, self, data) : NULL;
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
    {"write", (PyCFunction)m_write, METH_O, "Write bytes: sent at once, buffered only if the socket is full."},
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

static PyMemberDef tio_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TransportObject, weakreflist), READONLY, NULL},
    {NULL},
};

static PyType_Slot tio_slots[] = {
    {Py_tp_doc, "The read/write path of a stream socket transport (see vigil._loop.SocketTransport)."},
    {Py_tp_new, tio_new},
    {Py_tp_dealloc, tio_dealloc},
    {Py_tp_traverse, tio_traverse},
    {Py_tp_clear, tio_clear},
    {Py_tp_methods, tio_methods},
    {Py_tp_members, tio_members},
    {0, NULL},
};

static PyType_Spec tio_spec = {
    .name = "vigil._core.TransportIO",
    .basicsize = sizeof(TransportObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = tio_slots,
};

int vpy_stream_type_add(PyObject *m, vpy_state *st)
{
    st->stream_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &tio_spec, NULL);
    if (!st->stream_type || PyModule_AddType(m, st->stream_type) < 0)
        return -1;
    return 0;
}

int vpy_stream_net_setup(LoopObject *l)
{
    struct vigil_net_options no;
    vigil_net_options_init(&no);
    no.buf_size = POOL_BUF_SIZE;
    no.buf_count = POOL_BUF_COUNT;
    int e = vigil_net_setup(l->vl, &no);
    return e == -EBUSY ? 0 : e;
}

vigil_sock *vpy_sock_open_dup(LoopObject *l, int fd, void *data)
{
    int e = vpy_stream_net_setup(l); /* the buffer pool, before any socket opens */
    if (e < 0) {
        vpy_set_oserror(-e);
        return NULL;
    }
    return vpy_sock_dup_open(l, fd, data);
}

vigil_sock *vpy_sock_dup_open(LoopObject *l, int fd, void *data)
{
    int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dfd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return NULL;
    }
    vigil_sock *vs = calloc(1, sizeof *vs);
    if (!vs) {
        close(dfd);
        PyErr_NoMemory();
        return NULL;
    }
    vs->data = data;
    vpy_fdwatch_forget(l, dfd); /* an idle watch of a file closed this turn may hold the number */
    int e = vigil_sock_open(l->vl, vs, dfd);
    if (e < 0) {
        close(dfd);
        free(vs);
        vpy_set_oserror(-e);
        return NULL;
    }
    return vs;
}
