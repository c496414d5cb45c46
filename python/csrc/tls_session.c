/* tls_session.c: the life of a TLS connection on vigil's asyncio loop, in C -- its
 * handshake, its shutdown and the state machine between them.
 *
 * What it owns: asyncio.sslproto.SSLProtocol's session methods, written again in C and
 * installed on vigil._loop._SSLProtocol (a subclass of it) with the same names, reading
 * and writing sslproto's own instance attributes, so either side may call the other:
 *   connection_made, connection_lost, eof_received, _set_state, _wakeup_waiter,
 *   _start_handshake, _check_handshake_timeout, _do_handshake, _on_handshake_complete,
 *   _start_shutdown, _check_shutdown_timeout, _do_flush, _do_shutdown,
 *   _on_shutdown_complete, _abort, _call_eof_received, and (tls.c's, exposed here as
 *   methods) _do_read, _do_write, _process_outgoing; plus buffer_updated's dispatch on the
 *   state outside WRAPPED (vpy_tls_session_step, called by tls.c's buffer_updated).
 * The behaviour is CPython 3.11/3.12's sslproto.py, step for step: the states and their
 * allowed transitions (RuntimeError otherwise), the handshake timeout
 * (ConnectionAbortedError through _fatal_error), the shutdown timeout (TimeoutError
 * through the transport's _force_close), close_notify sent by SSLObject.unwrap's C call
 * and seen as a 0-byte read, the extra info set when the handshake completes (peercert,
 * cipher, compression, ssl_object), the waiter's result or exception, connection_made
 * after the handshake, eof_received once. The SSL calls go to the C object under the
 * SSLObject (SSLObject._sslobj: do_handshake, shutdown, getpeercert, cipher,
 * compression), skipping ssl.py's wrapper frames, as tls.c does.
 * Left in sslproto's Python (inherited, called from here): _fatal_error (error reporting
 * and the exception handler), a failed handshake's report (_on_handshake_complete with
 * an exception: the message for a certificate error, _fatal_error, the waiter),
 * everything in debug mode (the handshake's log lines and its timing: the Python
 * methods are called whole when loop.get_debug()), _do_read__buffered (BufferedProtocol
 * apps), _control_app_writing/_control_ssl_reading's pause/resume calls, the flow-control
 * and extra-info accessors. Python 3.13 changed _abort's signature and the app
 * transport's close path, so vigil._loop installs these only on 3.11 and 3.12.
 * What it may call: the CPython C API, tls.c (tls.h), and the Python methods above. */
#include "tls.h"

struct vpy_tls_states vpy_tls_st;

static struct {
    PyObject *app_init, *app_con_made, *app_eof, *app_con_lost; /* AppProtocolState */
    PyObject *ssl_error, *logger;                               /* ssl.SSLError, sslproto.logger */
    PyObject *again;                                            /* SSLAgainErrors */
    PyObject *base_start_handshake, *base_on_handshake_complete, *base_eof_received;
    PyObject *s_state, *s_loop, *s_get_debug, *s_call_later, *s_call_soon, *s_hs_timeout, *s_hs_handle,
        *s_hs_start, *s_sd_timeout, *s_sd_handle, *s_check_hs, *s_check_sd, *s_cancel, *s_waiter, *s_cancelled,
        *s_set_result, *s_set_exception, *s_transport, *s_app_transport, *s_closed, *s_abort, *s_fatal,
        *s_force_close, *s_close, *s_eof_received_attr, *s_eof_received, *s_app_state, *s_app, *s_sslobj,
        *s_extra, *s_peercert, *s_cipher, *s_compression, *s_ssl_object, *s_getpeercert, *s_do_handshake,
        *s_shutdown, *s_get_app_transport, *s_connection_made, *s_connection_lost, *s_app_rpaused,
        *s_backlog, *s_outgoing, *s_read, *s_clear, *s_conn_lost, *s_warning, *s_empty, *s_msg_eof,
        *s_msg_keep_open;
    int ready;
} S;

#define GS(o, name) vpy_tls_get((o), S.name)

static int set_attr(PyObject *o, PyObject *name, PyObject *v)
{
    return PyObject_SetAttr(o, name, v);
}

