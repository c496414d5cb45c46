/* The datagram transport's hot path: vigil._core.DgramIO, the C half of
 * vigil._loop._DatagramTransport (UDP and Unix datagram sockets). The Python shell gives
 * it asyncio's class hierarchy and does the rare work (connection_made/lost, fatal
 * errors, the flow-control calls into the protocol, resolving a host name in sendto).
 *
 *   receive  vigil_sock_recvfrom_start on a dup() of the socket (multishot recvmsg into
 *            the loop's buffer pool on io_uring; readiness + recvfrom on epoll/poll): the
 *            callback records the buffer and the sender's address on the receive ring;
 *            the transport then runs from the ready queue and calls
 *            datagram_received(data, addr), or error_received(OSError) for a receive
 *            error (ECONNREFUSED from an ICMP on a connected socket), and restarts the
 *            stream vigil ended with the error.
 *   send     as asyncio's selector transport: sendto() tries the datagram at once
 *            (sendto(2), MSG_DONTWAIT) while nothing is queued; one that would block is
 *            copied to the queue, sent when vigil reports the socket writable (a vigil_io
 *            watch on the fd, stopped once the queue is empty); an error goes to
 *            error_received (at once for the immediate try). The queued bytes are
 *            get_write_buffer_size(); crossing the high/low water marks calls the shell's
 *            _maybe_pause_protocol/_maybe_resume_protocol (asyncio's). Not
 *            vigil_sock_sendto: on io_uring, an AF_UNIX datagram handed to it while the
 *            receiver's queue is full goes out EMPTY once room comes (the kernel copied the
 *            bytes before it found the queue full, and its retry sends what is left of
 *            them: nothing); seen on 6.18, see the report of this change.
 *   close    receives stop; connection_lost once the queue is out (abort: at once).
 *
 * Everything called from the ready queue runs in the contextvars.Context captured when
 * the transport was made (asyncio's reader handle captures it the same way).
 *
 * Receive size: a datagram arrives whole if it fits a pool buffer (buf_size - 144); the
 * first datagram transport of a loop sets the pool up with DGRAM_BUF_SIZE (room for
 * IPv4's largest, 65,507 bytes) unless a stream transport did first (16 KiB buffers):
 * then a longer datagram is reported to error_received as OSError(EMSGSIZE).
 *
 * Lifetime: while vigil may call back (the receive stream runs, a send is in flight) the
 * transport holds a reference to itself; while its vigil_sock is open it is a started
 * handle of the loop (VPY_KIND_DGRAM). */
#include "loop.h"

#include <structmember.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DGRAM_BUF_SIZE (65536 + 4096) /* 65,507 + vigil's 144 fit, in whole pages */
#define DGRAM_BUF_COUNT 1024          /* 68 MiB of address space, touched as used */
#define RX_FIRST_CAP 16
#define WQ_FIRST_CAP 16
#define RUN_MAX 1024 /* datagrams delivered per run; the rest after the queue's others */

typedef struct DgramObject DgramObject;

struct drx {
    vigil_buf *buf;
    ssize_t res;
    socklen_t fromlen;
    struct sockaddr_storage from;
};

struct dwq {
    PyObject *data; /* bytes */
    socklen_t alen; /* 0: connected, send() */
    struct sockaddr_storage addr;
};

enum {
    DF_QUEUED = 1u << 0,
    DF_PEND_MARKED = 1u << 1,
    DF_SELFREF = 1u << 2,
    DF_RX_ON = 1u << 3,
    DF_RX_ENDED = 1u << 4, /* vigil ended the stream (an error): restart once delivered */
    DF_STARTED = 1u << 5,
    DF_CLOSING = 1u << 6,
    DF_DETACHED = 1u << 7,
    DF_SENDING = 1u << 8, /* the writability watch runs (the queue waits for room) */
    DF_WRITABLE = 1u << 9, /* ... and it fired */
};

struct DgramObject {
    PyObject_HEAD
    LoopObject *loop;
    PyObject *shell;     /* until _detach (after connection_lost): then NULL */
    PyObject *shell_ref; /* from _detach: a weak reference to it (late sendto's warning) */
    PyObject *protocol, *context;
    PyObject *datagram_received, *error_received; /* bound */
    PyObject *address;                            /* the connected remote_addr, or NULL */
    PyObject *last_from;                          /* the last sender's address object */
    struct sockaddr_storage last_from_sa;
    socklen_t last_from_len;
    PyObject *last_to; /* sendto's last addr and its sockaddr */
    struct sockaddr_storage last_to_sa;
    socklen_t last_to_len;
    int family, fd, connected;
    vigil_sock *vs;
    vigil_io wio; /* writability of fd while the queue waits */
    struct vpy_ring rx; /* struct drx */
    struct vpy_ring wq; /* struct dwq */
    Py_ssize_t wq_bytes, high, low;
    long conn_lost;
    unsigned flags;
    struct vpy_handle lh;
    PyObject *weakreflist;
};

