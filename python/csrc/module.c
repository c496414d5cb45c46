/* vigil._core: the asyncio loop's hot core over libvigil. The Python layer
 * (vigil/_loop.py) subclasses Loop and wraps TransportIO; everything a running loop does
 * every turn is here, in C.
 *
 * The files, one concept each (loop.h draws the layers):
 *   module.c    this: the module, its state (module.h), multi-phase init (PEP 489)
 *   ring.c      the one FIFO ring (ring.h)
 *   runloop.c   handle lifecycle lists, recorded events, the ready queue, the turn
 *   handle.c    Handle, TimerHandle and its vigil timer (handle.h)
 *   io.c        readers and writers (add_reader/add_writer)
 *   loop.c      the Loop type: create/close, call_soon/call_later/call_at
 *   stream.c    the stream socket transport's read/write path (TransportIO)
 *   transport_new.c  making a stream transport (the SocketTransport shell, its
 *               TransportIO, extra info, server attach, connection_made queued)
 *   mq.c        vigil's POSIX message queues for the loop (MQ; vigil.mq's core)
 *   proc.c      child processes by vigil_proc, exit by pidfd (Process; the subprocess
 *               transport's core, its pipes the stream transport's sockets)
 *   tls.c       the TLS record path under asyncio's SSLProtocol (vigil._loop._SSLProtocol)
 *   tls_session.c  the TLS session: handshake, shutdown, close_notify, their timeouts
 *   sock.c      sock_recv, sock_recv_into, sock_sendall (SockCall, a coroutine-like awaitable)
 *   dgram.c     the datagram transport (DgramIO)
 *   server.c    the listening server (accept in C)
 *   file.c      file I/O through vigil's file engine (FileIO, file_open, file_stat...) */
#include "module.h"

#include <errno.h>

#include "vigil.h"

vpy_state *vpy_state_of_type(PyTypeObject *type)
{
    PyObject *m = PyType_GetModuleByDef(type, &vpy_moduledef);
    return m ? PyModule_GetState(m) : NULL;
}

PyObject *vpy_fetch_exc(void)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb && v)
        PyException_SetTraceback(v, tb);
    Py_XDECREF(t);
    Py_XDECREF(tb);
    return v;
}

PyObject *vpy_set_oserror(int err)
{
    errno = err;
    return PyErr_SetFromErrno(PyExc_OSError);
}

/* _set_hooks(handle_repr): vigil._loop's repr for handles. */
static PyObject *mod_set_hooks(PyObject *m, PyObject *args)
{
    PyObject *repr;
    if (!PyArg_ParseTuple(args, "O", &repr))
        return NULL;
    vpy_state *st = PyModule_GetState(m);
    Py_XINCREF(repr);
    Py_XSETREF(st->hook_handle_repr, repr);
    Py_RETURN_NONE;
}

static PyObject *mod_monotonic_ns(PyObject *m, PyObject *unused)
{
    return PyLong_FromLongLong(vpy_mono_ns());
}

static PyMethodDef mod_methods[] = {
    {"_set_hooks", mod_set_hooks, METH_VARARGS, NULL},
    {"monotonic_ns", mod_monotonic_ns, METH_NOARGS, "CLOCK_MONOTONIC in ns."},
    {NULL},
};

static int mod_exec(PyObject *m)
{
    vpy_state *st = PyModule_GetState(m);
    if (!(st->kw_loop = Py_BuildValue("(s)", "loop")) || !(st->minus_one = PyLong_FromLong(-1)) ||
        !(st->str_protocol_paused = PyUnicode_InternFromString("_protocol_paused")))
        return -1;
    if (vpy_handle_types_add(m, st) < 0 || vpy_loop_type_add(m, st) < 0 || vpy_stream_type_add(m, st) < 0 ||
        vpy_tls_add(m, st) < 0 || vpy_tls_session_add(m, st) < 0 ||
        vpy_mq_type_add(m, st) < 0 || vpy_proc_type_add(m, st) < 0 ||
        vpy_file_type_add(m, st) < 0 || vpy_server_type_add(m, st) < 0 ||
        vpy_dgram_type_add(m, st) < 0 || vpy_sock_add(m, st) < 0 || vpy_trnew_add(m, st) < 0)
        return -1;
    return PyModule_AddStringConstant(m, "libvigil_version", vigil_version_string());
}

static int mod_traverse(PyObject *m, visitproc visit, void *arg)
{
    vpy_state *st = PyModule_GetState(m);
    Py_VISIT(st->handle_type);
    Py_VISIT(st->timer_type);
    Py_VISIT(st->loop_type);
    Py_VISIT(st->stream_type);
    Py_VISIT(st->hook_handle_repr);
    Py_VISIT(st->futures_mod);
    Py_VISIT(st->kw_loop);
    Py_VISIT(st->minus_one);
    Py_VISIT(st->str_protocol_paused);
    Py_VISIT(st->sockcall_type);
    Py_VISIT(st->socket_type);
    Py_VISIT(st->sock_context);
    return vpy_trnew_traverse(st, visit, arg);
}

static int mod_clear(PyObject *m)
{
    vpy_state *st = PyModule_GetState(m);
    Py_CLEAR(st->handle_type);
    Py_CLEAR(st->timer_type);
    Py_CLEAR(st->loop_type);
    Py_CLEAR(st->stream_type);
    Py_CLEAR(st->hook_handle_repr);
    Py_CLEAR(st->futures_mod);
    Py_CLEAR(st->kw_loop);
    Py_CLEAR(st->minus_one);
    Py_CLEAR(st->str_protocol_paused);
    Py_CLEAR(st->sockcall_type);
    Py_CLEAR(st->socket_type);
    Py_CLEAR(st->sock_context);
    vpy_trnew_clear(st, 0);
    return 0;
}

static void mod_free(void *m)
{
    mod_clear(m);
    vpy_trnew_clear(PyModule_GetState(m), 1);
    vpy_handles_free(PyModule_GetState(m));
}

static PyModuleDef_Slot mod_slots[] = {
    {Py_mod_exec, mod_exec},
    {0, NULL},
};

struct PyModuleDef vpy_moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "vigil._core",
    .m_doc = "vigil's asyncio loop core (C, over libvigil).",
    .m_size = sizeof(vpy_state),
    .m_methods = mod_methods,
    .m_slots = mod_slots,
    .m_traverse = mod_traverse,
    .m_clear = mod_clear,
    .m_free = mod_free,
};

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModuleDef_Init(&vpy_moduledef);
}
