/* vigil._core's module state and the small helpers every file of the extension uses.
 * Everything in python/csrc/ is internal to the extension: `vpy_` names, no export. */
#ifndef VIGIL_PY_MODULE_H
#define VIGIL_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "sys/clock.h" /* libvigil's time helpers (src/ is on the include path) */
#include <stdint.h>
#include <time.h>

/* One per module object (PEP 489: a second import or a subinterpreter gets its own).
 * It holds every Python object the C code keeps beyond one call. A loop caches a
 * pointer to it (LoopObject.st), so the hot paths never look the module up; the module
 * outlives its loops because every loop's type (a heap type of this module) holds a
 * reference to the module. */
typedef struct vpy_state {
    PyTypeObject *handle_type;     /* vigil._core.Handle */
    PyTypeObject *timer_type;      /* vigil._core.TimerHandle */
    PyTypeObject *loop_type;       /* vigil._core.Loop */
    PyTypeObject *stream_type;     /* vigil._core.TransportIO */
    PyObject *hook_handle_repr;    /* set by vigil._loop through _set_hooks() */
    PyObject *futures_mod;         /* asyncio.futures, imported on first create_future */
    PyObject *kw_loop;             /* ("loop",): create_future's keyword names */
    PyObject *minus_one;           /* get_buffer(-1)'s argument */
    PyObject *str_protocol_paused; /* "_protocol_paused", interned */
    PyTypeObject *sockcall_type;   /* vigil._core.SockCall (sock.c) */
    PyObject *socket_type;         /* socket.socket (sock.c: the plain socket's fast path) */
    PyObject *sock_context;        /* sock.c: an empty contextvars.Context its waits run in */
    struct vpy_trnew *trnew;       /* transport_new.c: the stream shell class, names (PyMem) */
    /* handle.c: freed Handles ([0]) and TimerHandles ([1]) of exactly these types, kept
     * for reuse, chained through their callback field; dead memory, no type reference
     * (vpy_handles_free). */
    PyObject *handle_free[2];
    unsigned handle_nfree[2];
} vpy_state;

extern struct PyModuleDef vpy_moduledef;

/* The state of the module that defined `type` (or a base of it). Costs a walk of the
 * MRO: for creation paths, never per event. NULL with an exception set if not found. */
vpy_state *vpy_state_of_type(PyTypeObject *type);

/* The exception being raised, normalized, with its traceback attached; clears it. */
PyObject *vpy_fetch_exc(void);

/* True (and the exception stays set) for the two that asyncio lets escape a callback:
 * SystemExit and KeyboardInterrupt. */
static inline int vpy_exc_escapes(void)
{
    return PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt);
}

/* The two ends of every type's tp_dealloc (all are heap types with GC and weak
 * references): untracked and its weak references cleared before its fields go; freed
 * and the reference to its type dropped after. */
static inline void vpy_dealloc_begin(PyObject *o, PyObject *weakreflist)
{
    PyObject_GC_UnTrack(o);
    if (weakreflist)
        PyObject_ClearWeakRefs(o);
}

static inline void vpy_dealloc_end(PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    tp->tp_free(o);
    Py_DECREF(tp);
}

/* Raises OSError from a positive errno. Returns NULL. */
PyObject *vpy_set_oserror(int err);

static inline int64_t vpy_mono_ns(void)
{
    return vigil__clock_ns(CLOCK_MONOTONIC);
}

/* Each concept file adds its type(s) to the module (module.c's exec slot calls them). */
int vpy_handle_types_add(PyObject *m, vpy_state *st); /* handle.c */
int vpy_loop_type_add(PyObject *m, vpy_state *st);    /* loop.c */
int vpy_stream_type_add(PyObject *m, vpy_state *st);  /* stream.c */
int vpy_mq_type_add(PyObject *m, vpy_state *st);      /* mq.c */
int vpy_proc_type_add(PyObject *m, vpy_state *st);    /* proc.c */
int vpy_file_type_add(PyObject *m, vpy_state *st);    /* file.c */
int vpy_server_type_add(PyObject *m, vpy_state *st);  /* server.c */
int vpy_dgram_type_add(PyObject *m, vpy_state *st);   /* dgram.c */
int vpy_tls_add(PyObject *m, vpy_state *st);          /* tls.c */
int vpy_tls_session_add(PyObject *m, vpy_state *st);  /* tls_session.c */
int vpy_sock_add(PyObject *m, vpy_state *st);         /* sock.c */
int vpy_trnew_add(PyObject *m, vpy_state *st);        /* transport_new.c */
int vpy_trnew_traverse(vpy_state *st, visitproc visit, void *arg);
void vpy_handles_free(vpy_state *st); /* handle.c: frees the kept Handles (module freed) */
void vpy_trnew_clear(vpy_state *st, int free_it); /* free_it: also the names (module freed) */

#endif
