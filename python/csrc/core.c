/* vigil._core: the loop object, its handles, readers/writers and timers, and the run
 * loop. The Python layer (vigil/_loop.py) subclasses Loop and adds the protocol-heavy,
 * rarely-hot parts; every turn of a running loop is this file's _run().
 *
 * Threads and the GIL: the loop thread releases the GIL only inside a blocking
 * vigil_loop_run(). vigil's callbacks (timers, fd watchers) run inside that call, so
 * they touch no Python object: they append to loop->pend, which the loop thread turns
 * into ready handles once it holds the GIL again. call_soon_threadsafe appends to the
 * ready queue under the GIL and rings the loop's own eventfd only when loop->waiting
 * says it sleeps; waiting is set and the ready queue checked under the GIL before the
 * wait, and the first caller clears it (under the GIL), so one sleep gets one write and
 * a wake-up cannot be lost between the check and the sleep. The eventfd is drained by
 * its watcher in whatever turn sees it readable: a write that lands after the drain
 * costs one spurious turn, never a lost wake-up. (vigil_loop_wakeup is not used. When
 * this was written, its coalescing flag was cleared before the eventfd was drained, so
 * one race could drop every later wake-up; the library has since fixed that (drain
 * first, then clear; test loop_wakeup_race). This eventfd stays: it is rung only when
 * the loop sleeps, which the GIL already tells us.) */
#include "core.h"

#include <structmember.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Python hooks, set once by vigil._loop through _set_hooks(). */
static PyObject *hook_handle_repr;

/* The exception being raised, normalized, with its traceback attached; clears it. */
static PyObject *fetch_exc(void)
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

static inline int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------ ready queue */

static int rq_grow(LoopObject *l)
{
    size_t ncap = l->rq_cap ? l->rq_cap * 2 : 256;
    PyObject **n = PyMem_Malloc(ncap * sizeof *n);
    if (!n) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < l->rq_len; i++)
        n[i] = l->rq[(l->rq_head + i) & (l->rq_cap - 1)];
    PyMem_Free(l->rq);
    l->rq = n;
    l->rq_head = 0;
    l->rq_cap = ncap;
    return 0;
}

int vigil_py_rq_push(LoopObject *l, PyObject *item)
{
    if (l->rq_len == l->rq_cap && rq_grow(l) < 0) {
        Py_DECREF(item);
        return -1;
    }
    l->rq[(l->rq_head + l->rq_len) & (l->rq_cap - 1)] = item;
    l->rq_len++;
    return 0;
}

static inline PyObject *rq_pop(LoopObject *l)
{
    PyObject *o = l->rq[l->rq_head];
    l->rq_head = (l->rq_head + 1) & (l->rq_cap - 1);
    l->rq_len--;
    return o;
}

/* ------------------------------------------------- events from vigil callbacks */

int vigil_py_pend_push(LoopObject *l, void *obj, int kind, int revents)
{
    if (l->npend == l->pend_cap) {
        size_t ncap = l->pend_cap ? l->pend_cap * 2 : 64;
        struct pend *n = realloc(l->pend, ncap * sizeof *n); /* no GIL here: plain C heap */
        if (!n) {
            l->pend_nomem = 1;
            return -1;
        }
        l->pend = n;
        l->pend_cap = ncap;
    }
    l->pend[l->npend++] = (struct pend){obj, kind, revents};
    return 0;
}

static void on_timer(vigil_loop *vl, vigil_timer *t)
{
    (void)vl;
    TimerHandleObject *h = t->data;
    vigil_py_pend_push(h->base.loop, h, 0, 0);
}

static void on_io(vigil_loop *vl, vigil_io *w, int revents)
{
    struct fdwatch *fw = w->data;
    vigil_py_pend_push(vigil_loop_data(vl), fw, 1, revents);
}