#define RX_AT(t, i) VPY_RING_AT(&(t)->rx, struct drx, i)
#define WQ_AT(t, i) VPY_RING_AT(&(t)->wq, struct dwq, i)

/* --------------------------------------------------------------- helpers */

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
    /* OSError(errno, msg) makes the subclass (ConnectionRefusedError...), as asyncio's. */
    PyObject *e = PyObject_Call(PyExc_OSError, args, NULL);
    Py_DECREF(args);
    return e;
}

/* A protocol callback raised: the loop's exception handler, as a Handle's would (once
 * the shell is let go, the unraisable hook). */
static int cb_error(DgramObject *t)
{
    if (vpy_exc_escapes())
        return -1;
    if (!t->shell)
        return swallow();
    PyObject *r = PyObject_CallMethod(t->shell, "_callback_error", "N", vpy_fetch_exc());
    if (!r)
        return swallow();
    Py_DECREF(r);
    return 0;
}

/* protocol.error_received(OSError(err)). -1 only for SystemExit/KeyboardInterrupt. */
static int report_error(DgramObject *t, int err)
{
    PyObject *exc = errno_exc(err);
    PyObject *r = exc && t->error_received ? PyObject_CallOneArg(t->error_received, exc) : NULL;
    Py_XDECREF(exc);
    if (r) {
        Py_DECREF(r);
        return 0;
    }
    if (!t->error_received || !PyErr_Occurred())
        return 0;
    return cb_error(t);
}

static void ref_update(DgramObject *t)
{
    int want = (t->flags & DF_SENDING) || (t->vs && (t->flags & DF_RX_ON));
    if (want && !(t->flags & DF_SELFREF)) {
        t->flags |= DF_SELFREF;
        Py_INCREF(t);
    } else if (!want && (t->flags & DF_SELFREF)) {
        t->flags &= ~DF_SELFREF;
        Py_DECREF(t);
    }
}

/* ------------------------------------------------- vigil's callbacks (no GIL) */

static void mark(DgramObject *t, vigil_loop *vl)
{
    if (t->flags & DF_PEND_MARKED)
        return;
    t->flags |= DF_PEND_MARKED;
    vpy_pend_push(vigil_loop_data(vl), &t->lh, 0);
}

static void on_recvfrom(vigil_loop *vl, vigil_sock *s, ssize_t res, vigil_buf *buf, const struct sockaddr *from,
                        socklen_t fromlen)
{
    DgramObject *t = s->data;
    if (!t) {
        vigil_buf_put(vl, buf);
        return;
    }
    if (res < 0 && res != -EMSGSIZE)
        t->flags = (t->flags & ~DF_RX_ON) | DF_RX_ENDED;
    struct drx *e = vpy_ring_push(&t->rx, sizeof *e, RX_FIRST_CAP);
    if (!e) { /* out of memory: the datagram is dropped, as a full socket buffer would */
        vigil_buf_put(vl, buf);
        return;
    }
    e->buf = buf;
    e->res = res;
    if (from && fromlen > 0 && fromlen <= (socklen_t)sizeof e->from) {
        memcpy(&e->from, from, fromlen);
        e->fromlen = fromlen;
    } else {
        e->fromlen = 0;
    }
    mark(t, vl);
}

static void on_writable(vigil_loop *vl, vigil_io *w, int revents)
{
    DgramObject *t = w->data;
    (void)revents; /* an error shows in the next sendto */
    t->flags |= DF_WRITABLE;
    mark(t, vl);
}

static void on_sock_closed(vigil_loop *vl, vigil_sock *s)
{
    (void)vl;
    free(s);
}

static void sock_close(DgramObject *t)
{
    if (!t->vs)
        return;
    vigil_loop *vl = t->loop->vl;
    vigil_sock *vs = t->vs;
    t->vs = NULL;
    vpy_handle_stop(t->loop, &t->lh);
    while (t->rx.len) {
        if (vl)
            vigil_buf_put(vl, RX_AT(t, 0).buf);
        vpy_ring_drop(&t->rx);
    }
    if (vl) {
        vs->data = NULL;
        if (vigil_sock_close(vl, vs, on_sock_closed) < 0)
            free(vs);
    } else {
        free(vs);
    }
    t->flags &= ~DF_RX_ON;
}