/* Calls o.name(*args) and drops the result: 0, or -1 with the exception set. */
static int call_drop(PyObject *o, PyObject *name, PyObject *arg)
{
    PyObject *r = arg ? PyObject_CallMethodOneArg(o, name, arg) : PyObject_CallMethodNoArgs(o, name);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

static int state_is(PyObject *proto, PyObject *want)
{
    PyObject *st = GS(proto, s_state);
    if (!st)
        return -1;
    int r = st == want;
    Py_DECREF(st);
    return r;
}

/* loop.get_debug() of the protocol's loop: 1, 0, or -1. */
static int debug_on(PyObject *proto)
{
    PyObject *loop = GS(proto, s_loop);
    PyObject *d = loop ? PyObject_CallMethodNoArgs(loop, S.s_get_debug) : NULL;
    Py_XDECREF(loop);
    if (!d)
        return -1;
    int r = PyObject_IsTrue(d);
    Py_DECREF(d);
    return r;
}

/* The handle in proto.<name>, if any, cancelled and the attribute set to None. */
static int cancel_handle(PyObject *proto, PyObject *name)
{
    PyObject *h = vpy_tls_get(proto, name);
    if (!h)
        return -1;
    int rc = 0;
    if (h != Py_None)
        rc = call_drop(h, S.s_cancel, NULL) < 0 || set_attr(proto, name, Py_None) < 0 ? -1 : 0;
    Py_DECREF(h);
    return rc;
}

/* _set_state(new_state): sslproto's allowed transitions. */
static int set_state(PyObject *proto, PyObject *to)
{
    PyObject *cur = GS(proto, s_state);
    if (!cur)
        return -1;
    struct vpy_tls_states *t = &vpy_tls_st;
    int ok = to == t->unwrapped || (cur == t->unwrapped && to == t->do_handshake) ||
             (cur == t->do_handshake && to == t->wrapped) || (cur == t->wrapped && to == t->flushing) ||
             (cur == t->flushing && to == t->shutdown);
    int rc = -1;
    if (ok)
        rc = set_attr(proto, S.s_state, to);
    else
        PyErr_Format(PyExc_RuntimeError, "cannot switch state from %S to %S", cur, to);
    Py_DECREF(cur);
    return rc;
}

/* _wakeup_waiter(exc): exc NULL or None for the result. */
static int wakeup_waiter(PyObject *proto, PyObject *exc)
{
    PyObject *w = GS(proto, s_waiter);
    if (!w)
        return -1;
    if (w == Py_None) {
        Py_DECREF(w);
        return 0;
    }
    int rc = -1;
    PyObject *c = PyObject_CallMethodNoArgs(w, S.s_cancelled);
    int cancelled = c ? PyObject_IsTrue(c) : -1;
    Py_XDECREF(c);
    if (cancelled < 0)
        goto out;
    if (!cancelled) {
        int r = exc && exc != Py_None ? call_drop(w, S.s_set_exception, exc) : call_drop(w, S.s_set_result, Py_None);
        if (r < 0)
            goto out;
    }
    rc = set_attr(proto, S.s_waiter, Py_None);
out:
    Py_DECREF(w);
    return rc;
}

/* loop.call_later(proto.<delay>, proto.<method>), the handle into proto.<handle>. */
static int arm_timer(PyObject *proto, PyObject *delay_name, PyObject *meth_name, PyObject *handle_name)
{
    PyObject *loop = GS(proto, s_loop), *delay = loop ? vpy_tls_get(proto, delay_name) : NULL;
    PyObject *cb = delay ? PyObject_GetAttr(proto, meth_name) : NULL;
    PyObject *h = cb ? PyObject_CallMethodObjArgs(loop, S.s_call_later, delay, cb, NULL) : NULL;
    int rc = h ? set_attr(proto, handle_name, h) : -1;
    Py_XDECREF(h);
    Py_XDECREF(cb);
    Py_XDECREF(delay);
    Py_XDECREF(loop);
    return rc;
}

static int on_handshake_complete(PyObject *proto, PyObject *exc);

/* _do_handshake */
static int do_handshake(PyObject *proto)
{
    PyObject *inner = vpy_tls_inner(proto);
    if (!inner)
        return -1;
    PyObject *r = PyObject_CallMethodNoArgs(inner, S.s_do_handshake);
    Py_DECREF(inner);
    if (r) {
        Py_DECREF(r);
        return on_handshake_complete(proto, NULL);
    }
    if (PyErr_ExceptionMatches(S.again)) {
        PyErr_Clear();
        return vpy_tls_process_outgoing(proto);
    }
    if (!PyErr_ExceptionMatches(S.ssl_error))
        return -1;
    PyObject *e = vpy_fetch_exc();
    int rc = on_handshake_complete(proto, e);
    Py_DECREF(e);
    return rc;
}

/* sslproto's own _on_handshake_complete(exc), the timeout handle already cleared (it
 * skips that step): for a failed handshake's report (state UNWRAPPED, the message,
 * _fatal_error, the waiter's exception) and, with exc None, in debug mode (its log line
 * with the handshake's duration). */
static int py_handshake_complete(PyObject *proto, PyObject *exc)
{
    PyObject *r = PyObject_CallFunctionObjArgs(S.base_on_handshake_complete, proto, exc, NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* _on_handshake_complete(handshake_exc): exc NULL for success. */
static int on_handshake_complete(PyObject *proto, PyObject *exc)
{
    if (cancel_handle(proto, S.s_hs_handle) < 0)
        return -1;
    if (exc && exc != Py_None)
        return py_handshake_complete(proto, exc);
    int dbg = debug_on(proto);
    if (dbg < 0)
        return -1;
    if (dbg) /* the log line with the handshake's duration: sslproto's */
        return py_handshake_complete(proto, Py_None);
    PyObject *sslobj = GS(proto, s_sslobj), *inner = NULL, *peercert = NULL;
    if (!sslobj)
        return -1;
    int rc = -1;
    if (set_state(proto, vpy_tls_st.wrapped) < 0 || !(inner = vpy_tls_inner(proto)) ||
        !(peercert = PyObject_CallMethodNoArgs(inner, S.s_getpeercert))) {
        /* sslproto's `except Exception` around these: reported as a failed handshake */
        if (vpy_exc_escapes() || !PyErr_ExceptionMatches(PyExc_Exception))
            goto out;
        PyObject *e = vpy_fetch_exc();
        rc = py_handshake_complete(proto, e);
        Py_DECREF(e);
        goto out;
    }
    {
        PyObject *extra = GS(proto, s_extra);
        if (!extra)
            goto out;
        PyObject *cipher = PyObject_CallMethodNoArgs(inner, S.s_cipher);
        PyObject *comp = cipher ? PyObject_CallMethodNoArgs(inner, S.s_compression) : NULL;
        int ok = comp && PyObject_SetItem(extra, S.s_peercert, peercert) == 0 &&
                 PyObject_SetItem(extra, S.s_cipher, cipher) == 0 &&
                 PyObject_SetItem(extra, S.s_compression, comp) == 0 &&
                 PyObject_SetItem(extra, S.s_ssl_object, sslobj) == 0;
        Py_XDECREF(cipher);
        Py_XDECREF(comp);
        Py_DECREF(extra);
        if (!ok)
            goto out;
    }
    {
        PyObject *app_state = GS(proto, s_app_state);
        if (!app_state)
            goto out;
        int init = app_state == S.app_init;
        Py_DECREF(app_state);
        if (init) {
            if (set_attr(proto, S.s_app_state, S.app_con_made) < 0)
                goto out;
            PyObject *app = GS(proto, s_app);
            PyObject *tr = app ? PyObject_CallMethodNoArgs(proto, S.s_get_app_transport) : NULL;
            int r = tr ? call_drop(app, S.s_connection_made, tr) : -1;
            Py_XDECREF(tr);
            Py_XDECREF(app);
            if (r < 0)
                goto out;
        }
    }
    if (wakeup_waiter(proto, NULL) < 0)
        goto out;
    rc = vpy_tls_do_read(proto);
out:
    Py_XDECREF(peercert);
    Py_XDECREF(inner);
    Py_DECREF(sslobj);
    return rc;
}

/* _start_handshake */
static int start_handshake(PyObject *proto)
{
    int dbg = debug_on(proto);
    if (dbg < 0)
        return -1;
    if (dbg) { /* the log line and the start time: sslproto's (it calls back into C) */
        PyObject *r = PyObject_CallOneArg(S.base_start_handshake, proto);
        Py_XDECREF(r);
        return r ? 0 : -1;
    }
    if (set_attr(proto, S.s_hs_start, Py_None) < 0 || set_state(proto, vpy_tls_st.do_handshake) < 0 ||
        arm_timer(proto, S.s_hs_timeout, S.s_check_hs, S.s_hs_handle) < 0)
        return -1;
    return do_handshake(proto);
}

/* _abort */
static int do_abort(PyObject *proto)
{
    if (set_state(proto, vpy_tls_st.unwrapped) < 0)
        return -1;
    PyObject *tr = GS(proto, s_transport);
    if (!tr)
        return -1;
    int rc = tr == Py_None ? 0 : call_drop(tr, S.s_abort, NULL);
    Py_DECREF(tr);
    return rc;
}

/* _call_eof_received: the app's eof_received once; its errors to _fatal_error. */
static int call_eof_received(PyObject *proto)
{
    PyObject *app_state = GS(proto, s_app_state);
    if (!app_state)
        return -1;
    int made = app_state == S.app_con_made;
    Py_DECREF(app_state);
    if (!made)
        return 0;
    PyObject *keep = NULL, *app = NULL;
    if (set_attr(proto, S.s_app_state, S.app_eof) == 0 && (app = GS(proto, s_app)) &&
        (keep = PyObject_CallMethodNoArgs(app, S.s_eof_received))) {
        int t = PyObject_IsTrue(keep);
        if (t > 0)
            t = call_drop(S.logger, S.s_warning, S.s_msg_keep_open);
        Py_DECREF(keep);
        if (t >= 0) {
            Py_DECREF(app);
            return 0;
        }
    }
    Py_XDECREF(app);
    if (vpy_exc_escapes())
        return -1;
    PyObject *e = vpy_fetch_exc();
    PyObject *r = PyObject_CallMethodObjArgs(proto, S.s_fatal, e, S.s_msg_eof, NULL);
    Py_DECREF(e);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* _on_shutdown_complete(exc): exc NULL for success. */
static int on_shutdown_complete(PyObject *proto, PyObject *exc)
{
    if (cancel_handle(proto, S.s_sd_handle) < 0)
        return -1;
    if (exc && exc != Py_None) /* sslproto: `if shutdown_exc:` (an exception is true) */
        return call_drop(proto, S.s_fatal, exc);
    PyObject *loop = GS(proto, s_loop), *tr = loop ? GS(proto, s_transport) : NULL;
    PyObject *close = tr ? PyObject_GetAttr(tr, S.s_close) : NULL;
    int rc = close ? call_drop(loop, S.s_call_soon, close) : -1;
    Py_XDECREF(close);
    Py_XDECREF(tr);
    Py_XDECREF(loop);
    return rc;
}

/* _do_shutdown: close_notify out (SSL_shutdown through SSLObject.unwrap's C call) unless
 * the peer's EOF came first; done when the peer's close_notify is in. */
static int do_shutdown(PyObject *proto)
{
    PyObject *eof = GS(proto, s_eof_received_attr);
    if (!eof)
        return -1;
    int peer_eof = PyObject_IsTrue(eof);
    Py_DECREF(eof);
    if (peer_eof < 0)
        return -1;
    if (!peer_eof) {
        PyObject *inner = vpy_tls_inner(proto);
        PyObject *r = inner ? PyObject_CallMethodNoArgs(inner, S.s_shutdown) : NULL;
        Py_XDECREF(inner);
        if (!r) {
            if (PyErr_ExceptionMatches(S.again)) {
                PyErr_Clear();
                return vpy_tls_process_outgoing(proto);
            }
            if (!PyErr_ExceptionMatches(S.ssl_error))
                return -1;
            PyObject *e = vpy_fetch_exc();
            int rc = on_shutdown_complete(proto, e);
            Py_DECREF(e);
            return rc;
        }
        Py_DECREF(r);
    }
    if (vpy_tls_process_outgoing(proto) < 0 || call_eof_received(proto) < 0)
        return -1;
    return on_shutdown_complete(proto, NULL);
}

/* _do_flush */
static int do_flush(PyObject *proto)
{
    if (vpy_tls_do_read(proto) < 0 || set_state(proto, vpy_tls_st.shutdown) < 0)
        return -1;
    return do_shutdown(proto);
}

/* _start_shutdown */
static int start_shutdown(PyObject *proto)
{
    PyObject *st = GS(proto, s_state);
    if (!st)
        return -1;
    struct vpy_tls_states *t = &vpy_tls_st;
    int skip = st == t->flushing || st == t->shutdown || st == t->unwrapped, hs = st == t->do_handshake;
    Py_DECREF(st);
    if (skip)
        return 0;
    PyObject *at = GS(proto, s_app_transport);
    if (!at)
        return -1;
    int rc = at == Py_None ? 0 : set_attr(at, S.s_closed, Py_True);
    Py_DECREF(at);
    if (rc < 0)
        return -1;
    if (hs)
        return do_abort(proto);
    if (set_state(proto, t->flushing) < 0 || arm_timer(proto, S.s_sd_timeout, S.s_check_sd, S.s_sd_handle) < 0)
        return -1;
    return do_flush(proto);
}

int vpy_tls_session_step(PyObject *proto)
{
    PyObject *st = GS(proto, s_state);
    if (!st)
        return -1;
    struct vpy_tls_states *t = &vpy_tls_st;
    int rc = 0;
    if (st == t->do_handshake)
        rc = do_handshake(proto);
    else if (st == t->wrapped)
        rc = vpy_tls_do_read(proto);
    else if (st == t->flushing)
        rc = do_flush(proto);
    else if (st == t->shutdown)
        rc = do_shutdown(proto);
    Py_DECREF(st);
    return rc;
}

/* eof_received: the peer half-closed the TCP stream. */
static int eof_received(PyObject *proto, PyObject **ret)
{
    *ret = Py_None;
    if (set_attr(proto, S.s_eof_received_attr, Py_True) < 0)
        return -1;
    PyObject *st = GS(proto, s_state);
    if (!st)
        return -1;
    struct vpy_tls_states *t = &vpy_tls_st;
    int rc = 0;
    if (st == t->do_handshake) {
        rc = on_handshake_complete(proto, PyExc_ConnectionResetError); /* the class, as sslproto */
    } else if (st == t->wrapped) {
        int paused = -1;
        if (set_state(proto, t->flushing) == 0) {
            PyObject *p = GS(proto, s_app_rpaused);
            paused = p ? PyObject_IsTrue(p) : -1;
            Py_XDECREF(p);
        }
        if (paused < 0)
            rc = -1;
        else if (paused)
            *ret = Py_True;
        else
            rc = do_flush(proto);
    } else if (st == t->flushing) {
        rc = vpy_tls_do_write(proto) < 0 || set_state(proto, t->shutdown) < 0 ? -1 : do_shutdown(proto);
    } else if (st == t->shutdown) {
        rc = do_shutdown(proto);
    }
    Py_DECREF(st);
    if (rc < 0 && !vpy_exc_escapes() && PyErr_ExceptionMatches(PyExc_Exception)) {
        /* sslproto: `except Exception: self._transport.close(); raise` */
        PyObject *e = vpy_fetch_exc();
        PyObject *tr = GS(proto, s_transport);
        int c = tr ? call_drop(tr, S.s_close, NULL) : -1;
        Py_XDECREF(tr);
        if (c < 0) {
            Py_DECREF(e);
            return -1;
        }
        PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(e)), e, PyException_GetTraceback(e));
    }
    return rc;
}

/* connection_lost(exc) */
static int connection_lost(PyObject *proto, PyObject *exc)
{
    PyObject *bl = GS(proto, s_backlog), *out = bl ? GS(proto, s_outgoing) : NULL;
    int rc = out && call_drop(bl, S.s_clear, NULL) == 0 ? call_drop(out, S.s_read, NULL) : -1;
    Py_XDECREF(bl);
    Py_XDECREF(out);
    if (rc < 0)
        return -1;
    PyObject *n = GS(proto, s_conn_lost), *one = n ? PyLong_FromLong(1) : NULL;
    PyObject *n1 = one ? PyNumber_Add(n, one) : NULL;
    Py_XDECREF(one);
    Py_XDECREF(n);
    rc = n1 ? set_attr(proto, S.s_conn_lost, n1) : -1;
    Py_XDECREF(n1);
    if (rc < 0)
        return -1;
    PyObject *at = GS(proto, s_app_transport);
    if (!at)
        return -1;
    rc = at == Py_None ? 0 : set_attr(at, S.s_closed, Py_True);
    Py_DECREF(at);
    if (rc < 0)
        return -1;
    int hs = state_is(proto, vpy_tls_st.do_handshake);
    if (hs < 0)
        return -1;
    if (!hs) {
        PyObject *as = GS(proto, s_app_state);
        if (!as)
            return -1;
        int tell = as == S.app_con_made || as == S.app_eof;
        Py_DECREF(as);
        if (tell) {
            if (set_attr(proto, S.s_app_state, S.app_con_lost) < 0)
                return -1;
            PyObject *loop = GS(proto, s_loop), *app = loop ? GS(proto, s_app) : NULL;
            PyObject *cb = app ? PyObject_GetAttr(app, S.s_connection_lost) : NULL;
            PyObject *h = cb ? PyObject_CallMethodObjArgs(loop, S.s_call_soon, cb, exc, NULL) : NULL;
            Py_XDECREF(h);
            Py_XDECREF(cb);
            Py_XDECREF(app);
            Py_XDECREF(loop);
            if (!h)
                return -1;
        }
    }
    if (set_state(proto, vpy_tls_st.unwrapped) < 0 || set_attr(proto, S.s_transport, Py_None) < 0 ||
        set_attr(proto, S.s_app_transport, Py_None) < 0 || set_attr(proto, S.s_app, Py_None) < 0 ||
        wakeup_waiter(proto, exc) < 0 || cancel_handle(proto, S.s_sd_handle) < 0 ||
        cancel_handle(proto, S.s_hs_handle) < 0)
        return -1;
    return 0;
}

/* ---- the methods (self first: installed on the class as instance methods) ---------- */

static int nargs_ok(Py_ssize_t nargs, Py_ssize_t want, const char *sig)
{
    if (nargs == want)
        return 1;
    PyErr_Format(PyExc_TypeError, "%s", sig);
    return 0;
}

#define METHOD0(name, fn)                                                                                              \
    static PyObject *m_##name(PyObject *m, PyObject *const *a, Py_ssize_t n)                                          \
    {                                                                                                                  \
        if (!nargs_ok(n, 1, #name "(self)"))                                                                           \
            return NULL;                                                                                               \
        return fn(a[0]) < 0 ? NULL : Py_NewRef(Py_None);                                                              \
    }
METHOD0(_start_handshake, start_handshake)
METHOD0(_do_handshake, do_handshake)
METHOD0(_start_shutdown, start_shutdown)
METHOD0(_do_flush, do_flush)
METHOD0(_do_shutdown, do_shutdown)
METHOD0(_abort, do_abort)
METHOD0(_call_eof_received, call_eof_received)
METHOD0(_do_read, vpy_tls_do_read)
METHOD0(_do_write, vpy_tls_do_write)
METHOD0(_process_outgoing, vpy_tls_process_outgoing)

static PyObject *m_connection_made(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 2, "connection_made(self, transport)"))
        return NULL;
    if (set_attr(a[0], S.s_transport, a[1]) < 0 || start_handshake(a[0]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *m_connection_lost(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 2, "connection_lost(self, exc)"))
        return NULL;
    return connection_lost(a[0], a[1]) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *m_eof_received(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 1, "eof_received(self)"))
        return NULL;
    int dbg = debug_on(a[0]);
    if (dbg < 0)
        return NULL;
    if (dbg) /* its log line: sslproto's (it calls back into C) */
        return PyObject_CallOneArg(S.base_eof_received, a[0]);
    PyObject *ret;
    return eof_received(a[0], &ret) < 0 ? NULL : Py_NewRef(ret);
}

static PyObject *m_set_state(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 2, "_set_state(self, new_state)"))
        return NULL;
    return set_state(a[0], a[1]) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *m_wakeup_waiter(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (n != 1 && !nargs_ok(n, 2, "_wakeup_waiter(self, exc=None)"))
        return NULL;
    return wakeup_waiter(a[0], n == 2 ? a[1] : NULL) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *m_on_handshake_complete(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 2, "_on_handshake_complete(self, handshake_exc)"))
        return NULL;
    return on_handshake_complete(a[0], a[1]) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *m_on_shutdown_complete(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 2, "_on_shutdown_complete(self, shutdown_exc)"))
        return NULL;
    return on_shutdown_complete(a[0], a[1]) < 0 ? NULL : Py_NewRef(Py_None);
}

