/* Making a stream transport: vigil._loop.SocketTransport's construction in C.
 *
 * A SocketTransport is a Python shell (asyncio's class hierarchy, the rare work) around
 * the C read/write path of stream.c (TransportIO, in its `_io` slot). Building one used
 * to run Python per connection (the shell's __init__, _FlowControlMixin's, the socket's
 * extra info, _set_nodelay, three call_soon). Here the same steps are C, in the same
 * order, with the same results:
 *
 *   1. the slots BaseTransport and _FlowControlMixin set: _extra (the dict given, or a
 *      new one), _loop, _protocol_paused False, _high_water 64 KiB, _low_water 16 KiB
 *      (what _set_write_buffer_limits() makes of no arguments);
 *   2. asyncio's extra info: socket (a TransportSocket), sockname, peername (unless the
 *      caller gave one; None if the socket has none). A plain socket.socket of an IP
 *      family is read with getsockname/getpeername here and its address built as the
 *      socket module builds it; anything else is asked through its own methods;
 *   3. _sock, _sock_fd, _server, _protocol, _empty_waiter None (the instance dict);
 *   4. TCP_NODELAY where base_events._set_nodelay sets it (AF_INET/AF_INET6,
 *      SOCK_STREAM, IPPROTO_TCP);
 *   5. the TransportIO (stream.c; it captures the current context for the protocol's
 *      callbacks) in the `_io` slot;
 *   6. server._attach() (3.13: server._attach(transport)), loop._transports[fd];
 *   7. call_soon(protocol.connection_made, transport), call_soon(io._start_reading),
 *      and with a waiter call_soon(futures._set_result_unless_cancelled, waiter, None):
 *      each a Handle in a copy of the current context, as loop.call_soon makes it (in
 *      debug mode through loop.call_soon itself, for its checks).
 * The accept path (server.c) runs this inside the copy of the serving context it entered,
 * so the context captured is the one asyncio's would be.
 *
 * If a step fails the exception propagates (as from the shell's __init__) and the
 * transport forgets its socket (_sock None: no "unclosed transport" warning for a socket
 * that stays the caller's to close).
 *
 * vigil._loop registers the shell class and the few asyncio objects this needs once, at
 * import (_stream_shell). */
#include "handle.h"
#include "loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

enum {
    N_EXTRA, N_LOOP, N_PROTOCOL_PAUSED, N_HIGH_WATER, N_LOW_WATER, N_SOCK, N_SOCK_FD, N_SERVER, N_PROTOCOL,
    N_EMPTY_WAITER, N_IO, N_SOCKET, N_SOCKNAME, N_PEERNAME, N_GETSOCKNAME, N_GETPEERNAME, N_CONNECTION_MADE,
    N_START_READING, N_ATTACH, N_TRANSPORTS, N_FAMILY, N_TYPE, N_PROTO, N_CALL_SOON, N_COUNT
};

static const char *const names[N_COUNT] = {
    "_extra", "_loop", "_protocol_paused", "_high_water", "_low_water", "_sock", "_sock_fd", "_server",
    "_protocol", "_empty_waiter", "_io", "socket", "sockname", "peername", "getsockname", "getpeername",
    "connection_made", "_start_reading", "_attach", "_transports", "family", "type", "proto", "call_soon",
};

struct vpy_trnew {
    PyObject *shell;       /* vigil._loop.SocketTransport */
    PyObject *trsock;      /* asyncio.trsock.TransportSocket */
    PyObject *buffered;    /* asyncio.protocols.BufferedProtocol */
    PyObject *set_result;  /* asyncio.futures._set_result_unless_cancelled */
    PyObject *high, *low;  /* 65536, 16384 */
    PyObject *name[N_COUNT];
};

#define NAME(st, n) ((st)->trnew->name[n])

/* ------------------------------------------------------------ extra info */

/* A socket address as the socket module returns it, for AF_INET and AF_INET6; NULL
 * without an exception for any other family (the caller asks the socket object). */
