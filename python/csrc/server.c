/* vigil._core.Listener: a listening socket of an asyncio Server, accepting in C.
 *
 * vigil accepts (<vigil/net.h>: vigil_sock_accept_start, a multishot accept on io_uring,
 * readiness and accept4 on epoll/poll) on a dup() of the server's socket; its callback
 * (no GIL) only records the new fd and one event for the listener. The turn then runs
 * the listener from the ready queue, which for each connection, without a Task and
 * without Python's sock.accept():
 *   - wraps the fd in a socket.socket (non-blocking, as asyncio's accept leaves it),
 *   - in a copy of the context captured when serving started (asyncio's accept runs in a
 *     Task of a copy of the reader's context): calls the protocol factory, then makes the
 *     transport (vigil._loop.SocketTransport, built in C by transport_new.c as its
 *     __init__ would: the C stream transport of stream.c, connection_made and the
 *     first read queued, attached to the server; another transport class is called).
 * A factory or transport that raises closes the connection and is reported through the
 * `errors` hook (vigil._loop: asyncio reports it in debug mode only); SystemExit and
 * KeyboardInterrupt escape, as from any callback.
 *
 * EMFILE/ENFILE: vigil reports it once and pauses accepting by itself
 * (VIGIL_NET_ACCEPT_BACKOFF_MS), retrying after each pause; the error goes to the
 * `errors` hook (the loop's exception handler, as asyncio's "socket.accept() out of
 * system resource"). Any other accept error stops vigil's accepting: reported the same.
 *
 * Lifetime: while its vigil_sock is open the listener holds a reference to itself and is
 * a started handle of the loop (VPY_KIND_LISTENER); close() (the server's close) or the
 * loop's end finishes it. The vigil_sock is malloc'd and freed by its close callback. */
#include "loop.h"

#include <structmember.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FDS_FIRST_CAP 64

enum {
    LF_QUEUED = 1u << 0,      /* on the ready queue */
    LF_PEND_MARKED = 1u << 1, /* an event recorded this turn */
    LF_SELFREF = 1u << 2,     /* holds a reference to itself (vigil_sock open) */
    LF_PAUSED = 1u << 3,      /* out of fds: accepting stopped until _resume() */
    LF_REPORTED = 1u << 4,    /* EMFILE reported; not again until a connection is made */
};

typedef struct ListenerObject {
    PyObject_HEAD
    LoopObject *loop;
    PyObject *factory;   /* the protocol factory */
    PyObject *context;   /* captured when serving started */
    PyObject *server;    /* the asyncio Server (None: none) */
    PyObject *sock_cls;  /* socket.socket */
    PyObject *tr_cls;    /* the transport class: (loop, sock, protocol, waiter, extra, server) */
    PyObject *errors;    /* errors(exc, protocol, accept_error): a failure */
    PyObject *resume;    /* self._resume, bound (call_later's callback while paused) */
    int family, type, proto;
    vigil_sock *vs;      /* NULL once closed */
    struct vpy_ring fds; /* of int: accepted fds, or -errno */
    unsigned flags;
    struct vpy_handle lh;
    PyObject *weakreflist;
} ListenerObject;

#define FD_AT(L, i) VPY_RING_AT(&(L)->fds, int, i)

/* ------------------------------------------------- vigil's callbacks (no GIL) */

static void on_accept(vigil_loop *vl, vigil_sock *s, int fd)
{
    ListenerObject *L = s->data;
    if (!L) {
        if (fd >= 0)
            close(fd);
        return;
    }
    int *slot = vpy_ring_push(&L->fds, sizeof *slot, FDS_FIRST_CAP);
    if (!slot) {
        if (fd >= 0)
            close(fd); /* out of memory: the client sees its connection closed */
        return;
    }
    *slot = fd;
    if (!(L->flags & LF_PEND_MARKED)) {
        L->flags |= LF_PEND_MARKED;
        vpy_pend_push(vigil_loop_data(vl), &L->lh, 0);
    }
}