/* --------------------------------------------------------------- reading */

static int rx_update(DgramObject *t)
{
    vigil_loop *vl = t->loop->vl;
    int want = t->vs && vl && (t->flags & DF_STARTED) && !(t->flags & (DF_CLOSING | DF_DETACHED | DF_RX_ENDED));
    int r = 0;
    if (want && !(t->flags & DF_RX_ON)) {
        r = vigil_sock_recvfrom_start(vl, t->vs, on_recvfrom);
        if (r == 0)
            t->flags |= DF_RX_ON;
    } else if (!want && (t->flags & DF_RX_ON)) {
        vigil_sock_recv_stop(vl, t->vs);
        t->flags &= ~DF_RX_ON;
    }
    ref_update(t);
    if (r < 0) {
        vpy_set_oserror(-r);
        return -1;
    }
    return 0;
}

/* The sender's address as Python's socket.recvfrom gives it. */
static PyObject *addr_object(const struct sockaddr *sa, socklen_t len)
{
    char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
    if (len == 0)
        Py_RETURN_NONE;
    switch (sa->sa_family) {
    case AF_INET: {
        const struct sockaddr_in *a = (const void *)sa;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        return Py_BuildValue("(si)", host, ntohs(a->sin_port));
    }
    case AF_INET6: {
        const struct sockaddr_in6 *a = (const void *)sa;
        if (getnameinfo(sa, len, host, sizeof host, NULL, 0, NI_NUMERICHOST))
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        return Py_BuildValue("(siII)", host, ntohs(a->sin6_port), ntohl(a->sin6_flowinfo), a->sin6_scope_id);
    }
    case AF_UNIX: {
        const struct sockaddr_un *a = (const void *)sa;
        size_t n = len - offsetof(struct sockaddr_un, sun_path);
        if (len <= offsetof(struct sockaddr_un, sun_path))
            n = 0;
        if (n > 0 && a->sun_path[0] == 0)
            return PyBytes_FromStringAndSize(a->sun_path, (Py_ssize_t)n);
        n = strnlen(a->sun_path, n);
        return PyUnicode_DecodeFSDefaultAndSize(a->sun_path, (Py_ssize_t)n);
    }
    default:
        return Py_BuildValue("(iy#)", sa->sa_family, sa->sa_data, (Py_ssize_t)sizeof sa->sa_data);
    }
}

static PyObject *from_object(DgramObject *t, struct drx *e)
{
    if (t->last_from && e->fromlen == t->last_from_len && !memcmp(&e->from, &t->last_from_sa, e->fromlen))
        return Py_NewRef(t->last_from);
    PyObject *a = addr_object((struct sockaddr *)&e->from, e->fromlen);
    if (!a)
        return NULL;
    Py_XSETREF(t->last_from, Py_NewRef(a));
    memcpy(&t->last_from_sa, &e->from, e->fromlen);
    t->last_from_len = e->fromlen;
    return a;
}