static PyObject *ip_addr(const struct sockaddr_storage *ss, socklen_t len)
{
    char buf[INET6_ADDRSTRLEN];
    if (ss->ss_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *a = (const void *)ss;
        if (!inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf))
            return NULL;
        return Py_BuildValue("(si)", buf, (int)ntohs(a->sin_port));
    }
    if (ss->ss_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *a = (const void *)ss;
        if (!inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf))
            return NULL;
        return Py_BuildValue("(siII)", buf, (int)ntohs(a->sin6_port), (unsigned)ntohl(a->sin6_flowinfo),
                             (unsigned)a->sin6_scope_id);
    }
    return NULL;
}

/* sock.getsockname()/getpeername() through the object; OSError gives None. */
static PyObject *addr_by_method(PyObject *sock, PyObject *meth)
{
    PyObject *r = PyObject_CallMethodNoArgs(sock, meth);
    if (!r && PyErr_ExceptionMatches(PyExc_OSError)) {
        PyErr_Clear();
        r = Py_NewRef(Py_None);
    }
    return r;
}

/* The local (peer 0) or remote (peer 1) address: a new reference, or NULL with the
 * exception set. *family gets the address family (-1 if not read here). */
static PyObject *sock_addr(vpy_state *st, PyObject *sock, int fd, int peer, int *family)
{
    if (Py_TYPE(sock) == (PyTypeObject *)st->socket_type) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int r = peer ? getpeername(fd, (struct sockaddr *)&ss, &len) : getsockname(fd, (struct sockaddr *)&ss, &len);
        if (r < 0)
            return Py_NewRef(Py_None); /* the socket module's OSError, which asyncio turns into None */
        *family = ss.ss_family;
        PyObject *a = ip_addr(&ss, len);
        if (a || PyErr_Occurred())
            return a;
    }
    return addr_by_method(sock, NAME(st, peer ? N_GETPEERNAME : N_GETSOCKNAME));
}

/* extra["socket"], ["sockname"], ["peername"] (unless given). 0 or -1. */
static int fill_extra(vpy_state *st, PyObject *extra, PyObject *sock, int fd, int *family)
{
    struct vpy_trnew *tn = st->trnew;
    PyTypeObject *tsc = (PyTypeObject *)tn->trsock;
    /* TransportSocket(sock): its __init__ only stores the socket in its one slot */
    PyObject *ts = tsc->tp_alloc(tsc, 0);
    if (!ts || PyObject_SetAttr(ts, NAME(st, N_SOCK), sock) < 0 ||
        PyObject_SetItem(extra, NAME(st, N_SOCKET), ts) < 0) {
        Py_XDECREF(ts);
        return -1;
    }
    Py_DECREF(ts);
    PyObject *a = sock_addr(st, sock, fd, 0, family);
    if (!a || PyObject_SetItem(extra, NAME(st, N_SOCKNAME), a) < 0) {
        Py_XDECREF(a);
        return -1;
    }
    Py_DECREF(a);
    int has = PySequence_Contains(extra, NAME(st, N_PEERNAME));
    if (has < 0)
        return -1;
    if (!has) {
        int f2 = -1;
        a = sock_addr(st, sock, fd, 1, &f2);
        if (!a || PyObject_SetItem(extra, NAME(st, N_PEERNAME), a) < 0) {
            Py_XDECREF(a);
            return -1;
        }
        Py_DECREF(a);
    }
    return 0;
}

/* An int attribute of the socket (family, type, proto), or -1 with the error set. */
static long sock_int(PyObject *sock, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(sock, name);
    if (!v)
        return -1;
    long r = PyLong_AsLong(v);
    Py_DECREF(v);
    return r;
}

/* base_events._set_nodelay: TCP_NODELAY on a TCP socket of an IP family. The hints
 * are the socket's family, type and proto where the caller knows them, else -1. */