static void on_closed(vigil_loop *vl, vigil_sock *s)
{
    (void)vl;
    free(s);
}

/* ------------------------------------------------------------ closing */

static void fds_drain(ListenerObject *L)
{
    while (L->fds.len) {
        int fd = FD_AT(L, 0);
        vpy_ring_drop(&L->fds);
        if (fd >= 0)
            close(fd);
    }
}

static void selfref_drop(ListenerObject *L)
{
    if (L->flags & LF_SELFREF) {
        L->flags &= ~LF_SELFREF;
        Py_DECREF(L);
    }
}

/* Stops accepting and closes the dup (vigil finishes the close: on io_uring the accept's
 * cancellation; the struct is freed by on_closed). Connections not yet handed to Python
 * are closed. May drop the last reference: callers hold one. */
static void listener_close(ListenerObject *L)
{
    vigil_sock *vs = L->vs;
    if (vs) {
        L->vs = NULL;
        vpy_handle_stop(L->loop, &L->lh);
        vs->data = NULL;
        if (!L->loop->vl || vigil_sock_close(L->loop->vl, vs, on_closed) < 0)
            free(vs);
    }
    fds_drain(L);
    selfref_drop(L);
}

/* ------------------------------------------------------------ accepting */

/* Reports exc (a new reference, taken; NULL: the one set) through the errors hook. */
static int report(ListenerObject *L, PyObject *exc, PyObject *protocol, int accept_err)
{
    if (!exc)
        exc = vpy_fetch_exc();
    if (!exc)
        return 0;
    PyObject *r = PyObject_CallFunction(L->errors, "OOO", exc, protocol ? protocol : Py_None,
                                          accept_err ? Py_True : Py_False);
    Py_DECREF(exc);
    if (!r) {
        if (vpy_exc_escapes())
            return -1;
        PyErr_WriteUnraisable(L->errors);
        return 0;
    }
    Py_DECREF(r);
    return 0;
}

static void sock_close_quiet(PyObject *sock)
{
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyObject *r = PyObject_CallMethod(sock, "close", NULL);
    if (!r)
        PyErr_WriteUnraisable(sock);
    Py_XDECREF(r);
    PyErr_Restore(et, ev, etb);
}

/* EMFILE/ENFILE, reported once until a connection is made again (as vigil reports its
 * own accept's). 0, or -1 with SystemExit/KeyboardInterrupt. */
static int report_emfile(ListenerObject *L, int err)
{
    if (L->flags & LF_REPORTED)
        return 0;
    L->flags |= LF_REPORTED;
    PyObject *args = Py_BuildValue("(is)", err, strerror(err));
    PyObject *exc = args ? PyObject_Call(PyExc_OSError, args, NULL) : NULL;
    Py_XDECREF(args);
    return report(L, exc, NULL, 1);
}

/* Stops accepting for VIGIL_NET_ACCEPT_BACKOFF_MS (the connection at the head of the
 * queue stays there). Returns PAUSED, or -1. */
#define PAUSED 1
static int pause_accepting(ListenerObject *L)
{
    L->flags |= LF_PAUSED;
    if (L->vs && L->loop->vl)
        vigil_sock_accept_stop(L->loop->vl, L->vs);
    PyObject *r = PyObject_CallMethod((PyObject *)L->loop, "call_later", "dO", VIGIL_NET_ACCEPT_BACKOFF_MS / 1000.0,
                                      L->resume ? L->resume : Py_None);
    if (!r)
        return vpy_exc_escapes() ? -1 : (PyErr_WriteUnraisable((PyObject *)L), PAUSED);
    Py_DECREF(r);
    return PAUSED;
}

/* One connection: socket, protocol, transport. 0, PAUSED (fd not taken), or -1 with
 * SystemExit/KeyboardInterrupt. */