/* Hands the recorded datagrams to the protocol. 0, or -1 (SystemExit/KeyboardInterrupt). */
static int deliver(DgramObject *t)
{
    vigil_loop *vl = t->loop->vl;
    int n = 0;
    while (t->rx.len && !(t->flags & (DF_CLOSING | DF_DETACHED)) && n++ < RUN_MAX) {
        struct drx *e = &RX_AT(t, 0);
        int rc = 0;
        if (e->res < 0) {
            int err = (int)-e->res;
            vpy_ring_drop(&t->rx);
            rc = report_error(t, err);
        } else {
            PyObject *data = PyBytes_FromStringAndSize(e->buf->data, e->res);
            PyObject *addr = data ? from_object(t, e) : NULL;
            if (vl)
                vigil_buf_put(vl, e->buf);
            vpy_ring_drop(&t->rx);
            PyObject *r = NULL;
            if (addr) {
                PyObject *argv[2] = {data, addr};
                r = PyObject_Vectorcall(t->datagram_received, argv, 2, NULL);
            }
            Py_XDECREF(data);
            Py_XDECREF(addr);
            if (r)
                Py_DECREF(r);
            else
                rc = cb_error(t);
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- sending */

/* Python's address for sendto -> a sockaddr. 1: done; 0: not a numeric form this handles
 * (the shell resolves it); -1: an exception set. */
static int addr_parse(DgramObject *t, PyObject *addr, struct sockaddr_storage *ss, socklen_t *len)
{
    /* All of it: an AF_UNIX path's length counts its terminating NUL, which the copy
     * below does not write (a path longer than a sockaddr_in6 went out with whatever the
     * caller's stack held after it: another file's name, or ENOENT). */
    memset(ss, 0, sizeof *ss);
    if (t->family == AF_UNIX) {
        struct sockaddr_un *a = (void *)ss;
        PyObject *b = NULL;
        if (PyUnicode_Check(addr)) {
            if (!PyUnicode_FSConverter(addr, &b))
                return -1;
        } else if (PyBytes_Check(addr)) {
            b = Py_NewRef(addr);
        } else {
            return 0;
        }
        Py_ssize_t n = PyBytes_GET_SIZE(b);
        if ((size_t)n >= sizeof a->sun_path + (PyBytes_AS_STRING(b)[0] == 0)) {
            Py_DECREF(b);
            PyErr_SetString(PyExc_OSError, "AF_UNIX path too long");
            return -1;
        }
        a->sun_family = AF_UNIX;
        memcpy(a->sun_path, PyBytes_AS_STRING(b), (size_t)n);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + (n && PyBytes_AS_STRING(b)[0] != 0));
        Py_DECREF(b);
        return 1;
    }
    if (!PyTuple_Check(addr) || PyTuple_GET_SIZE(addr) < 2 || !PyUnicode_Check(PyTuple_GET_ITEM(addr, 0)) ||
        !PyLong_Check(PyTuple_GET_ITEM(addr, 1)))
        return 0;
    const char *host = PyUnicode_AsUTF8(PyTuple_GET_ITEM(addr, 0));
    if (!host)
        return -1;
    long port = PyLong_AsLong(PyTuple_GET_ITEM(addr, 1));
    if (port == -1 && PyErr_Occurred())
        return -1;
    if (port < 0 || port > 65535)
        return 0; /* the socket module's OverflowError, from the shell */
    if (t->family == AF_INET && PyTuple_GET_SIZE(addr) == 2) {
        struct sockaddr_in *a = (void *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        if (!*host)
            a->sin_addr.s_addr = htonl(INADDR_ANY);
        else if (!strcmp(host, "<broadcast>"))
            a->sin_addr.s_addr = htonl(INADDR_BROADCAST);
        else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
            return 0;
        *len = sizeof *a;
        return 1;
    }
    if (t->family == AF_INET6 && PyTuple_GET_SIZE(addr) <= 4) {
        struct sockaddr_in6 *a = (void *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
            return 0;
        if (PyTuple_GET_SIZE(addr) >= 3) {
            unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(addr, 2));
            if (v == (unsigned long)-1 && PyErr_Occurred())
                return -1;
            a->sin6_flowinfo = htonl((uint32_t)v);
        }
        if (PyTuple_GET_SIZE(addr) == 4) {
            unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(addr, 3));
            if (v == (unsigned long)-1 && PyErr_Occurred())
                return -1;
            a->sin6_scope_id = (uint32_t)v;
        }
        *len = sizeof *a;
        return 1;
    }
    return 0;
}

static int maybe_pause(DgramObject *t)
{
    if (t->wq_bytes <= t->high || !t->shell)
        return 0;
    PyObject *r = PyObject_CallMethod(t->shell, "_maybe_pause_protocol", NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Watches fd for room while the queue waits; stops once it is empty. */
static void watch_update(DgramObject *t)
{
    int want = t->wq.len && t->loop->vl && !(t->flags & DF_DETACHED);
    if (want && !(t->flags & DF_SENDING)) {
        vpy_fdwatch_forget(t->loop, t->fd);
        if (vigil_io_start(t->loop->vl, &t->wio, t->fd, VIGIL_WRITE, on_writable) == 0)
            t->flags |= DF_SENDING;
    } else if (!want && (t->flags & DF_SENDING)) {
        if (t->loop->vl)
            vigil_io_stop(t->loop->vl, &t->wio);
        t->flags &= ~(DF_SENDING | DF_WRITABLE);
    }
    ref_update(t);
}

static ssize_t send_one(DgramObject *t, const void *p, size_t n, const struct sockaddr_storage *sa, socklen_t alen)
{
    ssize_t k;
    do
        k = alen ? sendto(t->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)sa, alen)
                 : send(t->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (k < 0 && errno == EINTR);
    return k;
}

static void wq_pop(DgramObject *t)
{
    struct dwq *q = &WQ_AT(t, 0);
    t->wq_bytes -= PyBytes_GET_SIZE(q->data);
    Py_DECREF(q->data);
    vpy_ring_drop(&t->wq);
}

static void wq_clear(DgramObject *t)
{
    while (t->wq.len)
        wq_pop(t);
}

static int schedule_lost(DgramObject *t, PyObject *exc);

/* The socket has room: send the queue (asyncio's _sendto_ready). An error ends this
 * round after error_received, the rest waits for the next; when it was the last one,
 * a close() waiting for the queue completes here (the watch stops with the queue, so
 * no later round would). */
static int flush(DgramObject *t)
{
    if (!(t->flags & DF_WRITABLE))
        return 0;
    t->flags &= ~DF_WRITABLE;
    int was_over = t->wq_bytes > t->low;
    while (t->wq.len && !t->conn_lost) {
        struct dwq *q = &WQ_AT(t, 0);
        ssize_t k = send_one(t, PyBytes_AS_STRING(q->data), (size_t)PyBytes_GET_SIZE(q->data), &q->addr, q->alen);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        int err = k < 0 ? errno : 0;
        wq_pop(t);
        if (err) { /* error_received; the rest waits for the next round, as asyncio's */
            if (report_error(t, err) < 0) {
                watch_update(t);
                return -1;
            }
            break; /* on to the end: the queue may be out now (a close() waits for that) */
        }
    }
    if (was_over && t->wq_bytes <= t->low && !t->conn_lost && t->shell) {
        PyObject *r = PyObject_CallMethod(t->shell, "_maybe_resume_protocol", NULL);
        if (!r && cb_error(t) < 0)
            return -1;
        Py_XDECREF(r);
    }
    watch_update(t);
    if (!t->wq.len && (t->flags & DF_CLOSING) && !t->conn_lost) {
        t->conn_lost++;
        if (schedule_lost(t, Py_None) < 0)
            return swallow();
    }
    return 0;
}

static int queue_push(DgramObject *t, PyObject *data, const struct sockaddr_storage *sa, socklen_t alen)
{
    struct dwq *q = vpy_ring_push(&t->wq, sizeof *q, WQ_FIRST_CAP);
    if (!q) {
        PyErr_NoMemory();
        return -1;
    }
    q->data = data; /* stolen */
    q->alen = alen;
    if (alen)
        memcpy(&q->addr, sa, alen);
    t->wq_bytes += PyBytes_GET_SIZE(data);
    return 0;
}

static PyObject *m_sendto(DgramObject *t, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "sendto(data, addr=None)");
        return NULL;
    }
    PyObject *data = args[0], *addr = nargs > 1 ? args[1] : Py_None;
    if (!PyBytes_Check(data) && !PyByteArray_Check(data) && !PyMemoryView_Check(data))
        return PyErr_Format(PyExc_TypeError, "data argument must be a bytes-like object, not '%s'",
                            Py_TYPE(data)->tp_name);
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len == 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    if (t->address) {
        if (addr != Py_None && addr != t->address) {
            int eq = PyObject_RichCompareBool(addr, t->address, Py_EQ);
            if (eq <= 0) {
                PyBuffer_Release(&view);
                if (eq == 0)
                    PyErr_Format(PyExc_ValueError, "Invalid address: must be None or %R", t->address);
                return NULL;
            }
        }
        addr = t->address;
    }
    if (t->conn_lost && t->address) {
        PyBuffer_Release(&view);
        t->conn_lost++;
        /* The shell warns from the 5th, as asyncio's; once let go, through the weak
         * reference (a sendto bound to this object may outlive the shell: then none). */
        PyObject *shell = t->shell ? t->shell : t->shell_ref ? PyWeakref_GetObject(t->shell_ref) : Py_None;
        if (!shell)
            return NULL;
        if (shell == Py_None)
            Py_RETURN_NONE;
        return PyObject_CallMethod(shell, "_lost_write", "l", t->conn_lost - 1);
    }
    if (t->flags & DF_DETACHED) { /* after connection_lost: the socket is closed */
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    struct sockaddr_storage sa;
    socklen_t alen = 0;
    if (!t->connected) {
        if (addr == Py_None) { /* the socket module's TypeError, from the shell */
            PyBuffer_Release(&view);
            return PyObject_CallMethod(t->shell, "_sendto_slow", "OO", data, addr);
        } else if (t->last_to && (addr == t->last_to || PyObject_RichCompareBool(addr, t->last_to, Py_EQ) == 1)) {
            memcpy(&sa, &t->last_to_sa, t->last_to_len);
            alen = t->last_to_len;
        } else {
            PyErr_Clear();
            int k = addr_parse(t, addr, &sa, &alen);
            if (k == 0) { /* a host name, or what the socket module rejects: the shell */
                PyBuffer_Release(&view);
                return PyObject_CallMethod(t->shell, "_sendto_slow", "OO", data, addr);
            }
            if (k < 0) {
                PyBuffer_Release(&view);
                if (PyErr_ExceptionMatches(PyExc_OSError)) {
                    PyObject *exc = vpy_fetch_exc();
                    PyObject *r = t->error_received ? PyObject_CallOneArg(t->error_received, exc) : NULL;
                    Py_DECREF(exc);
                    return r;
                }
                return PyObject_CallMethod(t->shell, "_fatal_error", "Ns", vpy_fetch_exc(),
                                           "Fatal write error on datagram transport");
            }
            Py_XSETREF(t->last_to, Py_NewRef(addr));
            memcpy(&t->last_to_sa, &sa, alen);
            t->last_to_len = alen;
        }
    }
    if (!t->wq.len) {
        ssize_t k = send_one(t, view.buf, (size_t)view.len, &sa, alen);
        if (k >= 0) {
            PyBuffer_Release(&view);
            Py_RETURN_NONE;
        }
        int err = errno;
        if (err != EAGAIN && err != EWOULDBLOCK) {
            PyBuffer_Release(&view);
            if (report_error(t, err) < 0)
                return NULL;
            Py_RETURN_NONE;
        }
    }
    PyObject *copy = PyBytes_FromStringAndSize(view.buf, view.len);
    PyBuffer_Release(&view);
    if (!copy || queue_push(t, copy, &sa, alen) < 0) {
        Py_XDECREF(copy);
        return NULL;
    }
    watch_update(t);
    if (maybe_pause(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------- the transport as a loop handle */

static int queue_self(DgramObject *t)
{
    if (t->flags & DF_QUEUED)
        return 0;
    t->flags |= DF_QUEUED;
    Py_INCREF(t);
    return vpy_ready_push(t->loop, (PyObject *)t, &t->lh);
}

static int dgram_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    DgramObject *t = vpy_container_of(lh, DgramObject, lh);
    (void)l;
    (void)revents;
    t->flags &= ~DF_PEND_MARKED;
    return queue_self(t);
}

static int dgram_run(LoopObject *l, struct vpy_handle *lh)
{
    DgramObject *t = vpy_container_of(lh, DgramObject, lh);
    (void)l;
    t->flags &= ~DF_QUEUED;
    Py_INCREF(t);
    int entered = t->context && PyContext_Enter(t->context) == 0;
    if (t->context && !entered)
        PyErr_Clear();
    int rc = flush(t);
    if (rc == 0)
        rc = deliver(t);
    if (rc == 0 && t->rx.len && !(t->flags & (DF_CLOSING | DF_DETACHED)))
        rc = queue_self(t); /* more than RUN_MAX: after the queue's others */
    if (rc == 0 && (t->flags & DF_RX_ENDED) && !t->rx.len) {
        t->flags &= ~DF_RX_ENDED; /* an error ended vigil's stream: datagrams go on */
        if (rx_update(t) < 0)
            rc = cb_error(t);
    }
    if (entered) {
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        if (PyContext_Exit(t->context) < 0)
            PyErr_Clear();
        PyErr_Restore(et, ev, etb);
    }
    ref_update(t);
    Py_DECREF(t);
    return rc;
}

static void dgram_loop_freed(LoopObject *l, struct vpy_handle *lh)
{
    DgramObject *t = vpy_container_of(lh, DgramObject, lh);
    Py_INCREF(t);
    vpy_handle_stop(l, lh);
    free(t->vs);
    t->vs = NULL;
    t->rx.len = t->rx.head = 0; /* the pool is gone */
    t->flags &= ~(DF_RX_ON | DF_SENDING | DF_WRITABLE); /* vigil_loop_free ended the watch */
    ref_update(t);
    Py_DECREF(t);
}

static const struct vpy_handle_ops dgram_ops = {
    .kind = VPY_KIND_DGRAM,
    .event = dgram_event,
    .run = dgram_run,
    .loop_freed = dgram_loop_freed,
};

/* ------------------------------------------------------------ the type */

/* DgramIO(loop, sock, shell, protocol, address, connected) */
static PyObject *dio_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *loop, *sock, *shell, *protocol, *address;
    int connected;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "DgramIO takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOOp", &loop, &sock, &shell, &protocol, &address, &connected))
        return NULL;
    vpy_state *st = vpy_state_of_type(type);
    if (!st)
        return NULL;
    if (!PyObject_TypeCheck(loop, st->loop_type)) {
        PyErr_SetString(PyExc_TypeError, "loop must be a vigil loop");
        return NULL;
    }
    LoopObject *l = (LoopObject *)loop;
    if (vpy_check_open(l) < 0)
        return NULL;
    int fd = PyObject_AsFileDescriptor(sock);
    if (fd < 0)
        return NULL;
    int family = 0;
    socklen_t fl = sizeof family;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &fl) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    DgramObject *t = (DgramObject *)type->tp_alloc(type, 0);
    if (!t)
        return NULL;
    vpy_handle_init(&t->lh, &dgram_ops);
    t->loop = (LoopObject *)Py_NewRef(loop);
    t->shell = Py_NewRef(shell);
    t->protocol = Py_NewRef(protocol);
    t->address = address == Py_None ? NULL : Py_NewRef(address);
    t->family = family;
    t->fd = fd;
    t->connected = connected;
    t->high = 64 * 1024;
    t->low = 16 * 1024;
    t->wio.data = t;
    if (!(t->context = PyContext_CopyCurrent()) ||
        !(t->datagram_received = PyObject_GetAttrString(protocol, "datagram_received")) ||
        !(t->error_received = PyObject_GetAttrString(protocol, "error_received"))) {
        Py_DECREF(t);
        return NULL;
    }
    struct vigil_net_options no;
    vigil_net_options_init(&no);
    no.buf_size = DGRAM_BUF_SIZE;
    no.buf_count = DGRAM_BUF_COUNT;
    int e = vigil_net_setup(l->vl, &no);
    if (e < 0 && e != -EBUSY) {
        Py_DECREF(t);
        return vpy_set_oserror(-e);
    }
    vigil_sock *vs = vpy_sock_dup_open(l, fd, t);
    if (!vs) {
        Py_DECREF(t);
        return NULL;
    }
    t->vs = vs;
    vpy_handle_start(l, &t->lh);
    return (PyObject *)t;
}

static int dio_traverse(DgramObject *t, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(t));
    Py_VISIT(t->loop);
    Py_VISIT(t->shell);
    Py_VISIT(t->shell_ref);
    Py_VISIT(t->protocol);
    Py_VISIT(t->context);
    Py_VISIT(t->datagram_received);
    Py_VISIT(t->error_received);
    Py_VISIT(t->address);
    Py_VISIT(t->last_from);
    Py_VISIT(t->last_to);
    return 0;
}