static void on_doorbell(vigil_loop *vl, vigil_io *w, int revents)
{
    uint64_t v;
    (void)vl;
    (void)revents;
    while (read(w->fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
}

static void ring_doorbell(LoopObject *l)
{
    if (!l->waiting || l->wake_fd < 0)
        return;
    l->waiting = 0; /* the first caller of this sleep rings; the GIL orders us */
    uint64_t one = 1;
    while (write(l->wake_fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

static void timer_unlink(LoopObject *l, TimerHandleObject *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        l->timers = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->prev = t->next = NULL;
    t->scheduled = 0;
}

/* Turns recorded events into ready handles. No Python code runs here. */
static int process_pending(LoopObject *l)
{
    int rc = 0;
    for (size_t i = 0; i < l->npend; i++) {
        struct pend *p = &l->pend[i];
        if (p->kind == 0) {
            TimerHandleObject *t = p->obj;
            timer_unlink(l, t); /* the started timer's reference moves to the queue */
            if (t->base.cancelled)
                Py_DECREF(t);
            else if (vigil_py_rq_push(l, (PyObject *)t) < 0)
                rc = -1;
        } else if (p->kind == 1) {
            struct fdwatch *fw = p->obj;
            if (p->revents < 0) {
                /* The registration failed (the fd was closed since): vigil stopped the
                 * watcher. Like a selector that dropped a closed fd, nothing runs. */
                fw->active = 0;
                continue;
            }
            unsigned ev = (unsigned)p->revents;
            if ((ev & (VIGIL_READ | VIGIL_ERR | VIGIL_HUP)) && fw->reader && !fw->reader->cancelled) {
                Py_INCREF(fw->reader);
                if (vigil_py_rq_push(l, (PyObject *)fw->reader) < 0)
                    rc = -1;
            }
            if ((ev & (VIGIL_WRITE | VIGIL_ERR | VIGIL_HUP)) && fw->writer && !fw->writer->cancelled) {
                Py_INCREF(fw->writer);
                if (vigil_py_rq_push(l, (PyObject *)fw->writer) < 0)
                    rc = -1;
            }
        } else if (vigil_py_transport_event(l, p->obj, p->revents) < 0) {
            rc = -1;
        }
    }
    l->npend = 0;
    if (l->pend_nomem) {
        l->pend_nomem = 0;
        PyErr_NoMemory();
        rc = -1;
    }
    return rc;
}

/* --------------------------------------------------------------- handles */

static HandleObject *handle_new(PyTypeObject *type, LoopObject *loop, PyObject *cb, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *context)
{
    HandleObject *h = PyObject_GC_New(HandleObject, type);
    if (!h)
        return NULL;
    h->args = PyTuple_New(nargs);
    if (!h->args) {
        h->callback = h->context = h->source_traceback = h->repr_cache = h->weakreflist = NULL;
        h->loop = NULL;
        Py_DECREF(h);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(h->args, i, args[i]);
    }
    Py_INCREF(cb);
    h->callback = cb;
    if (context == NULL || context == Py_None) {
        h->context = PyContext_CopyCurrent();
    } else {
        Py_INCREF(context);
        h->context = context;
    }
    Py_INCREF(loop);
    h->loop = loop;
    h->source_traceback = h->repr_cache = h->weakreflist = NULL;
    h->cancelled = 0;
    if (type == &Vigil_TimerHandleType) {
        TimerHandleObject *t = (TimerHandleObject *)h;
        memset(&t->timer, 0, sizeof t->timer);
        t->timer.data = t;
        t->prev = t->next = NULL;
        t->scheduled = 0;
        t->when = 0;
        t->deadline_ns = 0;
    }
    PyObject_GC_Track(h);
    if (!h->context) {
        Py_DECREF(h);
        return NULL;
    }
    return h;
}

static int handle_traverse(HandleObject *h, visitproc visit, void *arg)
{
    Py_VISIT(h->callback);
    Py_VISIT(h->args);
    Py_VISIT(h->context);
    Py_VISIT(h->loop);
    Py_VISIT(h->source_traceback);
    Py_VISIT(h->repr_cache);
    return 0;
}

static int handle_clear(HandleObject *h)
{
    Py_CLEAR(h->callback);
    Py_CLEAR(h->args);
    Py_CLEAR(h->context);
    Py_CLEAR(h->source_traceback);
    Py_CLEAR(h->repr_cache);
    Py_CLEAR(h->loop);
    return 0;
}

static void handle_dealloc(HandleObject *h)
{
    PyObject_GC_UnTrack(h);
    if (h->weakreflist)
        PyObject_ClearWeakRefs((PyObject *)h);
    handle_clear(h);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

static void handle_do_cancel(HandleObject *h)
{
    if (h->cancelled)
        return;
    h->cancelled = 1;
    if (h->loop && h->loop->debug && hook_handle_repr && !h->repr_cache) {
        h->repr_cache = PyObject_CallOneArg(hook_handle_repr, (PyObject *)h);
        if (!h->repr_cache)
            PyErr_Clear();
    }
    Py_CLEAR(h->callback);
    Py_CLEAR(h->args);
}

static void timer_do_cancel(TimerHandleObject *t)
{
    if (t->base.cancelled)
        return;
    handle_do_cancel(&t->base);
    if (t->scheduled) {
        LoopObject *l = t->base.loop;
        if (l->vl)
            vigil_timer_stop(l->vl, &t->timer);
        timer_unlink(l, t);
        Py_DECREF(t); /* the started timer's reference; the caller holds another */
    }
}

static PyObject *handle_cancel(HandleObject *h, PyObject *unused)
{
    if (Py_TYPE(h) == &Vigil_TimerHandleType)
        timer_do_cancel((TimerHandleObject *)h);
    else
        handle_do_cancel(h);
    Py_RETURN_NONE;
}

static PyObject *handle_cancelled(HandleObject *h, PyObject *unused)
{
    return PyBool_FromLong(h->cancelled);
}

static PyObject *handle_get_context(HandleObject *h, PyObject *unused)
{
    if (!h->context)
        Py_RETURN_NONE;
    Py_INCREF(h->context);
    return h->context;
}

/* Runs one handle. Returns 0, or -1 with SystemExit/KeyboardInterrupt set (asyncio
 * lets only those escape a callback; everything else goes to the exception handler). */
static int handle_run(HandleObject *h)
{
    PyObject *res = NULL;
    if (PyContext_Enter(h->context) == 0) {
        res = PyObject_Vectorcall(h->callback, &PyTuple_GET_ITEM(h->args, 0), PyTuple_GET_SIZE(h->args), NULL);
        if (PyContext_Exit(h->context) < 0) {
            Py_XDECREF(res);
            res = NULL;
        }
    }
    if (res) {
        Py_DECREF(res);
        return 0;
    }
    if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        return -1;
    PyObject *exc = fetch_exc();
    PyObject *r = PyObject_CallMethod((PyObject *)h->loop, "_vigil_callback_error", "OO", (PyObject *)h, exc);
    Py_DECREF(exc);
    if (!r) {
        if (PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
            return -1;
        PyErr_WriteUnraisable((PyObject *)h);
        return 0;
    }
    Py_DECREF(r);
    return 0;
}

static PyObject *handle_run_py(HandleObject *h, PyObject *unused)
{
    if (h->cancelled || !h->callback)
        Py_RETURN_NONE;
    if (handle_run(h) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *handle_repr(HandleObject *h)
{
    if (hook_handle_repr)
        return PyObject_CallOneArg(hook_handle_repr, (PyObject *)h);
    return PyUnicode_FromFormat("<%s at %p>", Py_TYPE(h)->tp_name, h);
}

static PyObject *handle_get_cancelled(HandleObject *h, void *c)
{
    return PyBool_FromLong(h->cancelled);
}

static PyObject *handle_get_args(HandleObject *h, void *c)
{
    if (!h->args)
        Py_RETURN_NONE;
    Py_INCREF(h->args);
    return h->args;
}

static PyObject *timer_when(TimerHandleObject *t, PyObject *unused)
{
    return PyFloat_FromDouble(t->when);
}

static PyObject *timer_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &Vigil_TimerHandleType))
        Py_RETURN_NOTIMPLEMENTED;
    TimerHandleObject *x = (TimerHandleObject *)a, *y = (TimerHandleObject *)b;
    if (op == Py_EQ || op == Py_NE) {
        int eq = x == y || (x->when == y->when && x->base.callback == y->base.callback &&
                            x->base.cancelled == y->base.cancelled);
        if (eq && x != y && x->base.args && y->base.args) {
            int r = PyObject_RichCompareBool(x->base.args, y->base.args, Py_EQ);
            if (r < 0)
                return NULL;
            eq = r;
        }
        return PyBool_FromLong(op == Py_EQ ? eq : !eq);
    }
    Py_RETURN_RICHCOMPARE(x->when, y->when, op);
}

static Py_hash_t timer_hash(TimerHandleObject *t)
{
    PyObject *f = PyFloat_FromDouble(t->when);
    if (!f)
        return -1;
    Py_hash_t h = PyObject_Hash(f);
    Py_DECREF(f);
    return h;
}

static PyMethodDef handle_methods[] = {
    {"cancel", (PyCFunction)handle_cancel, METH_NOARGS, "Cancel the callback."},
    {"cancelled", (PyCFunction)handle_cancelled, METH_NOARGS, "True once cancelled."},
    {"get_context", (PyCFunction)handle_get_context, METH_NOARGS, "The contextvars.Context it runs in."},
    {"_run", (PyCFunction)handle_run_py, METH_NOARGS, "Run the callback now."},
    {NULL},
};

static PyMemberDef handle_members[] = {
    {"_callback", T_OBJECT, offsetof(HandleObject, callback), READONLY, NULL},
    {"_context", T_OBJECT, offsetof(HandleObject, context), READONLY, NULL},
    {"_loop", T_OBJECT, offsetof(HandleObject, loop), READONLY, NULL},
    {"_source_traceback", T_OBJECT, offsetof(HandleObject, source_traceback), 0, NULL},
    {"_repr", T_OBJECT, offsetof(HandleObject, repr_cache), 0, NULL},
    {NULL},
};

static PyGetSetDef handle_getset[] = {
    {"_cancelled", (getter)handle_get_cancelled, NULL, NULL, NULL},
    {"_args", (getter)handle_get_args, NULL, NULL, NULL},
    {NULL},
};

PyTypeObject Vigil_HandleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vigil._core.Handle",
    .tp_basicsize = sizeof(HandleObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A callback scheduled on a vigil loop (asyncio.Handle's interface).",
    .tp_dealloc = (destructor)handle_dealloc,
    .tp_traverse = (traverseproc)handle_traverse,
    .tp_clear = (inquiry)handle_clear,
    .tp_repr = (reprfunc)handle_repr,
    .tp_methods = handle_methods,
    .tp_members = handle_members,
    .tp_getset = handle_getset,
    .tp_weaklistoffset = offsetof(HandleObject, weakreflist),
};

static PyMethodDef timer_methods[] = {
    {"when", (PyCFunction)timer_when, METH_NOARGS, "The deadline, in loop.time() seconds."},
    {NULL},
};

static PyMemberDef timer_members[] = {
    {"_when", T_DOUBLE, offsetof(TimerHandleObject, when), READONLY, NULL},
    {"_scheduled", T_BOOL, offsetof(TimerHandleObject, scheduled), READONLY, NULL},
    {NULL},
};

PyTypeObject Vigil_TimerHandleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vigil._core.TimerHandle",
    .tp_basicsize = sizeof(TimerHandleObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A callback with a deadline on a vigil timer (asyncio.TimerHandle's interface).",
    .tp_dealloc = (destructor)handle_dealloc,
    .tp_traverse = (traverseproc)handle_traverse,
    .tp_clear = (inquiry)handle_clear,
    .tp_methods = timer_methods,
    .tp_members = timer_members,
    .tp_richcompare = timer_richcompare,
    .tp_hash = (hashfunc)timer_hash,
    .tp_base = &Vigil_HandleType,
};

/* ------------------------------------------------------------------ loop */

static int check_open(LoopObject *l)
{
    if (l->closed || !l->vl) {
        PyErr_SetString(PyExc_RuntimeError, "Event loop is closed");
        return -1;
    }
    return 0;
}

static void loop_release(LoopObject *l)
{
    /* Timers: stop, unlink, drop the loop's references. */
    while (l->timers) {
        TimerHandleObject *t = l->timers;
        if (l->vl)
            vigil_timer_stop(l->vl, &t->timer);
        timer_unlink(l, t);
        Py_DECREF(t);
    }
    for (int fd = 0; fd < l->nfdw; fd++) {
        struct fdwatch *fw = l->fdw[fd];
        if (!fw)
            continue;
        if (fw->active && l->vl)
            vigil_io_stop(l->vl, &fw->io);
        l->fdw[fd] = NULL;
        Py_XDECREF(fw->reader);
        Py_XDECREF(fw->writer);
        PyMem_Free(fw);
    }
    PyMem_Free(l->fdw);
    l->fdw = NULL;
    l->nfdw = 0;
    while (l->rq_len) {
        PyObject *o = rq_pop(l);
        Py_DECREF(o);
    }
    l->npend = 0;
    if (l->vl && l->pid == getpid()) {
        vigil_io_stop(l->vl, &l->wake_io);
        vigil_loop_free(l->vl);
    }
    l->vl = NULL;
    l->npend = 0;                      /* what vigil_loop_free's last callbacks recorded */
    vigil_py_transport_loop_closed(l); /* after: vigil ended the sockets' requests */
    if (l->wake_fd >= 0)
        close(l->wake_fd);
    l->wake_fd = -1;
}

static PyObject *loop_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    LoopObject *l = (LoopObject *)type->tp_alloc(type, 0);
    if (!l)
        return NULL;
    l->wake_fd = -1;
    const char *backend = NULL;
    int precise = 0;
    PyObject *b = kw ? PyDict_GetItemString(kw, "backend") : NULL;
    if (b && b != Py_None) {
        backend = PyUnicode_AsUTF8(b);
        if (!backend)
            goto fail;
    }
    PyObject *p = kw ? PyDict_GetItemString(kw, "precise") : NULL;
    if (p) {
        precise = PyObject_IsTrue(p);
        if (precise < 0)
            goto fail;
    }
    struct vigil_loop_options opt;
    vigil_loop_options_init(&opt);
    if (backend) {
        if (!strcmp(backend, "uring"))
            opt.backend = VIGIL_BACKEND_URING;
        else if (!strcmp(backend, "epoll"))
            opt.backend = VIGIL_BACKEND_EPOLL;
        else if (!strcmp(backend, "poll"))
            opt.backend = VIGIL_BACKEND_POLL;
        else if (strcmp(backend, "auto")) {
            PyErr_Format(PyExc_ValueError, "unknown vigil backend %R (uring, epoll, poll, auto)", b);
            goto fail;
        }
    }
    if (precise)
        opt.flags |= VIGIL_LOOP_PRECISE;
    opt.data = l;
    l->wake_fd = -1;
    int r = vigil_loop_new(&l->vl, &opt);
    if (r < 0) {
        errno = -r;
        PyErr_SetFromErrno(PyExc_OSError);
        goto fail;
    }
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->wake_fd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        goto fail;
    }
    r = vigil_io_start(l->vl, &l->wake_io, l->wake_fd, VIGIL_READ, on_doorbell);
    if (r < 0) {
        errno = -r;
        PyErr_SetFromErrno(PyExc_OSError);
        goto fail;
    }
    l->precise = precise;
    l->is_epoll = !strcmp(vigil_loop_backend(l->vl), "epoll");
    l->pid = getpid();
    return (PyObject *)l;
fail:
    Py_DECREF(l);
    return NULL;
}

static int loop_traverse(LoopObject *l, visitproc visit, void *arg)
{
    for (size_t i = 0; i < l->rq_len; i++)
        Py_VISIT(l->rq[(l->rq_head + i) & (l->rq_cap - 1)]);
    for (TimerHandleObject *t = l->timers; t; t = t->next)
        Py_VISIT((PyObject *)t);
    for (int fd = 0; fd < l->nfdw; fd++) {
        if (l->fdw[fd]) {
            Py_VISIT((PyObject *)l->fdw[fd]->reader);
            Py_VISIT((PyObject *)l->fdw[fd]->writer);
        }
    }
    return 0;
}

static int loop_clear(LoopObject *l)
{
    if (l->running)
        return 0;
    loop_release(l);
    return 0;
}

static void loop_dealloc(LoopObject *l)
{
    PyObject_GC_UnTrack(l);
    if (l->weakreflist)
        PyObject_ClearWeakRefs((PyObject *)l);
    loop_release(l);
    PyMem_Free(l->rq);
    free(l->pend);
    Py_TYPE(l)->tp_free((PyObject *)l);
}

static PyObject *loop_time(LoopObject *l, PyObject *unused)
{
    return PyFloat_FromDouble((double)mono_ns() / 1e9);
}

/* Debug-mode checks live in Python (rare path): thread check, callback check. */
static int debug_check(LoopObject *l, PyObject *cb, const char *method)
{
    PyObject *r = PyObject_CallMethod((PyObject *)l, "_vigil_debug_check", "Os", cb, method);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

static int debug_handle(LoopObject *l, HandleObject *h)
{
    PyObject *r = PyObject_CallMethod((PyObject *)l, "_vigil_debug_handle", "O", (PyObject *)h);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Parses (callback, *args, context=None) of a fastcall method. */
static int parse_cb(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t skip, const char *name,
                    PyObject **context)
{
    *context = NULL;
    if (nargs < skip + 1) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'callback'", name);
        return -1;
    }
    if (kwnames) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t i = 0; i < nk; i++) {
            PyObject *k = PyTuple_GET_ITEM(kwnames, i);
            if (!PyUnicode_CompareWithASCIIString(k, "context")) {
                *context = args[nargs + i];
            } else {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", name, k);
                return -1;
            }
        }
    }
    return 0;
}

static PyObject *loop_call_soon_impl(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                     const char *name, int threadsafe)
{
    PyObject *context;
    if (parse_cb(args, nargs, kwnames, 0, name, &context) < 0)
        return NULL;
    if (check_open(l) < 0)
        return NULL;
    if (l->debug && debug_check(l, args[0], threadsafe ? NULL : name) < 0)
        return NULL;
    HandleObject *h = handle_new(&Vigil_HandleType, l, args[0], args + 1, nargs - 1, context);
    if (!h)
        return NULL;
    if (l->debug && debug_handle(l, h) < 0) {
        Py_DECREF(h);
        return NULL;
    }
    Py_INCREF(h);
    if (vigil_py_rq_push(l, (PyObject *)h) < 0) {
        Py_DECREF(h);
        return NULL;
    }
    if (threadsafe)
        ring_doorbell(l);
    return (PyObject *)h;
}

static PyObject *loop_call_soon(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return loop_call_soon_impl(l, args, nargs, kwnames, "call_soon", 0);
}

static PyObject *loop_call_soon_threadsafe(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return loop_call_soon_impl(l, args, nargs, kwnames, "call_soon_threadsafe", 1);
}

static PyObject *schedule_timer(LoopObject *l, double when, int64_t deadline_ns, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *context, const char *name)
{
    if (check_open(l) < 0)
        return NULL;
    if (l->debug && debug_check(l, args[0], name) < 0)
        return NULL;
    TimerHandleObject *t = (TimerHandleObject *)handle_new(&Vigil_TimerHandleType, l, args[0], args + 1, nargs - 1, context);
    if (!t)
        return NULL;
    if (l->debug && debug_handle(l, &t->base) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    t->when = when;
    t->deadline_ns = deadline_ns;
    int r = vigil_timer_start(l->vl, &t->timer, CLOCK_MONOTONIC, deadline_ns, 0, VIGIL_TIMER_ABS, on_timer);
    if (r < 0) {
        Py_DECREF(t);
        errno = -r;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    t->scheduled = 1;
    t->next = l->timers;
    if (l->timers)
        l->timers->prev = t;
    l->timers = t;
    Py_INCREF(t); /* the started timer's */
    return (PyObject *)t;
}

/* Seconds to ns, rounded up so a deadline is never earlier than asked. */
static int64_t sec_to_ns_ceil(double s)
{
    if (s != s)
        return INT64_MAX;
    double ns = ceil(s * 1e9);
    if (ns >= 9.2e18)
        return INT64_MAX;
    if (ns <= -9.2e18)
        return INT64_MIN / 2;
    return (int64_t)ns;
}

static PyObject *loop_call_later(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *context;
    if (nargs < 1 || args[0] == Py_None) {
        PyErr_SetString(PyExc_TypeError, "delay must not be None");
        return NULL;
    }
    if (parse_cb(args, nargs, kwnames, 1, "call_later", &context) < 0)
        return NULL;
    double delay = PyFloat_AsDouble(args[0]);
    if (delay == -1.0 && PyErr_Occurred())
        return NULL;
    int64_t now = mono_ns();
    int64_t d = sec_to_ns_ceil(delay);
    int64_t deadline = d > INT64_MAX - now ? INT64_MAX : now + d;
    return schedule_timer(l, (double)now / 1e9 + delay, deadline, args + 1, nargs - 1, context, "call_later");
}

static PyObject *loop_call_at(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *context;
    if (nargs < 1 || args[0] == Py_None) {
        PyErr_SetString(PyExc_TypeError, "when cannot be None");
        return NULL;
    }
    if (parse_cb(args, nargs, kwnames, 1, "call_at", &context) < 0)
        return NULL;
    double when = PyFloat_AsDouble(args[0]);
    if (when == -1.0 && PyErr_Occurred())
        return NULL;
    return schedule_timer(l, when, sec_to_ns_ceil(when), args + 1, nargs - 1, context, "call_at");
}

/* ------------------------------------------------------- readers, writers */

static int fd_of(PyObject *o)
{
    return PyObject_AsFileDescriptor(o);
}

static struct fdwatch *fdw_get(LoopObject *l, int fd, int create)
{
    if (fd < l->nfdw && l->fdw[fd])
        return l->fdw[fd];
    if (!create)
        return NULL;
    if (fd >= l->nfdw) {
        int n = l->nfdw ? l->nfdw : 64;
        while (n <= fd)
            n *= 2;
        struct fdwatch **a = PyMem_Realloc(l->fdw, (size_t)n * sizeof *a);
        if (!a) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(a + l->nfdw, 0, (size_t)(n - l->nfdw) * sizeof *a);
        l->fdw = a;
        l->nfdw = n;
    }
    struct fdwatch *fw = PyMem_Calloc(1, sizeof *fw);
    if (!fw) {
        PyErr_NoMemory();
        return NULL;
    }
    fw->fd = fd;
    fw->io.data = fw;
    l->fdw[fd] = fw;
    return fw;
}

/* Makes the vigil watcher's mask match the handles present. */
static int fdw_update(LoopObject *l, struct fdwatch *fw)
{
    uint32_t mask = (fw->reader ? VIGIL_READ : 0) | (fw->writer ? VIGIL_WRITE : 0);
    int r = 0;
    if (!mask) {
        if (fw->active)
            vigil_io_stop(l->vl, &fw->io);
        fw->active = 0;
        return 0;
    }
    if (fw->active) {
        if (fw->io.events != mask)
            r = vigil_io_modify(l->vl, &fw->io, mask);
    } else {
        if (l->is_epoll) {
            /* epoll refuses regular files and directories (EPERM) when the registration
             * reaches the kernel; say so now, as a selector loop would. */
            struct stat st;
            if (fstat(fw->fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
                r = -EPERM;
        }
        if (r == 0)
            r = vigil_io_start(l->vl, &fw->io, fw->fd, mask, on_io);
        if (r == 0)
            fw->active = 1;
    }
    if (r < 0) {
        errno = -r;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    return 0;
}

static PyObject *add_rw(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, int writer)
{
    const char *name = writer ? "add_writer" : "add_reader";
    if (nargs < 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes at least 2 arguments", name);
        return NULL;
    }
    if (check_open(l) < 0)
        return NULL;
    int fd = fd_of(args[0]);
    if (fd < 0)
        return NULL;
    HandleObject *h = handle_new(&Vigil_HandleType, l, args[1], args + 2, nargs - 2, NULL);
    if (!h)
        return NULL;
    struct fdwatch *fw = fdw_get(l, fd, 1);
    if (!fw) {
        Py_DECREF(h);
        return NULL;
    }
    HandleObject **slot = writer ? &fw->writer : &fw->reader;
    HandleObject *old = *slot;
    *slot = h;
    if (fdw_update(l, fw) < 0) {
        *slot = old;
        Py_DECREF(h);
        if (!fw->reader && !fw->writer && !fw->active) {
            l->fdw[fd] = NULL;
            PyMem_Free(fw);
        }
        return NULL;
    }
    if (old) {
        handle_do_cancel(old);
        Py_DECREF(old);
    }
    Py_INCREF(h);
    return (PyObject *)h;
}

static PyObject *remove_rw(LoopObject *l, PyObject *fileobj, int writer)
{
    if (l->closed || !l->vl)
        Py_RETURN_FALSE;
    int fd = fd_of(fileobj);
    if (fd < 0)
        return NULL;
    struct fdwatch *fw = fdw_get(l, fd, 0);
    if (!fw)
        Py_RETURN_FALSE;
    HandleObject **slot = writer ? &fw->writer : &fw->reader;
    HandleObject *old = *slot;
    if (!old)
        Py_RETURN_FALSE;
    *slot = NULL;
    handle_do_cancel(old);
    Py_DECREF(old);
    if (fdw_update(l, fw) < 0)
        PyErr_Clear(); /* a narrowed mask cannot fail on a live fd; a dead one is moot */
    if (!fw->reader && !fw->writer) {
        l->fdw[fd] = NULL;
        PyMem_Free(fw);
    }
    Py_RETURN_TRUE;
}

static PyObject *loop_add_reader(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    return add_rw(l, args, nargs, 0);
}

static PyObject *loop_add_writer(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    return add_rw(l, args, nargs, 1);
}

static PyObject *loop_remove_reader(LoopObject *l, PyObject *fd)
{
    return remove_rw(l, fd, 0);
}

static PyObject *loop_remove_writer(LoopObject *l, PyObject *fd)
{
    return remove_rw(l, fd, 1);
}

/* (reader handle or None, writer handle or None) for fd: the selector key's data. */
static PyObject *loop_fd_handles(LoopObject *l, PyObject *fileobj)
{
    int fd = fd_of(fileobj);
    if (fd < 0)
        return NULL;
    struct fdwatch *fw = l->vl ? fdw_get(l, fd, 0) : NULL;
    PyObject *r = fw && fw->reader ? (PyObject *)fw->reader : Py_None;
    PyObject *w = fw && fw->writer ? (PyObject *)fw->writer : Py_None;
    return PyTuple_Pack(2, r, w);
}

/* ------------------------------------------------------------- the run */

static int run_ready(LoopObject *l)
{
    size_t n = l->rq_len;
    double slow = -1;
    while (n-- > 0 && l->rq_len) {
        PyObject *o = rq_pop(l);
        int r = 0;
        if (Py_TYPE(o) == &Vigil_HandleType || Py_TYPE(o) == &Vigil_TimerHandleType) {
            HandleObject *h = (HandleObject *)o;
            if (h->cancelled) {
                Py_DECREF(o);
                continue;
            }
            if (l->debug) {
                if (slow < 0) {
                    PyObject *v = PyObject_GetAttrString((PyObject *)l, "slow_callback_duration");
                    slow = v ? PyFloat_AsDouble(v) : 0.1;
                    Py_XDECREF(v);
                    if (PyErr_Occurred())
                        PyErr_Clear();
                }
                if (PyObject_SetAttrString((PyObject *)l, "_current_handle", o) < 0)
                    PyErr_Clear();
                int64_t t0 = mono_ns();
                r = handle_run(h);
                double dt = (double)(mono_ns() - t0) / 1e9;
                if (PyObject_SetAttrString((PyObject *)l, "_current_handle", Py_None) < 0)
                    PyErr_Clear();
                if (r == 0 && dt >= slow) {
                    PyObject *x = PyObject_CallMethod((PyObject *)l, "_vigil_slow_callback", "Od", o, dt);
                    if (!x)
                        PyErr_Clear();
                    Py_XDECREF(x);
                }
            } else {
                r = handle_run(h);
            }
        } else {
            r = vigil_py_transport_run(o); /* a transport's pending I/O (transport.c) */
        }
        Py_DECREF(o);
        if (r < 0)
            return -1;
    }
    return 0;
}

static PyObject *loop_run(LoopObject *l, PyObject *unused)
{
    if (check_open(l) < 0)
        return NULL;
    if (l->pid != getpid()) {
        PyErr_SetString(PyExc_RuntimeError, "this vigil loop was created in another process (before a fork): "
                                            "create a new loop in the child");
        return NULL;
    }
    if (l->running) {
        PyErr_SetString(PyExc_RuntimeError, "This event loop is already running");
        return NULL;
    }
    l->running = 1;
    PyObject *ret = Py_None;
    for (;;) {
        int r;
        if (l->rq_len == 0 && !l->stopping) {
            l->waiting = 1;
            Py_BEGIN_ALLOW_THREADS r = vigil_loop_run(l->vl, VIGIL_RUN_ONCE);
            Py_END_ALLOW_THREADS l->waiting = 0;
        } else {
            r = vigil_loop_run(l->vl, VIGIL_RUN_NOWAIT);
        }
        if (r < 0 && r != -EINTR) {
            errno = -r;
            PyErr_SetFromErrno(PyExc_OSError);
            ret = NULL;
            break;
        }
        size_t queued = l->rq_len;
        if (process_pending(l) < 0) {
            ret = NULL;
            break;
        }
        int from_io = l->rq_len != queued; /* the turn found events or timers */
        if (PyErr_CheckSignals() < 0) {
            ret = NULL;
            break;
        }
        if (run_ready(l) < 0) {
            ret = NULL;
            break;
        }
        /* A second pass for what the turn's callbacks scheduled: a reader's callback
         * completes a future, whose task then runs here, before the next wait, not
         * after a turn of its own (one non-blocking wait and one pass of the loop saved
         * per awaited event, as uvloop runs its ready queue after libuv's poll phase).
         * Only after a turn that found something, and only one more generation: a
         * callback that schedules itself still lets the loop poll between its runs.
         * FIFO order is unchanged; after stop(), what the callbacks scheduled waits
         * for the next run, as asyncio documents. */
        if (from_io && l->rq_len && !l->stopping && !l->closed && run_ready(l) < 0) {
            ret = NULL;
            break;
        }
        if (l->stopping || l->closed)
            break;
    }
    l->stopping = 0;
    l->running = 0;
    Py_XINCREF(ret);
    return ret;
}

/* One turn without sleeping (tests and run_once-style helpers). */
static PyObject *loop_run_once(LoopObject *l, PyObject *unused)
{
    if (check_open(l) < 0)
        return NULL;
    int r = vigil_loop_run(l->vl, VIGIL_RUN_NOWAIT);
    if (r < 0 && r != -EINTR) {
        errno = -r;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (process_pending(l) < 0 || run_ready(l) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Makes pending interest changes reach the kernel now (one non-blocking turn; what it
 * finds ready is queued, not run). On io_uring a poll holds a reference to its file
 * until its cancellation is submitted: a listening socket closed right after its
 * reader was removed would otherwise accept connections until the next turn. */
static PyObject *loop_flush_changes(LoopObject *l, PyObject *unused)
{
    if (l->closed || !l->vl)
        Py_RETURN_NONE;
    int r = vigil_loop_run(l->vl, VIGIL_RUN_NOWAIT);
    if (r < 0 && r != -EINTR) {
        errno = -r;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (process_pending(l) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *loop_stop(LoopObject *l, PyObject *unused)
{
    l->stopping = 1;
    Py_RETURN_NONE;
}

static PyObject *loop_is_closed(LoopObject *l, PyObject *unused)
{
    return PyBool_FromLong(l->closed);
}

/* create_future and get_debug, as BaseEventLoop's, in C: a future is made per awaited
 * receive (sock_recv, a stream's read), and the C Future's constructor asks the loop's
 * get_debug(), so in Python each future cost two interpreted calls (uvloop has both in
 * Cython). The class is looked up in asyncio.futures on every call, as BaseEventLoop
 * does, so a patched asyncio.futures.Future is still honoured. */
static PyObject *loop_create_future(LoopObject *l, PyObject *unused)
{
    static PyObject *futures_mod, *kwnames;
    if (!futures_mod && !(futures_mod = PyImport_ImportModule("asyncio.futures")))
        return NULL;
    if (!kwnames && !(kwnames = Py_BuildValue("(s)", "loop")))
        return NULL;
    PyObject *cls = PyObject_GetAttrString(futures_mod, "Future");
    if (!cls)
        return NULL;
    PyObject *args[1] = {(PyObject *)l};
    PyObject *f = PyObject_Vectorcall(cls, args, 0, kwnames);
    Py_DECREF(cls);
    return f;
}

static PyObject *loop_get_debug(LoopObject *l, PyObject *unused)
{
    return PyBool_FromLong(l->debug);
}

static PyObject *loop_check_closed(LoopObject *l, PyObject *unused)
{
    if (l->closed) {
        PyErr_SetString(PyExc_RuntimeError, "Event loop is closed");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *loop_core_close(LoopObject *l, PyObject *unused)
{
    l->closed = 1;
    loop_release(l);
    Py_RETURN_NONE;
}

static PyObject *loop_backend(LoopObject *l, void *c)
{
    if (!l->vl)
        Py_RETURN_NONE;
    return PyUnicode_FromString(vigil_loop_backend(l->vl));
}

static PyObject *loop_backend_reason(LoopObject *l, void *c)
{
    if (!l->vl)
        Py_RETURN_NONE;
    return PyUnicode_FromString(vigil_loop_backend_reason(l->vl));
}

static PyObject *loop_stats(LoopObject *l, PyObject *unused)
{
    struct vigil_loop_stats st;
    if (check_open(l) < 0)
        return NULL;
    if (vigil_loop_stats_get(l->vl, &st) < 0)
        Py_RETURN_NONE;
    return Py_BuildValue("{sKsKsKsLsLsLsL}", "turns", (unsigned long long)st.turns, "waits",
                         (unsigned long long)st.waits, "timer_wakeups", (unsigned long long)st.timer_wakeups,
                         "late_p50_ns", (long long)st.late_p50_ns, "late_p99_ns", (long long)st.late_p99_ns,
                         "late_max_ns", (long long)st.late_max_ns, "precise_margin_ns",
                         (long long)st.precise_margin_ns);
}

static PyObject *loop_ready_count(LoopObject *l, PyObject *unused)
{
    return PyLong_FromSize_t(l->rq_len);
}

static PyObject *loop_timer_count(LoopObject *l, PyObject *unused)
{
    size_t n = 0;
    for (TimerHandleObject *t = l->timers; t; t = t->next)
        n++;
    return PyLong_FromSize_t(n);
}

static PyObject *loop_wakeup(LoopObject *l, PyObject *unused)
{
    if (l->wake_fd >= 0) {
        uint64_t one = 1;
        if (write(l->wake_fd, &one, sizeof one) < 0) {
        }
    }
    Py_RETURN_NONE;
}

#define FLAG_GETSET(name, field)                                                                                       \
    static PyObject *get_##name(LoopObject *l, void *c)                                                                \
    {                                                                                                                  \
        return PyBool_FromLong(l->field);                                                                              \
    }                                                                                                                  \
    static int set_##name(LoopObject *l, PyObject *v, void *c)                                                         \
    {                                                                                                                  \
        int b = v ? PyObject_IsTrue(v) : 0;                                                                            \
        if (b < 0)                                                                                                     \
            return -1;                                                                                                 \
        l->field = b;                                                                                                  \
        return 0;                                                                                                      \
    }
FLAG_GETSET(closed, closed)
FLAG_GETSET(stopping, stopping)
FLAG_GETSET(debug, debug)

static PyMethodDef loop_methods[] = {
    {"time", (PyCFunction)loop_time, METH_NOARGS, "CLOCK_MONOTONIC in seconds (time.monotonic())."},
    {"call_soon", (PyCFunction)(void (*)(void))loop_call_soon, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"call_soon_threadsafe", (PyCFunction)(void (*)(void))loop_call_soon_threadsafe, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"_call_soon_threadsafe", (PyCFunction)(void (*)(void))loop_call_soon_threadsafe, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"call_later", (PyCFunction)(void (*)(void))loop_call_later, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"call_at", (PyCFunction)(void (*)(void))loop_call_at, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"_add_reader", (PyCFunction)(void (*)(void))loop_add_reader, METH_FASTCALL, NULL},
    {"_add_writer", (PyCFunction)(void (*)(void))loop_add_writer, METH_FASTCALL, NULL},
    {"_remove_reader", (PyCFunction)loop_remove_reader, METH_O, NULL},
    {"_remove_writer", (PyCFunction)loop_remove_writer, METH_O, NULL},
    {"_fd_handles", (PyCFunction)loop_fd_handles, METH_O, NULL},
    {"_run", (PyCFunction)loop_run, METH_NOARGS, "Run turns until stop() (the C run loop)."},
    {"_run_once_nowait", (PyCFunction)loop_run_once, METH_NOARGS, NULL},
    {"_flush_changes", (PyCFunction)loop_flush_changes, METH_NOARGS, NULL},
    {"stop", (PyCFunction)loop_stop, METH_NOARGS, "Stop after the current turn."},
    {"is_closed", (PyCFunction)loop_is_closed, METH_NOARGS, NULL},
    {"create_future", (PyCFunction)loop_create_future, METH_NOARGS, "A new asyncio.Future on this loop."},
    {"get_debug", (PyCFunction)loop_get_debug, METH_NOARGS, "Whether debug mode is on."},
    {"_check_closed", (PyCFunction)loop_check_closed, METH_NOARGS, NULL},
    {"_vigil_close", (PyCFunction)loop_core_close, METH_NOARGS, NULL},
    {"_vigil_stats", (PyCFunction)loop_stats, METH_NOARGS, NULL},
    {"_vigil_ready_count", (PyCFunction)loop_ready_count, METH_NOARGS, NULL},
    {"_vigil_timer_count", (PyCFunction)loop_timer_count, METH_NOARGS, NULL},
    {"_vigil_wakeup", (PyCFunction)loop_wakeup, METH_NOARGS, NULL},
    {NULL},
};

static PyGetSetDef loop_getset[] = {
    {"_closed", (getter)get_closed, (setter)set_closed, NULL, NULL},
    {"_stopping", (getter)get_stopping, (setter)set_stopping, NULL, NULL},
    {"_debug", (getter)get_debug, (setter)set_debug, NULL, NULL},
    {"backend", (getter)loop_backend, NULL, "The vigil backend: uring, epoll or poll.", NULL},
    {"backend_reason", (getter)loop_backend_reason, NULL, NULL, NULL},
    {NULL},
};

PyTypeObject Vigil_LoopType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vigil._core.Loop",
    .tp_basicsize = sizeof(LoopObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C core of vigil's asyncio loop.",
    .tp_new = loop_tp_new,
    .tp_dealloc = (destructor)loop_dealloc,
    .tp_traverse = (traverseproc)loop_traverse,
    .tp_clear = (inquiry)loop_clear,
    .tp_methods = loop_methods,
    .tp_getset = loop_getset,
    .tp_weaklistoffset = offsetof(LoopObject, weakreflist),
};

/* ---------------------------------------------------------------- module */

static PyObject *mod_set_hooks(PyObject *m, PyObject *args)
{
    PyObject *repr;
    if (!PyArg_ParseTuple(args, "O", &repr))
        return NULL;
    Py_XINCREF(repr);
    Py_XSETREF(hook_handle_repr, repr);
    Py_RETURN_NONE;
}

static PyObject *mod_monotonic_ns(PyObject *m, PyObject *unused)
{
    return PyLong_FromLongLong(mono_ns());
}

static PyMethodDef mod_methods[] = {
    {"_set_hooks", mod_set_hooks, METH_VARARGS, NULL},
    {"monotonic_ns", mod_monotonic_ns, METH_NOARGS, "CLOCK_MONOTONIC in ns."},
    {NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "vigil._core", "vigil's asyncio loop core (C, over libvigil).", -1, mod_methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&Vigil_HandleType) < 0 || PyType_Ready(&Vigil_TimerHandleType) < 0 ||
        PyType_Ready(&Vigil_LoopType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    Py_INCREF(&Vigil_HandleType);
    PyModule_AddObject(m, "Handle", (PyObject *)&Vigil_HandleType);
    Py_INCREF(&Vigil_TimerHandleType);
    PyModule_AddObject(m, "TimerHandle", (PyObject *)&Vigil_TimerHandleType);
    Py_INCREF(&Vigil_LoopType);
    PyModule_AddObject(m, "Loop", (PyObject *)&Vigil_LoopType);
    PyModule_AddStringConstant(m, "libvigil_version", vigil_version_string());
    if (vigil_py_transport_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