static int accept_one(ListenerObject *L, int fd)
{
    if (fd < 0) {
        PyObject *args = Py_BuildValue("(is)", -fd, strerror(-fd));
        PyObject *exc = args ? PyObject_Call(PyExc_OSError, args, NULL) : NULL;
        Py_XDECREF(args);
        return report(L, exc, NULL, 1);
    }
    /* The transport takes a second fd (stream.c gives vigil a dup). Out of fds: the
     * connections accepted after this one hold fds none of them can be served with (a
     * burst accepted into the last free fds would wait for ever), so the newest is
     * closed to make room for the oldest (libuv, under uvloop, closes every pending
     * connection on EMFILE); the last one waits at the head of the queue while
     * accepting pauses, as vigil pauses its own accept after EMFILE, until fds free up. */
    int probe, err = 0;
    while ((probe = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0 && (errno == EMFILE || errno == ENFILE)) {
        err = errno;
        if (L->fds.len <= 1)
            break;
        int newest = FD_AT(L, L->fds.len - 1);
        L->fds.len--;
        if (newest >= 0)
            close(newest);
    }
    if (err && report_emfile(L, err) < 0)
        return -1;
    if (probe < 0 && err)
        return pause_accepting(L);
    if (probe >= 0)
        close(probe);
    L->flags &= ~LF_REPORTED;
    /* Non-blocking, as asyncio's accept leaves it (io_uring's accept does not set it). A
     * socket has no other F_SETFL flag set: one call, no F_GETFL. */
    (void)fcntl(fd, F_SETFL, O_NONBLOCK);
    /* SOCK_NONBLOCK in type: the socket object's timeout is 0 (setblocking(False)) */
    PyObject *sock = PyObject_CallFunction(L->sock_cls, "iiii", L->family, L->type | SOCK_NONBLOCK, L->proto, fd);
    if (!sock) {
        close(fd);
        return report(L, NULL, NULL, 0);
    }
    PyObject *ctx = PyContext_Copy(L->context);
    if (!ctx || PyContext_Enter(ctx) < 0) {
        Py_XDECREF(ctx);
        sock_close_quiet(sock);
        Py_DECREF(sock);
        return report(L, NULL, NULL, 0);
    }
    int rc = 0;
    PyObject *protocol = PyObject_CallNoArgs(L->factory);
    PyObject *tr = NULL;
    if (protocol && vpy_transport_is_shell(L->loop->st, L->tr_cls))
        tr = vpy_transport_new(L->loop, sock, fd, L->type, L->proto, protocol, Py_None, Py_None, L->server);
    else if (protocol)
        tr = PyObject_CallFunctionObjArgs(L->tr_cls, (PyObject *)L->loop, sock, protocol, Py_None, Py_None,
                                          L->server, NULL);
    if (!tr) {
        sock_close_quiet(sock);
        rc = vpy_exc_escapes() ? -1 : report(L, NULL, protocol, 0);
    }
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    if (PyContext_Exit(ctx) < 0)
        PyErr_Clear();
    PyErr_Restore(et, ev, etb);
    Py_DECREF(ctx);
    Py_XDECREF(tr);
    Py_XDECREF(protocol);
    Py_DECREF(sock);
    return rc;
}

static int queue_self(ListenerObject *L)
{
    if (L->flags & LF_QUEUED)
        return 0;
    L->flags |= LF_QUEUED;
    Py_INCREF(L);
    return vpy_ready_push(L->loop, (PyObject *)L, &L->lh);
}

/* Hands every recorded connection over, unless paused. 0, or -1 (SystemExit...). */
static int listener_drain(ListenerObject *L)
{
    while (L->fds.len && L->vs && !(L->flags & LF_PAUSED)) {
        int fd = FD_AT(L, 0);
        int r = accept_one(L, fd);
        if (r == PAUSED)
            return 0;
        vpy_ring_drop(&L->fds);
        if (r < 0) {
            if (L->fds.len && L->vs && queue_self(L) < 0)
                PyErr_WriteUnraisable(NULL);
            return -1;
        }
    }
    return 0;
}

static int listener_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    ListenerObject *L = vpy_container_of(lh, ListenerObject, lh);
    (void)l;
    (void)revents;
    L->flags &= ~LF_PEND_MARKED;
    return queue_self(L);
}