static int set_nodelay(vpy_state *st, PyObject *sock, int fd, int family, int type, int proto)
{
    if (family < 0 && (family = (int)sock_int(sock, NAME(st, N_FAMILY))) < 0 && PyErr_Occurred())
        return -1;
    if (family != AF_INET && family != AF_INET6)
        return 0;
    if (type < 0 && (type = (int)sock_int(sock, NAME(st, N_TYPE))) < 0 && PyErr_Occurred())
        return -1;
    if (type != SOCK_STREAM)
        return 0;
    if (proto < 0 && (proto = (int)sock_int(sock, NAME(st, N_PROTO))) < 0 && PyErr_Occurred())
        return -1;
    if (proto != IPPROTO_TCP)
        return 0;
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
        PyErr_SetFromErrno(PyExc_OSError); /* as sock.setsockopt() would raise */
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ scheduling */

/* loop.call_soon(cb, *args): a Handle in a copy of the current context. */
static int soon(LoopObject *l, PyObject *cb, PyObject *const *args, Py_ssize_t nargs)
{
    if (l->debug) { /* loop.call_soon's debug checks and source traceback */
        PyObject *v[4] = {NULL, cb, nargs > 0 ? args[0] : NULL, nargs > 1 ? args[1] : NULL};
        v[0] = (PyObject *)l;
        PyObject *r = PyObject_VectorcallMethod(NAME(l->st, N_CALL_SOON), v, (size_t)(2 + nargs), NULL);
        Py_XDECREF(r);
        return r ? 0 : -1;
    }
    if (vpy_check_open(l) < 0)
        return -1;
    HandleObject *h = vpy_handle_new(l, 0, cb, args, nargs, NULL);
    if (!h)
        return -1;
    return vpy_ready_push(l, (PyObject *)h, NULL);
}

/* ------------------------------------------------------------ the transport */

struct tr_args {
    LoopObject *l;
    PyObject *sock;
    int fd;
    int type, proto; /* known to the caller, else -1 */
    PyObject *protocol, *waiter, *extra, *server;
};

static int set_attr(vpy_state *st, PyObject *self, int n, PyObject *v)
{
    return PyObject_SetAttr(self, NAME(st, n), v);
}

/* Steps 1-7 of the header on self, an allocated shell. 0, or -1 with the exception set. */
static int transport_fill(PyObject *self, const struct tr_args *a)
{
    LoopObject *l = a->l;
    vpy_state *st = l->st;
    struct vpy_trnew *tn = st->trnew;
    PyObject *loop = (PyObject *)l;
    PyObject *extra = a->extra && a->extra != Py_None ? Py_NewRef(a->extra) : PyDict_New();
    if (!extra)
        return -1;
    int r = set_attr(st, self, N_EXTRA, extra);
    Py_DECREF(extra);
    if (r < 0 || set_attr(st, self, N_LOOP, loop) < 0 || set_attr(st, self, N_PROTOCOL_PAUSED, Py_False) < 0 ||
        set_attr(st, self, N_HIGH_WATER, tn->high) < 0 || set_attr(st, self, N_LOW_WATER, tn->low) < 0)
        return -1;
    int family = -1;
    if (fill_extra(st, extra, a->sock, a->fd, &family) < 0)
        return -1;
    PyObject *fdo = PyLong_FromLong(a->fd);
    if (!fdo)
        return -1;
    r = set_attr(st, self, N_SOCK, a->sock) < 0 || set_attr(st, self, N_SOCK_FD, fdo) < 0 ||
        set_attr(st, self, N_SERVER, a->server) < 0 || set_attr(st, self, N_PROTOCOL, a->protocol) < 0 ||
        set_attr(st, self, N_EMPTY_WAITER, Py_None) < 0;
    if (r)
        goto fail_fdo;
    if (set_nodelay(st, a->sock, a->fd, family, a->type, a->proto) < 0)
        goto fail_fdo;
    int buffered = PyObject_IsInstance(a->protocol, tn->buffered);
    if (buffered < 0)
        goto fail_fdo;
    PyObject *io = vpy_tio_create(l, a->sock, a->fd, self, a->protocol, buffered);
    if (!io)
        goto fail_fdo;
    r = set_attr(st, self, N_IO, io);
    if (r < 0)
        goto fail_io;
    if (a->server != Py_None) {
#if PY_VERSION_HEX >= 0x030D0000
        PyObject *ar = PyObject_CallMethodOneArg(a->server, NAME(st, N_ATTACH), self);
#else
        PyObject *ar = PyObject_CallMethodNoArgs(a->server, NAME(st, N_ATTACH));
#endif
        if (!ar)
            goto fail_io;
        Py_DECREF(ar);
    }
    PyObject *trs = PyObject_GetAttr(loop, NAME(st, N_TRANSPORTS));
    r = trs ? PyObject_SetItem(trs, fdo, self) : -1;
    Py_XDECREF(trs);
    if (r < 0)
        goto fail_io;
    PyObject *made = PyObject_GetAttr(a->protocol, NAME(st, N_CONNECTION_MADE));
    r = made ? soon(l, made, &self, 1) : -1;
    Py_XDECREF(made);
    if (r < 0)
        goto fail_io;
    PyObject *start = PyObject_GetAttr(io, NAME(st, N_START_READING));
    r = start ? soon(l, start, NULL, 0) : -1;
    Py_XDECREF(start);
    if (r < 0)
        goto fail_io;
    if (a->waiter && a->waiter != Py_None) {
        PyObject *args[2] = {a->waiter, Py_None};
        if (soon(l, tn->set_result, args, 2) < 0)
            goto fail_io;
    }
    Py_DECREF(io);
    Py_DECREF(fdo);
    return 0;
fail_io:
    Py_DECREF(io);
fail_fdo:
    Py_DECREF(fdo);
    {
        /* the socket stays the caller's: no "unclosed transport" from the shell's __del__ */
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        if (set_attr(st, self, N_SOCK, Py_None) < 0)
            PyErr_Clear();
        PyErr_Restore(et, ev, etb);
    }
    return -1;
}

static int check_registered(vpy_state *st)
{
    if (!st->trnew || !st->trnew->shell) {
        PyErr_SetString(PyExc_RuntimeError, "vigil._core: no stream transport shell registered");
        return -1;
    }
    return 0;
}

PyObject *vpy_transport_new(LoopObject *l, PyObject *sock, int fd, int type, int proto, PyObject *protocol,
                            PyObject *waiter, PyObject *extra, PyObject *server)
{
    if (check_registered(l->st) < 0)
        return NULL;
    PyTypeObject *cls = (PyTypeObject *)l->st->trnew->shell;
    PyObject *self = cls->tp_alloc(cls, 0);
    if (!self)
        return NULL;
    struct tr_args a = {l, sock, fd, type, proto, protocol, waiter, extra, server ? server : Py_None};
    if (transport_fill(self, &a) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return self;
}

int vpy_transport_is_shell(vpy_state *st, PyObject *cls)
{
    return st->trnew && st->trnew->shell == cls;
}

/* ------------------------------------------------------------ module functions */

static int parse(PyObject *m, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t first, const char *fname,
                 struct tr_args *a)
{
    vpy_state *st = PyModule_GetState(m);
    if (check_registered(st) < 0)
        return -1;
    if (nargs < first + 3 || nargs > first + 6) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments", fname, first + 3, first + 6);
        return -1;
    }
    if (!PyObject_TypeCheck(args[first], st->loop_type)) {
        PyErr_Format(PyExc_TypeError, "%s(): a vigil loop expected", fname);
        return -1;
    }
    a->l = (LoopObject *)args[first];
    a->sock = args[first + 1];
    a->protocol = args[first + 2];
    a->waiter = nargs > first + 3 ? args[first + 3] : Py_None;
    a->extra = nargs > first + 4 ? args[first + 4] : Py_None;
    a->server = nargs > first + 5 ? args[first + 5] : Py_None;
    a->type = a->proto = -1;
    a->fd = PyObject_AsFileDescriptor(a->sock);
    return a->fd < 0 ? -1 : 0;
}

/* _stream_transport_init(self, loop, sock, protocol, waiter=None, extra=None, server=None):
 * SocketTransport.__init__. */
static PyObject *mod_init(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    struct tr_args a;
    if (parse(m, args, nargs, 1, "_stream_transport_init", &a) < 0)
        return NULL;
    if (transport_fill(args[0], &a) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* _stream_transport(loop, sock, protocol, waiter=None, extra=None, server=None): a new
 * SocketTransport, its __init__'s work done here. */
static PyObject *mod_new(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    struct tr_args a;
    if (parse(m, args, nargs, 0, "_stream_transport", &a) < 0)
        return NULL;
    return vpy_transport_new(a.l, a.sock, a.fd, -1, -1, a.protocol, a.waiter, a.extra, a.server);
}

/* _stream_shell(cls, TransportSocket, BufferedProtocol, _set_result_unless_cancelled) */
static PyObject *mod_shell(PyObject *m, PyObject *args)
{
    PyObject *cls, *trsock, *buffered, *set_result;
    if (!PyArg_ParseTuple(args, "O!O!OO", &PyType_Type, &cls, &PyType_Type, &trsock, &buffered, &set_result))
        return NULL;
    struct vpy_trnew *tn = ((vpy_state *)PyModule_GetState(m))->trnew;
    Py_XSETREF(tn->shell, Py_NewRef(cls));
    Py_XSETREF(tn->trsock, Py_NewRef(trsock));
    Py_XSETREF(tn->buffered, Py_NewRef(buffered));
    Py_XSETREF(tn->set_result, Py_NewRef(set_result));
    Py_RETURN_NONE;
}

static PyMethodDef trnew_methods[] = {
    {"_stream_shell", (PyCFunction)mod_shell, METH_VARARGS,
     "_stream_shell(cls, TransportSocket, BufferedProtocol, set_result_unless_cancelled): the stream "
     "transport's shell class and the asyncio objects its construction uses."},
    {"_stream_transport_init", (PyCFunction)(void (*)(void))mod_init, METH_FASTCALL,
     "_stream_transport_init(self, loop, sock, protocol, waiter=None, extra=None, server=None): "
     "SocketTransport.__init__."},
    {"_stream_transport", (PyCFunction)(void (*)(void))mod_new, METH_FASTCALL,
     "_stream_transport(loop, sock, protocol, waiter=None, extra=None, server=None): a new SocketTransport."},
    {NULL},
};

int vpy_trnew_add(PyObject *m, vpy_state *st)
{
    struct vpy_trnew *tn = PyMem_Calloc(1, sizeof *tn);
    if (!tn) {
        PyErr_NoMemory();
        return -1;
    }
    st->trnew = tn;
    if (!(tn->high = PyLong_FromLong(64 * 1024)) || !(tn->low = PyLong_FromLong(16 * 1024)))
        return -1;
    for (int i = 0; i < N_COUNT; i++)
        if (!(tn->name[i] = PyUnicode_InternFromString(names[i])))
            return -1;
    return PyModule_AddFunctions(m, trnew_methods);
}

int vpy_trnew_traverse(vpy_state *st, visitproc visit, void *arg)
{
    struct vpy_trnew *tn = st->trnew;
    if (tn) {
        Py_VISIT(tn->shell);
        Py_VISIT(tn->trsock);
        Py_VISIT(tn->buffered);
        Py_VISIT(tn->set_result);
    }
    return 0;
}

void vpy_trnew_clear(vpy_state *st, int free_it)
{
    struct vpy_trnew *tn = st->trnew;
    if (!tn)
        return;
    Py_CLEAR(tn->shell);
    Py_CLEAR(tn->trsock);
    Py_CLEAR(tn->buffered);
    Py_CLEAR(tn->set_result);
    if (free_it) {
        Py_CLEAR(tn->high);
        Py_CLEAR(tn->low);
        for (int i = 0; i < N_COUNT; i++)
            Py_CLEAR(tn->name[i]);
        PyMem_Free(tn);
        st->trnew = NULL;
    }
}
