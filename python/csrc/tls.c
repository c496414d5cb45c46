/* tls.c: the TLS record path of vigil's asyncio loop, in C.
 *
 * What it owns: the per-record work of a TLS connection once its handshake is done --
 * ciphertext from the stream transport into the incoming MemoryBIO, plaintext out of the
 * SSL object to the application protocol, application writes encrypted and the outgoing
 * MemoryBIO flushed to the stream transport -- plus get_buffer, in every state. What it
 * may call: the CPython C API, the `ssl` module's objects through it, tls_session.c
 * (tls.h: the state dispatch outside WRAPPED), and the methods of the protocol, C
 * (tls_session.c's) or Python (asyncio.sslproto.SSLProtocol's, inherited).
 *
 * Why Python's ssl objects and not vigil's own TLS layer (src/tls): the user hands
 * create_connection/create_server/start_tls an `ssl.SSLContext`, and everything it
 * carries (certificates, verification mode and callbacks, SNI callback, ALPN, ciphers,
 * session tickets, keylog) must be honoured. Its SSL_CTX is not reachable from C
 * portably (no public API exposes it; the struct layout of _ssl's objects is private
 * and changes between CPython versions), so the records go through the context's own
 * `ssl.SSLObject` and two `ssl.MemoryBIO`s, called through the C API. The calls go to
 * the C objects underneath (SSLObject._sslobj, an _ssl._SSLSocket; MemoryBIO is
 * _ssl.MemoryBIO itself), skipping the Python frames of ssl.SSLObject's wrappers.
 *
 * Division of work with asyncio.sslproto (vigil._loop._SSLProtocol subclasses it):
 *   here, in C:  get_buffer; buffer_updated (in the WRAPPED state: one incoming.write per
 *                stream read, SSL reads straight into the bytes object handed to the one
 *                data_received per read batch -- sized by the ciphertext in the BIO, which
 *                the plaintext never exceeds -- one outgoing.read per flush; in the other
 *                states, or paused, or a BufferedProtocol app: the incoming.write and
 *                tls_session.c's dispatch on the state); _do_read, _do_write and
 *                _process_outgoing (tls.h: tls_session.c installs them as methods); the
 *                app transport's write (one SSLObject write per transport.write, then the
 *                flush). Per protocol, a tuple in its __dict__ caches the SSL object, the
 *                BIOs and the bound methods, so a record costs no method lookups.
 *   tls_session.c: the handshake, shutdown (close_notify), their timeouts, eof_received,
 *                connection_made/lost (its header says what of those stays Python).
 *   sslproto's Python: _do_read__buffered (BufferedProtocol apps), writelines, abort,
 *                extra info, the flow-control transitions (pause/resume called only when
 *                a watermark is crossed: checked here inline), _fatal_error.
 * Every fast path below checks its preconditions and otherwise calls the inherited
 * Python method, so behaviour is sslproto's by construction. */
#include "tls.h"

/* Objects looked up once per module exec; the fast paths compare and call with them. */
static struct {
    PyObject *state_wrapped;  /* asyncio.sslproto.SSLProtocolState.WRAPPED */
    PyObject *again;          /* asyncio.sslproto.SSLAgainErrors (a tuple) */
    PyObject *base_buffer_updated, *base_get_buffer, *base_write_appdata; /* fallbacks */
    PyObject *s_state, *s_sslobj, *s_incoming, *s_outgoing, *s_buf, *s_view, *s_app_paused,
        *s_app_is_buffer, *s_app, *s_backlog, *s_ssl_wpaused, *s_transport, *s_wbsize, *s_app_wpaused,
        *s_ohigh, *s_olow, *s_ihigh, *s_ilow, *s_ssl_rpaused, *s_max_size, *s_sslproto, *s_pending,
        *s_read, *s_write, *s_data_received, *s_fatal, *s_ctl_app_writing, *s_ctl_ssl_reading,
        *s_call_eof, *s_start_shutdown, *s_do_write, *s_inner, *s_msg_fatal, *s_read_buffered;
    PyObject *s_cache, *s_append;
    PyTypeObject *bio_type; /* ssl.MemoryBIO, and its pending getter */
    getter bio_pending;
    int ready;
} T;