/* _check_handshake_timeout: still handshaking when the timer fires -> ConnectionAbortedError. */
static PyObject *m_check_handshake_timeout(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 1, "_check_handshake_timeout(self)"))
        return NULL;
    int hs = state_is(a[0], vpy_tls_st.do_handshake);
    if (hs <= 0)
        return hs < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *t = GS(a[0], s_hs_timeout), *ts = t ? PyObject_Format(t, S.s_empty) : NULL;
    Py_XDECREF(t);
    PyObject *msg = ts ? PyUnicode_FromFormat("SSL handshake is taking longer than %U seconds: aborting the connection",
                                              ts)
                       : NULL;
    Py_XDECREF(ts);
    PyObject *exc = msg ? PyObject_CallOneArg(PyExc_ConnectionAbortedError, msg) : NULL;
    Py_XDECREF(msg);
    if (!exc)
        return NULL;
    int rc = call_drop(a[0], S.s_fatal, exc);
    Py_DECREF(exc);
    return rc < 0 ? NULL : Py_NewRef(Py_None);
}

/* _check_shutdown_timeout: still flushing or shutting down -> the transport force-closed
 * with TimeoutError('SSL shutdown timed out'). */
static PyObject *m_check_shutdown_timeout(PyObject *m, PyObject *const *a, Py_ssize_t n)
{
    if (!nargs_ok(n, 1, "_check_shutdown_timeout(self)"))
        return NULL;
    PyObject *st = GS(a[0], s_state);
    if (!st)
        return NULL;
    int go = st == vpy_tls_st.flushing || st == vpy_tls_st.shutdown;
    Py_DECREF(st);
    if (!go)
        Py_RETURN_NONE;
    PyObject *exc = PyObject_CallFunction(PyExc_TimeoutError, "s", "SSL shutdown timed out");
    PyObject *tr = exc ? GS(a[0], s_transport) : NULL;
    int rc = tr ? call_drop(tr, S.s_force_close, exc) : -1;
    Py_XDECREF(tr);
    Py_XDECREF(exc);
    return rc < 0 ? NULL : Py_NewRef(Py_None);
}