/* From the ready queue: every connection recorded so far (the queue holds a reference). */
static int listener_run(LoopObject *l, struct vpy_handle *lh)
{
    ListenerObject *L = vpy_container_of(lh, ListenerObject, lh);
    (void)l;
    L->flags &= ~LF_QUEUED;
    return listener_drain(L);
}

/* vigil_loop_free closed the socket (without a callback): free it, drop what it held. */
static void listener_loop_freed(LoopObject *l, struct vpy_handle *lh)
{
    ListenerObject *L = vpy_container_of(lh, ListenerObject, lh);
    Py_INCREF(L);
    vpy_handle_stop(l, lh);
    free(L->vs);
    L->vs = NULL;
    fds_drain(L);
    selfref_drop(L);
    Py_DECREF(L);
}

static const struct vpy_handle_ops listener_ops = {
    .kind = VPY_KIND_LISTENER,
    .event = listener_event,
    .run = listener_run,
    .loop_freed = listener_loop_freed,
};

/* ------------------------------------------------------------ the type */

/* Listener(loop, sock, protocol_factory, context, server, socket_class, transport_class,
 * errors): accepting at once. errors(exc, protocol, accept_error) gets accept's own
 * errors (accept_error True) and the factory's or transport's (the connection closed). */
static PyObject *listener_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *loop, *sock, *factory, *context, *server, *sock_cls, *tr_cls, *errors;
    vpy_state *st = vpy_state_of_type(type);
    if (!st)
        return NULL;
    if (!PyArg_ParseTuple(args, "O!OOO!OOOO", st->loop_type, &loop, &sock, &factory, &PyContext_Type, &context,
                          &server, &sock_cls, &tr_cls, &errors))
        return NULL;
    LoopObject *l = (LoopObject *)loop;
    if (!l->vl || l->closed) {
        PyErr_SetString(PyExc_RuntimeError, "Event loop is closed");
        return NULL;
    }
    int fd = PyObject_AsFileDescriptor(sock);
    if (fd < 0)
        return NULL;
    int fam = 0, typ = 0, pro = 0;
    socklen_t len = sizeof fam;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &fam, &len) < 0 ||
        (len = sizeof typ, getsockopt(fd, SOL_SOCKET, SO_TYPE, &typ, &len)) < 0 ||
        (len = sizeof pro, getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &pro, &len)) < 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    ListenerObject *L = (ListenerObject *)type->tp_alloc(type, 0);
    if (!L)
        return NULL;
    vpy_handle_init(&L->lh, &listener_ops);
    L->family = fam;
    L->type = typ;
    L->proto = pro;
    Py_INCREF(loop);
    L->loop = l;
    Py_INCREF(factory);
    L->factory = factory;
    Py_INCREF(context);
    L->context = context;
    Py_INCREF(server);
    L->server = server;
    Py_INCREF(sock_cls);
    L->sock_cls = sock_cls;
    Py_INCREF(tr_cls);
    L->tr_cls = tr_cls;
    Py_INCREF(errors);
    L->errors = errors;
    if (!(L->resume = PyObject_GetAttrString((PyObject *)L, "_resume"))) {
        Py_DECREF(L);
        return NULL;
    }
    vigil_sock *vs = vpy_sock_open_dup(l, fd, L);
    if (!vs) {
        Py_DECREF(L);
        return NULL;
    }
    int e = vigil_sock_accept_start(l->vl, vs, on_accept);
    if (e < 0) {
        vs->data = NULL;
        if (vigil_sock_close(l->vl, vs, on_closed) < 0)
            free(vs);
        vpy_set_oserror(-e);
        Py_DECREF(L);
        return NULL;
    }
    L->vs = vs;
    vpy_handle_start(l, &L->lh);
    L->flags |= LF_SELFREF;
    Py_INCREF(L);
    return (PyObject *)L;
}