/* getattr (a new reference, or NULL with the exception set), looking in the instance's
 * __dict__ first: the attributes read here are plain instance attributes of sslproto's
 * objects (no data descriptors of those names), and a dict lookup with an interned name
 * costs a fraction of the generic getattr's type walk (measured: the generic getattr
 * was the top Python symbol of a 64 B TLS echo server's profile). */
static PyObject *fast_get(PyObject *o, PyObject *name)
{
#if PY_VERSION_HEX < 0x030D0000
    PyObject **dp = _PyObject_GetDictPtr(o);
    if (dp && *dp) {
        PyObject *v = PyDict_GetItemWithError(*dp, name);
        if (v)
            return Py_NewRef(v);
        if (PyErr_Occurred())
            return NULL;
    }
#endif
    return PyObject_GetAttr(o, name);
}
#define GA(o, name) fast_get((o), T.name)

PyObject *vpy_tls_get(PyObject *o, PyObject *name)
{
    return fast_get(o, name);
}

static int truthy_attr(PyObject *o, PyObject *name)
{
    PyObject *v = fast_get(o, name);
    if (!v)
        return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

static int ssize_attr(PyObject *o, PyObject *name, Py_ssize_t *out)
{
    PyObject *v = fast_get(o, name);
    if (!v)
        return -1;
    *out = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *call_method0(PyObject *o, PyObject *name)
{
    return PyObject_CallMethodNoArgs(o, name);
}

/* A MemoryBIO's pending, through its type's getter (no attribute lookup per call). */
static int bio_pending(PyObject *bio, Py_ssize_t *out)
{
    PyObject *v;
    if (Py_TYPE(bio) == T.bio_type && T.bio_pending)
        v = T.bio_pending(bio, NULL);
    else
        v = PyObject_GetAttr(bio, T.s_pending);
    if (!v)
        return -1;
    *out = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* Per protocol, kept in its __dict__ as "_vigil_tls" and rebuilt whenever its _sslobj is
 * another object: a tuple of what every record needs -- the SSLObject it was made for,
 * the C object under it (SSLObject._sslobj, skipping ssl.py's wrapper frames), the two
 * BIOs and the bound methods called per record. A new reference, or NULL. */
enum { C_SO, C_INNER, C_IN, C_OUT, C_IN_WRITE, C_SSL_READ, C_SSL_WRITE, C_SSL_PENDING, C_OUT_READ, C_N };
static PyObject *get_cache(PyObject *proto)
{
    PyObject *so = GA(proto, s_sslobj);
    if (!so)
        return NULL;
    PyObject *c = fast_get(proto, T.s_cache);
    if (c && PyTuple_CheckExact(c) && PyTuple_GET_SIZE(c) == C_N && PyTuple_GET_ITEM(c, C_SO) == so) {
        Py_DECREF(so);
        return c;
    }
    PyErr_Clear();
    Py_XDECREF(c);
    PyObject *inner = PyObject_GetAttr(so, T.s_inner);
    if (!inner || inner == Py_None) {
        PyErr_Clear();
        Py_XDECREF(inner);
        inner = Py_NewRef(so);
    }
    PyObject *in = GA(proto, s_incoming), *out = GA(proto, s_outgoing);
    c = NULL;
    if (in && out) {
        PyObject *m[4] = {PyObject_GetAttr(in, T.s_write), PyObject_GetAttr(inner, T.s_read),
                          PyObject_GetAttr(inner, T.s_write), PyObject_GetAttr(inner, T.s_pending)};
        PyObject *oread = PyObject_GetAttr(out, T.s_read);
        if (m[0] && m[1] && m[2] && m[3] && oread)
            c = PyTuple_Pack(C_N, so, inner, in, out, m[0], m[1], m[2], m[3], oread);
        for (int i = 0; i < 4; i++)
            Py_XDECREF(m[i]);
        Py_XDECREF(oread);
        if (c && PyObject_SetAttr(proto, T.s_cache, c) < 0)
            Py_CLEAR(c);
        if (c && !T.bio_pending) { /* MemoryBIO's pending getter, found once */
            PyObject *d = _PyType_Lookup(Py_TYPE(in), T.s_pending);
            if (d && Py_TYPE(d) == &PyGetSetDescr_Type) {
                T.bio_type = Py_TYPE(in);
                T.bio_pending = ((PyGetSetDescrObject *)d)->d_getset->get;
            }
        }
    }
    Py_XDECREF(in);
    Py_XDECREF(out);
    Py_DECREF(inner);
    Py_DECREF(so);
    return c;
}
#define CI(c, i) PyTuple_GET_ITEM((c), (i))

/* self._fatal_error(exc, 'Fatal error on SSL protocol') for the exception being raised,
 * as sslproto's _do_read/_write_appdata do; SystemExit/KeyboardInterrupt stay raised. */
static int fatal(PyObject *proto)
{
    if (vpy_exc_escapes() || !PyErr_ExceptionMatches(PyExc_Exception))
        return -1;
    PyObject *exc = vpy_fetch_exc();
    PyObject *r = PyObject_CallMethodObjArgs(proto, T.s_fatal, exc, T.s_msg_fatal, NULL);
    Py_DECREF(exc);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* sslproto's _control_app_writing(), called only when a watermark is crossed. */
static int control_app_writing(PyObject *proto, PyObject *outgoing)
{
    Py_ssize_t pend, wb, high, low;
    if (bio_pending(outgoing, &pend) < 0 || ssize_attr(proto, T.s_wbsize, &wb) < 0 ||
        ssize_attr(proto, T.s_ohigh, &high) < 0 || ssize_attr(proto, T.s_olow, &low) < 0)
        return -1;
    int paused = truthy_attr(proto, T.s_app_wpaused);
    if (paused < 0)
        return -1;
    Py_ssize_t size = pend + wb;
    if ((size >= high && !paused) || (size <= low && paused)) {
        PyObject *r = call_method0(proto, T.s_ctl_app_writing);
        if (!r)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

/* sslproto's _process_outgoing(): one outgoing.read(), one transport.write(). */
static int process_outgoing(PyObject *proto, PyObject *c)
{
    PyObject *outgoing = CI(c, C_OUT);
    int wpaused = truthy_attr(proto, T.s_ssl_wpaused);
    if (wpaused < 0)
        return -1;
    if (!wpaused) {
        Py_ssize_t pend;
        if (bio_pending(outgoing, &pend) < 0)
            return -1;
        if (pend > 0) {
            PyObject *data = PyObject_CallNoArgs(CI(c, C_OUT_READ));
            if (!data)
                return -1;
            PyObject *tr = GA(proto, s_transport);
            if (!tr) {
                Py_DECREF(data);
                return -1;
            }
            PyObject *r = PyObject_CallMethodOneArg(tr, T.s_write, data);
            Py_DECREF(tr);
            Py_DECREF(data);
            if (!r)
                return -1;
            Py_DECREF(r);
        }
    }
    return control_app_writing(proto, outgoing);
}

/* sslproto's _control_ssl_reading(), called only when a watermark is crossed. */
static int control_ssl_reading(PyObject *proto, PyObject *incoming)
{
    Py_ssize_t size, high, low;
    if (bio_pending(incoming, &size) < 0 || ssize_attr(proto, T.s_ihigh, &high) < 0 ||
        ssize_attr(proto, T.s_ilow, &low) < 0)
        return -1;
    int paused = truthy_attr(proto, T.s_ssl_rpaused);
    if (paused < 0)
        return -1;
    if ((size >= high && !paused) || (size <= low && paused)) {
        PyObject *r = call_method0(proto, T.s_ctl_ssl_reading);
        if (!r)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

static PyObject *fallback(PyObject *meth, PyObject *self, PyObject *arg)
{
    return PyObject_CallFunctionObjArgs(meth, self, arg, NULL);
}

/* get_buffer(n): the protocol's receive buffer, as sslproto's (Python only to grow it). */
static PyObject *tls_get_buffer(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "get_buffer(self, n)");
        return NULL;
    }
    PyObject *self = args[0];
    Py_ssize_t want = PyLong_AsSsize_t(args[1]), max, have;
    if (want == -1 && PyErr_Occurred())
        return NULL;
    if (ssize_attr(self, T.s_max_size, &max) < 0)
        return NULL;
    if (want <= 0 || want > max)
        want = max;
    PyObject *buf = GA(self, s_buf);
    if (!buf)
        return NULL;
    have = PyByteArray_Check(buf) ? PyByteArray_GET_SIZE(buf) : -1;
    Py_DECREF(buf);
    if (have < want)
        return fallback(T.base_get_buffer, self, args[1]);
    return GA(self, s_view);
}

/* Reads every plaintext byte the SSL object can give now into buf (cap bytes, reused),
 * handing full buffers to data_received as it goes: the common case is one read, one
 * data_received. *eof is set on close_notify. -1 with the exception set on error. */
static int read_plain(PyObject *proto, PyObject *c, char *base, Py_ssize_t cap, int *eof, PyObject **direct)
{
    PyObject *incoming = CI(c, C_IN);
    Py_ssize_t off = 0;
    PyObject *chunks = NULL; /* only when more than cap bytes come in one go */
    int rc = 0;
    *eof = 0;
    for (;;) {
        PyObject *mv = PyMemoryView_FromMemory(base + off, cap - off, PyBUF_WRITE);
        if (!mv) {
            rc = -1;
            break;
        }
        PyObject *n = PyLong_FromSsize_t(cap - off);
        PyObject *rargs[2] = {n, mv};
        PyObject *r = n ? PyObject_Vectorcall(CI(c, C_SSL_READ), rargs, 2, NULL) : NULL;
        Py_XDECREF(n);
        Py_DECREF(mv);
        if (!r) {
            if (PyErr_ExceptionMatches(T.again))
                PyErr_Clear();
            else
                rc = -1;
            break;
        }
        Py_ssize_t got = PyLong_AsSsize_t(r);
        Py_DECREF(r);
        if (got == -1 && PyErr_Occurred()) {
            rc = -1;
            break;
        }
        if (got == 0) {
            *eof = 1;
            break;
        }
        off += got;
        if (off == cap) {
            PyObject *b = PyBytes_FromStringAndSize(base, off);
            if (!b || (!chunks && !(chunks = PyList_New(0))) || PyList_Append(chunks, b) < 0) {
                Py_XDECREF(b);
                rc = -1;
                break;
            }
            Py_DECREF(b);
            off = 0;
        }
        /* Nothing left in the BIO and no plaintext buffered: the next read would only
         * raise SSLWantReadError (an exception per record saved). */
        Py_ssize_t inpend;
        if (bio_pending(incoming, &inpend) < 0) {
            rc = -1;
            break;
        }
        if (inpend == 0) {
            PyObject *p = PyObject_CallNoArgs(CI(c, C_SSL_PENDING));
            if (!p) {
                rc = -1;
                break;
            }
            Py_ssize_t sp = PyLong_AsSsize_t(p);
            Py_DECREF(p);
            if (sp == 0)
                break;
        }
    }
    if (rc == 0 && (off > 0 || chunks)) {
        PyObject *data;
        if (*direct && !chunks) { /* read straight into the bytes object: trimmed, not copied */
            data = _PyBytes_Resize(direct, off) < 0 ? NULL : *direct;
            *direct = NULL;
        } else {
            data = PyBytes_FromStringAndSize(base, off);
        }
        if (data && chunks) {
            if (off == 0) {
                Py_DECREF(data);
                data = NULL;
            } else if (PyList_Append(chunks, data) < 0) {
                Py_CLEAR(data);
                rc = -1;
            } else {
                Py_CLEAR(data);
            }
            if (rc == 0) {
                PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
                data = empty ? PyObject_CallMethod(empty, "join", "O", chunks) : NULL;
                Py_XDECREF(empty);
            }
        }
        if (!data)
            rc = -1;
        else {
            PyObject *app = GA(proto, s_app);
            PyObject *r = app ? PyObject_CallMethodOneArg(app, T.s_data_received, data) : NULL;
            Py_XDECREF(app);
            Py_DECREF(data);
            if (!r)
                rc = -1;
            else
                Py_DECREF(r);
        }
    }
    Py_XDECREF(chunks);
    return rc;
}

/* buffer_updated(n): in the WRAPPED state with a plain (copying) application protocol
 * and its reading not paused, sslproto's buffer_updated + _do_read + _do_read__copied +
 * _process_outgoing + _control_ssl_reading in one C call; else the Python method. */
static PyObject *tls_buffer_updated(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "buffer_updated(self, nbytes)");
        return NULL;
    }
    PyObject *self = args[0];
    Py_ssize_t nbytes = PyLong_AsSsize_t(args[1]);
    if (nbytes == -1 && PyErr_Occurred())
        return NULL;
    PyObject *state = GA(self, s_state);
    if (!state)
        return NULL;
    int wrapped = state == T.state_wrapped;
    Py_DECREF(state);
    int app_paused = wrapped ? truthy_attr(self, T.s_app_paused) : 1;
    int app_buf = wrapped && app_paused == 0 ? truthy_attr(self, T.s_app_is_buffer) : 1;
    if (app_paused < 0 || app_buf < 0)
        return NULL;
    PyObject *buf = GA(self, s_buf);
    if (!buf)
        return NULL;
    if (!PyByteArray_CheckExact(buf) || nbytes < 0 || nbytes > PyByteArray_GET_SIZE(buf) || !vpy_tls_st.wrapped) {
        Py_DECREF(buf);
        return fallback(T.base_buffer_updated, self, args[1]);
    }
    if (app_paused || app_buf) { /* sslproto's buffer_updated, in C (tls_session.c's states) */
        int rc = -1;
        PyObject *in = GA(self, s_incoming);
        PyObject *mv = in ? PyMemoryView_FromMemory(PyByteArray_AS_STRING(buf), nbytes, PyBUF_READ) : NULL;
        PyObject *w = mv ? PyObject_CallMethodOneArg(in, T.s_write, mv) : NULL;
        Py_XDECREF(mv);
        Py_XDECREF(in);
        Py_DECREF(buf);
        if (w) {
            Py_DECREF(w);
            rc = wrapped ? vpy_tls_do_read(self) : vpy_tls_session_step(self);
        }
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *c = get_cache(self), *r = NULL;
    if (!c)
        goto out;
    PyObject *incoming = CI(c, C_IN);
    /* The ciphertext into the BIO: one write. The BIO copies, so the buffer is free. */
    PyObject *mv = PyMemoryView_FromMemory(PyByteArray_AS_STRING(buf), nbytes, PyBUF_READ);
    r = mv ? PyObject_CallOneArg(CI(c, C_IN_WRITE), mv) : NULL;
    Py_XDECREF(mv);
    if (!r)
        goto out;
    Py_CLEAR(r);
    /* The plaintext is never larger than the ciphertext in the BIO (plus what the SSL
     * object holds, none when the last read drained it): read into a bytes object of
     * that size, handed to data_received as it is, instead of copying out of a buffer. */
    Py_ssize_t inpend, cap = PyByteArray_GET_SIZE(buf);
    char *base = PyByteArray_AS_STRING(buf);
    PyObject *direct = NULL;
    if (bio_pending(incoming, &inpend) < 0)
        goto fail;
    if (inpend > 0 && inpend <= cap) {
        if (!(direct = PyBytes_FromStringAndSize(NULL, inpend)))
            goto fail;
        base = PyBytes_AS_STRING(direct);
        cap = inpend;
    }
    int eof = 0, rd = read_plain(self, c, base, cap, &eof, &direct);
    Py_XDECREF(direct);
    if (rd < 0)
        goto fail;
    if (eof) { /* close_notify: sslproto's _call_eof_received + _start_shutdown */
        if (!(r = call_method0(self, T.s_call_eof)))
            goto fail;
        Py_CLEAR(r);
        if (!(r = call_method0(self, T.s_start_shutdown)))
            goto fail;
        Py_CLEAR(r);
    }
    {
        int backlog = truthy_attr(self, T.s_backlog);
        if (backlog < 0)
            goto fail;
        if (backlog) {
            if (!(r = call_method0(self, T.s_do_write)))
                goto fail;
            Py_CLEAR(r);
        } else if (process_outgoing(self, c) < 0) {
            goto fail;
        }
    }
    if (control_ssl_reading(self, incoming) < 0)
        goto fail;
    r = Py_NewRef(Py_None);
    goto out;
fail:
    if (fatal(self) == 0)
        r = Py_NewRef(Py_None);
out:
    Py_DECREF(buf);
    Py_XDECREF(c);
    return r;
}

/* _SSLProtocolTransport.write(data): in the WRAPPED state with nothing queued, one SSL
 * write and the flush (sslproto's _write_appdata + _do_write + _process_outgoing); else
 * the Python path. */
static PyObject *tls_app_write(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "write(self, data)");
        return NULL;
    }
    PyObject *data = args[1];
    if (!PyBytes_Check(data) && !PyByteArray_Check(data) && !PyMemoryView_Check(data)) {
        PyErr_Format(PyExc_TypeError, "data: expecting a bytes-like instance, got %s", Py_TYPE(data)->tp_name);
        return NULL;
    }
    Py_ssize_t len = PyObject_Size(data);
    if (len < 0)
        return NULL;
    if (len == 0)
        Py_RETURN_NONE;
    PyObject *proto = GA(args[0], s_sslproto);
    if (!proto)
        return NULL;
    PyObject *state = GA(proto, s_state), *r = NULL, *c = NULL;
    if (!state)
        goto out;
    int wrapped = state == T.state_wrapped;
    Py_DECREF(state);
    int backlog = wrapped ? truthy_attr(proto, T.s_backlog) : 1;
    if (backlog < 0)
        goto out;
    if (backlog) {
        PyObject *tup = PyTuple_Pack(1, data);
        if (tup) {
            r = PyObject_CallFunctionObjArgs(T.base_write_appdata, proto, tup, NULL);
            Py_DECREF(tup);
        }
        goto out;
    }
    if (!(c = get_cache(proto)))
        goto fail;
    Py_ssize_t count = 0;
    PyObject *cnt = PyObject_CallOneArg(CI(c, C_SSL_WRITE), data);
    if (cnt) {
        count = PyLong_AsSsize_t(cnt);
        Py_DECREF(cnt);
        if (count == -1 && PyErr_Occurred())
            goto fail;
    } else if (PyErr_ExceptionMatches(T.again)) {
        PyErr_Clear();
    } else {
        goto fail;
    }
    if (count < len) { /* the rest queued as sslproto queues it */
        PyObject *rest = PySequence_GetSlice(data, count, len);
        PyObject *bl = rest ? GA(proto, s_backlog) : NULL; /* a deque */
        PyObject *ok = bl ? PyObject_CallMethodOneArg(bl, T.s_append, rest) : NULL;
        Py_XDECREF(bl);
        Py_XDECREF(rest);
        if (!ok)
            goto fail;
        Py_DECREF(ok);
        Py_ssize_t wb;
        if (ssize_attr(proto, T.s_wbsize, &wb) < 0)
            goto fail;
        PyObject *nwb = PyLong_FromSsize_t(wb + len - count);
        if (!nwb || PyObject_SetAttr(proto, T.s_wbsize, nwb) < 0) {
            Py_XDECREF(nwb);
            goto fail;
        }
        Py_DECREF(nwb);
    }
    if (process_outgoing(proto, c) < 0)
        goto fail;
    r = Py_NewRef(Py_None);
    goto out;
fail:
    if (fatal(proto) == 0)
        r = Py_NewRef(Py_None);
out:
    Py_XDECREF(c);
    Py_DECREF(proto);
    return r;
}

PyObject *vpy_tls_inner(PyObject *proto)
{
    PyObject *c = get_cache(proto);
    if (!c)
        return NULL;
    PyObject *inner = Py_NewRef(CI(c, C_INNER));
    Py_DECREF(c);
    return inner;
}

int vpy_tls_process_outgoing(PyObject *proto)
{
    PyObject *c = get_cache(proto);
    if (!c)
        return -1;
    int rc = process_outgoing(proto, c);
    Py_DECREF(c);
    return rc;
}

/* sslproto's _do_write over an already fetched cache. */
static int do_write(PyObject *proto, PyObject *c)
{
    PyObject *bl = GA(proto, s_backlog); /* a deque */
    if (!bl)
        return -1;
    int rc = -1;
    for (;;) {
        Py_ssize_t n = PyObject_Size(bl);
        if (n < 0)
            goto out;
        if (n == 0)
            break;
        PyObject *data = PySequence_GetItem(bl, 0);
        if (!data)
            goto out;
        PyObject *cnt = PyObject_CallOneArg(CI(c, C_SSL_WRITE), data);
        if (!cnt) {
            Py_DECREF(data);
            if (!PyErr_ExceptionMatches(T.again))
                goto out;
            PyErr_Clear();
            break;
        }
        Py_ssize_t count = PyLong_AsSsize_t(cnt), dlen = PyObject_Size(data), wb;
        Py_DECREF(cnt);
        if ((count == -1 || dlen < 0) && PyErr_Occurred()) {
            Py_DECREF(data);
            goto out;
        }
        int ok;
        if (count < dlen) {
            PyObject *rest = PySequence_GetSlice(data, count, dlen);
            ok = rest && PySequence_SetItem(bl, 0, rest) == 0;
            Py_XDECREF(rest);
        } else {
            ok = PySequence_DelItem(bl, 0) == 0;
            count = dlen;
        }
        Py_DECREF(data);
        if (!ok || ssize_attr(proto, T.s_wbsize, &wb) < 0)
            goto out;
        PyObject *nwb = PyLong_FromSsize_t(wb - count);
        if (!nwb || PyObject_SetAttr(proto, T.s_wbsize, nwb) < 0) {
            Py_XDECREF(nwb);
            goto out;
        }
        Py_DECREF(nwb);
    }
    rc = process_outgoing(proto, c);
out:
    Py_DECREF(bl);
    return rc;
}

int vpy_tls_do_write(PyObject *proto)
{
    PyObject *c = get_cache(proto);
    if (!c)
        return -1;
    int rc = do_write(proto, c);
    Py_DECREF(c);
    return rc;
}

int vpy_tls_do_read(PyObject *proto)
{
    PyObject *state = GA(proto, s_state);
    if (!state)
        return -1;
    int go = state == vpy_tls_st.wrapped || state == vpy_tls_st.flushing;
    Py_DECREF(state);
    if (!go)
        return 0;
    PyObject *c = NULL, *buf = NULL, *r;
    int paused = truthy_attr(proto, T.s_app_paused);
    if (paused < 0)
        goto fail;
    if (!paused) {
        int isbuf = truthy_attr(proto, T.s_app_is_buffer);
        if (isbuf < 0 || !(c = get_cache(proto)))
            goto fail;
        if (isbuf) {
            if (!(r = call_method0(proto, T.s_read_buffered)))
                goto fail;
            Py_DECREF(r);
        } else {
            if (!(buf = GA(proto, s_buf)))
                goto fail;
            if (!PyByteArray_CheckExact(buf) || PyByteArray_GET_SIZE(buf) == 0) {
                PyErr_SetString(PyExc_TypeError, "SSLProtocol._ssl_buffer is not a bytearray");
                goto fail;
            }
            PyObject *direct = NULL;
            int eof = 0;
            if (read_plain(proto, c, PyByteArray_AS_STRING(buf), PyByteArray_GET_SIZE(buf), &eof, &direct) < 0)
                goto fail;
            if (eof) { /* close_notify */
                if (!(r = call_method0(proto, T.s_call_eof)))
                    goto fail;
                Py_DECREF(r);
                if (!(r = call_method0(proto, T.s_start_shutdown)))
                    goto fail;
                Py_DECREF(r);
            }
        }
        int backlog = truthy_attr(proto, T.s_backlog);
        if (backlog < 0)
            goto fail;
        if ((backlog ? do_write(proto, c) : process_outgoing(proto, c)) < 0)
            goto fail;
    }
    {
        PyObject *in = GA(proto, s_incoming);
        int rc = in ? control_ssl_reading(proto, in) : -1;
        Py_XDECREF(in);
        if (rc < 0)
            goto fail;
    }
    Py_XDECREF(c);
    Py_XDECREF(buf);
    return 0;
fail:
    Py_XDECREF(c);
    Py_XDECREF(buf);
    return fatal(proto);
}

/* {name: method} for each entry of defs, as instance methods (so a class attribute set
 * from it binds self like a Python function): what _tls_init and _tls_session_init return. */
PyObject *vpy_tls_method_dict(PyMethodDef *defs)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    for (PyMethodDef *def = defs; def->ml_name; def++) {
        PyObject *f = PyCFunction_NewEx(def, NULL, NULL);
        PyObject *im = f ? PyInstanceMethod_New(f) : NULL;
        Py_XDECREF(f);
        if (!im || PyDict_SetItemString(d, def->ml_name, im) < 0) {
            Py_XDECREF(im);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(im);
    }
    return d;
}

static PyMethodDef fast_defs[] = {
    {"get_buffer", (PyCFunction)(void (*)(void))tls_get_buffer, METH_FASTCALL, NULL},
    {"buffer_updated", (PyCFunction)(void (*)(void))tls_buffer_updated, METH_FASTCALL, NULL},
    {"write", (PyCFunction)(void (*)(void))tls_app_write, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

/* _tls_init(SSLProtocolState.WRAPPED, SSLAgainErrors, buffer_updated, get_buffer,
 * _write_appdata): the objects the fast paths compare with and fall back to (sslproto's
 * own methods). Returns {name: method} for vigil._loop's subclasses. */
static PyObject *mod_tls_init(PyObject *m, PyObject *args)
{
    PyObject *w, *a, *bu, *gb, *wa;
    if (!PyArg_ParseTuple(args, "OOOOO", &w, &a, &bu, &gb, &wa))
        return NULL;
    if (!T.ready) {
#define S(f, s)                                                                                                        \
    if (!(T.f = PyUnicode_InternFromString(s)))                                                                       \
        return NULL;
        S(s_state, "_state") S(s_sslobj, "_sslobj") S(s_incoming, "_incoming") S(s_outgoing, "_outgoing")
        S(s_buf, "_ssl_buffer") S(s_view, "_ssl_buffer_view") S(s_app_paused, "_app_reading_paused")
        S(s_app_is_buffer, "_app_protocol_is_buffer") S(s_app, "_app_protocol") S(s_backlog, "_write_backlog")
        S(s_ssl_wpaused, "_ssl_writing_paused") S(s_transport, "_transport") S(s_wbsize, "_write_buffer_size")
        S(s_app_wpaused, "_app_writing_paused") S(s_ohigh, "_outgoing_high_water")
        S(s_olow, "_outgoing_low_water") S(s_ihigh, "_incoming_high_water") S(s_ilow, "_incoming_low_water")
        S(s_ssl_rpaused, "_ssl_reading_paused") S(s_max_size, "max_size") S(s_sslproto, "_ssl_protocol")
        S(s_pending, "pending") S(s_read, "read") S(s_write, "write") S(s_data_received, "data_received")
        S(s_fatal, "_fatal_error") S(s_ctl_app_writing, "_control_app_writing")
        S(s_ctl_ssl_reading, "_control_ssl_reading") S(s_call_eof, "_call_eof_received")
        S(s_start_shutdown, "_start_shutdown") S(s_do_write, "_do_write") S(s_inner, "_sslobj")
        S(s_msg_fatal, "Fatal error on SSL protocol") S(s_cache, "_vigil_tls") S(s_append, "append")
        S(s_read_buffered, "_do_read__buffered")
#undef S
        T.ready = 1;
    }
    /* Process-wide (these are asyncio's own objects, the same for every module copy). */
    Py_XSETREF(T.state_wrapped, Py_NewRef(w));
    Py_XSETREF(T.again, Py_NewRef(a));
    Py_XSETREF(T.base_buffer_updated, Py_NewRef(bu));
    Py_XSETREF(T.base_get_buffer, Py_NewRef(gb));
    Py_XSETREF(T.base_write_appdata, Py_NewRef(wa));
    return vpy_tls_method_dict(fast_defs);
}

static PyMethodDef tls_mod_defs[] = {
    {"_tls_init", mod_tls_init, METH_VARARGS, "The TLS record path's C methods (tls.c)."},
    {NULL, NULL, 0, NULL},
};

int vpy_tls_add(PyObject *m, vpy_state *st)
{
    (void)st;
    return PyModule_AddFunctions(m, tls_mod_defs);
}