static int dio_clear(DgramObject *t)
{
    Py_CLEAR(t->shell);
    Py_CLEAR(t->shell_ref);
    Py_CLEAR(t->protocol);
    Py_CLEAR(t->context);
    Py_CLEAR(t->datagram_received);
    Py_CLEAR(t->error_received);
    Py_CLEAR(t->address);
    Py_CLEAR(t->last_from);
    Py_CLEAR(t->last_to);
    t->flags |= DF_DETACHED;
    return 0;
}

static void dio_dealloc(DgramObject *t)
{
    vpy_dealloc_begin((PyObject *)t, t->weakreflist);
    dio_clear(t);
    sock_close(t); /* no stream and no send in flight: no self-reference is held */
    vpy_ring_free(&t->rx);
    wq_clear(t);
    vpy_ring_free(&t->wq);
    Py_CLEAR(t->loop);
    vpy_dealloc_end((PyObject *)t);
}

static int schedule_lost(DgramObject *t, PyObject *exc)
{
    if (!t->shell)
        return 0; /* let go: connection_lost has run */
    PyObject *cb = PyObject_GetAttrString(t->shell, "_call_connection_lost");
    if (!cb)
        return -1;
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

static PyObject *m_start_reading(DgramObject *t, PyObject *unused)
{
    t->flags |= DF_STARTED;
    if (rx_update(t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_close(DgramObject *t, PyObject *unused)
{
    if (t->flags & DF_CLOSING)
        Py_RETURN_NONE;
    t->flags |= DF_CLOSING;
    if (rx_update(t) < 0)
        PyErr_Clear();
    if (!t->wq.len) {
        t->conn_lost++;
        if (schedule_lost(t, Py_None) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *m_force_close(DgramObject *t, PyObject *exc)
{
    if (t->conn_lost)
        Py_RETURN_NONE;
    wq_clear(t);
    watch_update(t);
    t->flags |= DF_CLOSING;
    if (rx_update(t) < 0)
        PyErr_Clear();
    t->conn_lost++;
    if (schedule_lost(t, exc) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* After connection_lost: close the vigil socket, drop the protocol. */
static PyObject *m_detach(DgramObject *t, PyObject *unused)
{
    t->flags |= DF_DETACHED | DF_CLOSING;
    sock_close(t);
    t->fd = -1;
    wq_clear(t);
    watch_update(t);
    Py_CLEAR(t->protocol);
    Py_CLEAR(t->datagram_received);
    Py_CLEAR(t->error_received);
    ref_update(t);
    /* The shell holds this object in its _io (and its sendto) and this one held the
     * shell: a cycle per transport that only the cyclic collector freed (with its
     * socket, context and dicts), where asyncio's transports go by reference counting.
     * Nothing calls the shell once it is let go (cb_error, maybe_pause, the resume and
     * schedule_lost see NULL); only a connected transport's late sendto warns through
     * it, by the weak reference. */
    if (t->shell && !t->shell_ref) {
        t->shell_ref = PyWeakref_NewRef(t->shell, NULL);
        if (!t->shell_ref)
            PyErr_Clear(); /* a shell without weak references: late sendto's warn no more */
    }
    Py_CLEAR(t->shell);
    Py_RETURN_NONE;
}

static PyObject *m_set_protocol(DgramObject *t, PyObject *protocol)
{
    PyObject *dr = PyObject_GetAttrString(protocol, "datagram_received");
    PyObject *er = dr ? PyObject_GetAttrString(protocol, "error_received") : NULL;
    if (!er) {
        Py_XDECREF(dr);
        return NULL;
    }
    Py_XSETREF(t->protocol, Py_NewRef(protocol));
    Py_XSETREF(t->datagram_received, dr);
    Py_XSETREF(t->error_received, er);
    Py_RETURN_NONE;
}

static PyObject *m_set_limits(DgramObject *t, PyObject *args)
{
    if (!PyArg_ParseTuple(args, "nn", &t->high, &t->low))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_get_write_buffer_size(DgramObject *t, PyObject *unused)
{
    return PyLong_FromSsize_t(t->wq_bytes);
}

static PyObject *m_is_closing(DgramObject *t, PyObject *unused)
{
    return PyBool_FromLong(!!(t->flags & DF_CLOSING));
}

static PyObject *m_conn_lost(DgramObject *t, PyObject *unused)
{
    return PyLong_FromLong(t->conn_lost);
}

static PyMethodDef dio_methods[] = {
    {"sendto", (PyCFunction)(void (*)(void))m_sendto, METH_FASTCALL, "sendto(data, addr=None)"},
    {"get_write_buffer_size", (PyCFunction)m_get_write_buffer_size, METH_NOARGS, NULL},
    {"is_closing", (PyCFunction)m_is_closing, METH_NOARGS, NULL},
    {"close", (PyCFunction)m_close, METH_NOARGS, NULL},
    {"_force_close", (PyCFunction)m_force_close, METH_O, NULL},
    {"_detach", (PyCFunction)m_detach, METH_NOARGS, NULL},
    {"_start_reading", (PyCFunction)m_start_reading, METH_NOARGS, NULL},
    {"_set_protocol", (PyCFunction)m_set_protocol, METH_O, NULL},
    {"_set_limits", (PyCFunction)m_set_limits, METH_VARARGS, NULL},
    {"_conn_lost", (PyCFunction)m_conn_lost, METH_NOARGS, NULL},
    {NULL},
};

static PyMemberDef dio_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(DgramObject, weakreflist), READONLY, NULL},
    {NULL},
};

static PyType_Slot dio_slots[] = {
    {Py_tp_doc, "The receive/send path of a datagram transport (see vigil._loop._DatagramTransport)."},
    {Py_tp_new, dio_new},
    {Py_tp_dealloc, dio_dealloc},
    {Py_tp_traverse, dio_traverse},
    {Py_tp_clear, dio_clear},
    {Py_tp_methods, dio_methods},
    {Py_tp_members, dio_members},
    {0, NULL},
};

static PyType_Spec dio_spec = {
    .name = "vigil._core.DgramIO",
    .basicsize = sizeof(DgramObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = dio_slots,
};

int vpy_dgram_type_add(PyObject *m, vpy_state *st)
{
    (void)st;
    PyObject *tp = PyType_FromModuleAndSpec(m, &dio_spec, NULL);
    if (!tp)
        return -1;
    int r = PyModule_AddType(m, (PyTypeObject *)tp);
    Py_DECREF(tp);
    return r;
}
