/* tls.h: what tls.c (the TLS record path) and tls_session.c (the TLS session: handshake,
 * shutdown, the connection's life) share. Internal to the extension, like module.h.
 * Every call takes an asyncio.sslproto.SSLProtocol (vigil._loop._SSLProtocol) and returns
 * 0, or -1 with the exception set, unless said otherwise. */
#ifndef VIGIL_PY_TLS_H
#define VIGIL_PY_TLS_H

#include "module.h"

/* asyncio.sslproto's enums, set by tls_session.c's _tls_session_init (process-wide, as
 * tls.c's own objects: they are asyncio's, the same for every copy of the module). */
struct vpy_tls_states {
    PyObject *unwrapped, *do_handshake, *wrapped, *flushing, *shutdown; /* SSLProtocolState */
};
extern struct vpy_tls_states vpy_tls_st;

/* tls.c -------------------------------------------------------------------------------- */
/* getattr with the instance __dict__ first (a new reference, or NULL). */
PyObject *vpy_tls_get(PyObject *o, PyObject *name);
/* The C SSL object under proto._sslobj (SSLObject._sslobj): a new reference, or NULL. */
PyObject *vpy_tls_inner(PyObject *proto);
/* sslproto's _process_outgoing: the outgoing BIO to the transport, _control_app_writing. */
int vpy_tls_process_outgoing(PyObject *proto);
/* sslproto's _do_write: the write backlog through the SSL object, then _process_outgoing.
 * SSLAgainErrors end it quietly; any other error is returned (the caller reports it). */
int vpy_tls_do_write(PyObject *proto);
/* sslproto's _do_read: in WRAPPED or FLUSHING, the plaintext to the application (C for a
 * copying protocol, sslproto's _do_read__buffered for a BufferedProtocol), close_notify
 * seen, the outgoing flushed, the incoming watermarks; errors go to _fatal_error as
 * sslproto's do (only SystemExit/KeyboardInterrupt return -1). */
int vpy_tls_do_read(PyObject *proto);
/* {name: instance method} for each entry of defs (a new reference, or NULL). */
PyObject *vpy_tls_method_dict(PyMethodDef *defs);

/* tls_session.c ------------------------------------------------------------------------ */
/* After buffer_updated wrote the ciphertext into the incoming BIO outside the fast path:
 * sslproto's dispatch on the state (_do_handshake, _do_read, _do_flush, _do_shutdown). */
int vpy_tls_session_step(PyObject *proto);

#endif