#define FC(name) {#name, (PyCFunction)(void (*)(void))m_##name, METH_FASTCALL, NULL}
static PyMethodDef session_defs[] = {
    FC(connection_made),
    FC(connection_lost),
    FC(eof_received),
    {"_set_state", (PyCFunction)(void (*)(void))m_set_state, METH_FASTCALL, NULL},
    {"_wakeup_waiter", (PyCFunction)(void (*)(void))m_wakeup_waiter, METH_FASTCALL, NULL},
    FC(_start_handshake),
    {"_check_handshake_timeout", (PyCFunction)(void (*)(void))m_check_handshake_timeout, METH_FASTCALL, NULL},
    FC(_do_handshake),
    {"_on_handshake_complete", (PyCFunction)(void (*)(void))m_on_handshake_complete, METH_FASTCALL, NULL},
    FC(_start_shutdown),
    {"_check_shutdown_timeout", (PyCFunction)(void (*)(void))m_check_shutdown_timeout, METH_FASTCALL, NULL},
    FC(_do_flush),
    FC(_do_shutdown),
    {"_on_shutdown_complete", (PyCFunction)(void (*)(void))m_on_shutdown_complete, METH_FASTCALL, NULL},
    FC(_abort),
    FC(_call_eof_received),
    FC(_do_read),
    FC(_do_write),
    FC(_process_outgoing),
    {NULL, NULL, 0, NULL},
};