static int listener_traverse(ListenerObject *L, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(L));
    Py_VISIT(L->loop);
    Py_VISIT(L->factory);
    Py_VISIT(L->context);
    Py_VISIT(L->server);
    Py_VISIT(L->sock_cls);
    Py_VISIT(L->tr_cls);
    Py_VISIT(L->errors);
    Py_VISIT(L->resume);
    return 0;
}

static int listener_clear(ListenerObject *L)
{
    Py_CLEAR(L->factory);
    Py_CLEAR(L->context);
    Py_CLEAR(L->server);
    Py_CLEAR(L->sock_cls);
    Py_CLEAR(L->tr_cls);
    Py_CLEAR(L->errors);
    Py_CLEAR(L->resume);
    return 0;
}

static void listener_dealloc(ListenerObject *L)
{
    vpy_dealloc_begin((PyObject *)L, L->weakreflist);
    listener_clear(L);
    if (L->vs && L->loop) { /* no self-reference left: only reachable if never started */
        vigil_sock *vs = L->vs;
        L->vs = NULL;
        vpy_handle_stop(L->loop, &L->lh);
        vs->data = NULL;
        if (!L->loop->vl || vigil_sock_close(L->loop->vl, vs, on_closed) < 0)
            free(vs);
    }
    fds_drain(L);
    vpy_ring_free(&L->fds);
    Py_CLEAR(L->loop);
    vpy_dealloc_end((PyObject *)L);
}

static PyObject *m_close(ListenerObject *L, PyObject *unused)
{
    Py_INCREF(L);
    listener_close(L);
    Py_DECREF(L);
    Py_RETURN_NONE;
}

/* The pause after EMFILE is over: hand the waiting connections over, accept again. */
static PyObject *m_resume(ListenerObject *L, PyObject *unused)
{
    if (!(L->flags & LF_PAUSED) || !L->vs)
        Py_RETURN_NONE;
    L->flags &= ~LF_PAUSED;
    Py_INCREF(L);
    int r = listener_drain(L);
    if (r == 0 && L->vs && !(L->flags & LF_PAUSED)) {
        int e = vigil_sock_accept_start(L->loop->vl, L->vs, on_accept);
        if (e < 0 && e != -EBUSY) {
            PyObject *args = Py_BuildValue("(is)", -e, strerror(-e));
            PyObject *exc = args ? PyObject_Call(PyExc_OSError, args, NULL) : NULL;
            Py_XDECREF(args);
            r = report(L, exc, NULL, 1);
        }
    }
    Py_DECREF(L);
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_accepting(ListenerObject *L, PyObject *unused)
{
    return PyBool_FromLong(L->vs && vigil_sock_accepting(L->vs));
}

static PyMethodDef listener_methods[] = {
    {"close", (PyCFunction)m_close, METH_NOARGS, "Stop accepting; close the connections not yet handed over."},
    {"_resume", (PyCFunction)m_resume, METH_NOARGS, NULL},
    {"accepting", (PyCFunction)m_accepting, METH_NOARGS, "True while vigil accepts (False after close or an error)."},
    {NULL},
};

static PyMemberDef listener_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ListenerObject, weakreflist), READONLY, NULL},
    {NULL},
};

static PyType_Slot listener_slots[] = {
    {Py_tp_doc, "A listening socket accepting through vigil; connections become transports in C."},
    {Py_tp_new, listener_new},
    {Py_tp_dealloc, listener_dealloc},
    {Py_tp_traverse, listener_traverse},
    {Py_tp_clear, listener_clear},
    {Py_tp_methods, listener_methods},
    {Py_tp_members, listener_members},
    {0, NULL},
};

static PyType_Spec listener_spec = {
    .name = "vigil._core.Listener",
    .basicsize = sizeof(ListenerObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = listener_slots,
};

int vpy_server_type_add(PyObject *m, vpy_state *st)
{
    (void)st;
    PyTypeObject *t = (PyTypeObject *)PyType_FromModuleAndSpec(m, &listener_spec, NULL);
    if (!t)
        return -1;
    int r = PyModule_AddType(m, t);
    Py_DECREF(t);
    return r;
}