static int member(PyObject *enum_cls, const char *name, PyObject **out)
{
    PyObject *v = PyObject_GetAttrString(enum_cls, name);
    if (!v)
        return -1;
    Py_XSETREF(*out, v);
    return 0;
}

/* _tls_session_init(SSLProtocolState, AppProtocolState, SSLProtocol, ssl.SSLError,
 * SSLAgainErrors, sslproto.logger): returns {name: method} for vigil._loop._SSLProtocol. */
static PyObject *mod_tls_session_init(PyObject *m, PyObject *args)
{
    PyObject *sps, *aps, *base, *sslerr, *again, *logger;
    if (!PyArg_ParseTuple(args, "OOOOOO", &sps, &aps, &base, &sslerr, &again, &logger))
        return NULL;
    if (!S.ready) {
#define I(f, s)                                                                                                        \
    if (!(S.f = PyUnicode_InternFromString(s)))                                                                       \
        return NULL;
        I(s_state, "_state") I(s_loop, "_loop") I(s_get_debug, "get_debug") I(s_call_later, "call_later")
        I(s_call_soon, "call_soon") I(s_hs_timeout, "_ssl_handshake_timeout")
        I(s_hs_handle, "_handshake_timeout_handle") I(s_hs_start, "_handshake_start_time")
        I(s_sd_timeout, "_ssl_shutdown_timeout") I(s_sd_handle, "_shutdown_timeout_handle")
        I(s_check_hs, "_check_handshake_timeout") I(s_check_sd, "_check_shutdown_timeout") I(s_cancel, "cancel")
        I(s_waiter, "_waiter") I(s_cancelled, "cancelled") I(s_set_result, "set_result")
        I(s_set_exception, "set_exception") I(s_transport, "_transport") I(s_app_transport, "_app_transport")
        I(s_closed, "_closed") I(s_abort, "abort") I(s_fatal, "_fatal_error") I(s_force_close, "_force_close")
        I(s_close, "close") I(s_eof_received_attr, "_eof_received") I(s_eof_received, "eof_received")
        I(s_app_state, "_app_state") I(s_app, "_app_protocol") I(s_sslobj, "_sslobj") I(s_extra, "_extra")
        I(s_peercert, "peercert") I(s_cipher, "cipher") I(s_compression, "compression")
        I(s_ssl_object, "ssl_object") I(s_getpeercert, "getpeercert") I(s_do_handshake, "do_handshake")
        I(s_shutdown, "shutdown") I(s_get_app_transport, "_get_app_transport")
        I(s_connection_made, "connection_made") I(s_connection_lost, "connection_lost")
        I(s_app_rpaused, "_app_reading_paused") I(s_backlog, "_write_backlog") I(s_outgoing, "_outgoing")
        I(s_read, "read") I(s_clear, "clear") I(s_conn_lost, "_conn_lost") I(s_warning, "warning")
        I(s_empty, "") I(s_msg_eof, "Error calling eof_received()")
        I(s_msg_keep_open, "returning true from eof_received() has no effect when using ssl")
#undef I
        S.ready = 1;
    }
    if (member(sps, "UNWRAPPED", &vpy_tls_st.unwrapped) < 0 || member(sps, "DO_HANDSHAKE", &vpy_tls_st.do_handshake) < 0 ||
        member(sps, "WRAPPED", &vpy_tls_st.wrapped) < 0 || member(sps, "FLUSHING", &vpy_tls_st.flushing) < 0 ||
        member(sps, "SHUTDOWN", &vpy_tls_st.shutdown) < 0 || member(aps, "STATE_INIT", &S.app_init) < 0 ||
        member(aps, "STATE_CON_MADE", &S.app_con_made) < 0 || member(aps, "STATE_EOF", &S.app_eof) < 0 ||
        member(aps, "STATE_CON_LOST", &S.app_con_lost) < 0 ||
        member(base, "_start_handshake", &S.base_start_handshake) < 0 ||
        member(base, "_on_handshake_complete", &S.base_on_handshake_complete) < 0 ||
        member(base, "eof_received", &S.base_eof_received) < 0)
        return NULL;
    Py_XSETREF(S.ssl_error, Py_NewRef(sslerr));
    Py_XSETREF(S.again, Py_NewRef(again));
    Py_XSETREF(S.logger, Py_NewRef(logger));
    return vpy_tls_method_dict(session_defs);
}

static PyMethodDef session_mod_defs[] = {
    {"_tls_session_init", mod_tls_session_init, METH_VARARGS, "The TLS session's C methods (tls_session.c)."},
    {NULL, NULL, 0, NULL},
};

int vpy_tls_session_add(PyObject *m, vpy_state *st)
{
    (void)st;
    return PyModule_AddFunctions(m, session_mod_defs);
}
