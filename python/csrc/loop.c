/* vigil._core.Loop: creating and closing the loop, scheduling (call_soon, call_later,
 * call_at), and the methods vigil._loop.Loop (its Python subclass, which adds the
 * protocol-heavy, rarely-hot parts) calls. The turn itself is runloop.c's. */
#include "handle.h"

#include <structmember.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* ------------------------------------------------------------ create, close */

/* Finishes every handle, then vigil's loop. Handles with loop_closing (timers, fd
 * watches) are stopped while vigil's loop lives; the rest (transports) once
 * vigil_loop_free has closed their sockets and ended their requests. */
static void loop_release(LoopObject *l)
{
    struct vpy_handle *h;
    for (int k = 0; k < VPY_KIND_COUNT; k++)
        while ((h = l->active[k]) && h->ops->loop_closing)
            h->ops->loop_closing(l, h);
    vpy_fdwatch_table_free(l);
    vpy_ready_clear(l);
    l->npend = 0;
    l->npend_behind = 0;
    if (l->vl && l->pid == getpid()) {
        vigil_io_stop(l->vl, &l->wake_io);
        vigil_loop_free(l->vl);
    }
    l->vl = NULL;
    l->npend_behind = 0;
    l->npend = 0; /* what vigil_loop_free's last callbacks recorded */
    for (int k = 0; k < VPY_KIND_COUNT; k++)
        while ((h = l->active[k]))
            h->ops->loop_freed(l, h);
    if (l->wake_fd >= 0)
        close(l->wake_fd);
    l->wake_fd = -1;
}

static int parse_backend(PyObject *b, struct vigil_loop_options *opt)
{
    if (!b || b == Py_None)
        return 0;
    const char *backend = PyUnicode_AsUTF8(b);
    if (!backend)
        return -1;
    if (!strcmp(backend, "uring"))
        opt->backend = VIGIL_BACKEND_URING;
    else if (!strcmp(backend, "epoll"))
        opt->backend = VIGIL_BACKEND_EPOLL;
    else if (!strcmp(backend, "poll"))
        opt->backend = VIGIL_BACKEND_POLL;
    else if (strcmp(backend, "auto")) {
        PyErr_Format(PyExc_ValueError, "unknown vigil backend %R (uring, epoll, poll, auto)", b);
        return -1;
    }
    return 0;
}

static PyObject *loop_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    vpy_state *st = vpy_state_of_type(type);
    if (!st)
        return NULL;
    LoopObject *l = (LoopObject *)type->tp_alloc(type, 0);
    if (!l)
        return NULL;
    l->st = st;
    l->wake_fd = -1;
    struct vigil_loop_options opt;
    vigil_loop_options_init(&opt);
    int precise = 0;
    if (parse_backend(kw ? PyDict_GetItemString(kw, "backend") : NULL, &opt) < 0)
        goto fail;
    PyObject *p = kw ? PyDict_GetItemString(kw, "precise") : NULL;
    if (p) {
        precise = PyObject_IsTrue(p);
        if (precise < 0)
            goto fail;
    }
    if (precise)
        opt.flags |= VIGIL_LOOP_PRECISE;
    opt.data = l;
    int r = vigil_loop_new(&l->vl, &opt);
    if (r < 0) {
        vpy_set_oserror(-r);
        goto fail;
    }
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->wake_fd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        goto fail;
    }
    r = vigil_io_start(l->vl, &l->wake_io, l->wake_fd, VIGIL_READ, vpy_on_doorbell);
    if (r < 0) {
        vpy_set_oserror(-r);
        goto fail;
    }
    l->precise = precise;
    l->is_epoll = !strcmp(vigil_loop_backend(l->vl), "epoll");
    l->sync_send = strcmp(vigil_loop_backend(l->vl), "uring") != 0;
    l->pid = getpid();
    return (PyObject *)l;
fail:
    Py_DECREF(l);
    return NULL;
}

static int loop_traverse(LoopObject *l, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(l)); /* a heap type */
    for (size_t i = 0; i < l->ready.len; i++)
        Py_VISIT(VPY_RING_AT(&l->ready, struct vpy_ready, i).obj);
    for (int k = 0; k < VPY_KIND_COUNT; k++) {
        for (struct vpy_handle *h = l->active[k]; h; h = h->next) {
            if (h->ops->traverse) {
                int r = h->ops->traverse(h, visit, arg);
                if (r)
                    return r;
            }
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
    vpy_dealloc_begin((PyObject *)l, l->weakreflist);
    loop_release(l);
    vpy_stream_bufs_free(l);
    vpy_ring_free(&l->ready);
    free(l->pend);
    vpy_dealloc_end((PyObject *)l);
}

/* ------------------------------------------------------------ scheduling */

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

/* A new handle for args[0](*args[1:]), with the debug-mode checks. */
static HandleObject *new_handle(LoopObject *l, int timer, PyObject *const *args, Py_ssize_t nargs, PyObject *context,
                                const char *checked_as)
{
    if (vpy_check_open(l) < 0)
        return NULL;
    if (l->debug && debug_check(l, args[0], checked_as) < 0)
        return NULL;
    HandleObject *h = vpy_handle_new(l, timer, args[0], args + 1, nargs - 1, context);
    if (!h)
        return NULL;
    if (l->debug && debug_handle(l, h) < 0) {
        Py_DECREF(h);
        return NULL;
    }
    return h;
}

static PyObject *call_soon_impl(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                const char *name, int threadsafe)
{
    PyObject *context;
    if (parse_cb(args, nargs, kwnames, 0, name, &context) < 0)
        return NULL;
    HandleObject *h = new_handle(l, 0, args, nargs, context, threadsafe ? NULL : name);
    if (!h)
        return NULL;
    Py_INCREF(h);
    if (vpy_ready_push(l, (PyObject *)h, NULL) < 0) {
        Py_DECREF(h);
        return NULL;
    }
    if (threadsafe)
        vpy_ring_doorbell(l);
    return (PyObject *)h;
}

static PyObject *loop_call_soon(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return call_soon_impl(l, args, nargs, kwnames, "call_soon", 0);
}

static PyObject *loop_call_soon_threadsafe(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return call_soon_impl(l, args, nargs, kwnames, "call_soon_threadsafe", 1);
}

static PyObject *schedule_timer(LoopObject *l, double when, int64_t deadline_ns, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *context, const char *name)
{
    HandleObject *h = new_handle(l, 1, args, nargs, context, name);
    if (!h)
        return NULL;
    int r = vpy_timer_start(l, (TimerHandleObject *)h, when, deadline_ns);
    if (r < 0) {
        Py_DECREF(h);
        return vpy_set_oserror(-r);
    }
    return (PyObject *)h;
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

/* call_later's and call_at's arguments: the time (args[0], a number, never None), then
 * the callback's (parse_cb). */
static int parse_time(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *name,
                      const char *if_none, double *t, PyObject **context)
{
    if (nargs < 1 || args[0] == Py_None) {
        PyErr_SetString(PyExc_TypeError, if_none);
        return -1;
    }
    if (parse_cb(args, nargs, kwnames, 1, name, context) < 0)
        return -1;
    *t = PyFloat_AsDouble(args[0]);
    return *t == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *loop_call_later(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    /* The clock first: "now" is when the caller asked, and every step before the read
     * would add to the delay (the deadline is never earlier than asked, so the sooner
     * it is read, the nearer the callback runs to what the caller meant). */
    int64_t now = vpy_mono_ns();
    PyObject *context;
    double delay;
    if (parse_time(args, nargs, kwnames, "call_later", "delay must not be None", &delay, &context) < 0)
        return NULL;
    int64_t d = sec_to_ns_ceil(delay);
    int64_t deadline = d > INT64_MAX - now ? INT64_MAX : now + d;
    return schedule_timer(l, (double)now / 1e9 + delay, deadline, args + 1, nargs - 1, context, "call_later");
}

static PyObject *loop_call_at(LoopObject *l, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *context;
    double when;
    if (parse_time(args, nargs, kwnames, "call_at", "when cannot be None", &when, &context) < 0)
        return NULL;
    return schedule_timer(l, when, sec_to_ns_ceil(when), args + 1, nargs - 1, context, "call_at");
}

static PyObject *loop_add_reader(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    return vpy_loop_add_reader(l, args, nargs);
}

static PyObject *loop_add_writer(LoopObject *l, PyObject *const *args, Py_ssize_t nargs)
{
    return vpy_loop_add_writer(l, args, nargs);
}

/* ------------------------------------------------------------------ running */

static PyObject *loop_run(LoopObject *l, PyObject *unused)
{
    if (vpy_check_open(l) < 0)
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
    PyObject *ret = vpy_loop_run(l);
    l->stopping = 0;
    l->running = 0;
    return ret;
}

/* One turn without sleeping (tests and run_once-style helpers). */
static PyObject *loop_run_once(LoopObject *l, PyObject *unused)
{
    if (vpy_check_open(l) < 0)
        return NULL;
    int r = vigil_loop_run(l->vl, VIGIL_RUN_NOWAIT);
    if (r < 0 && r != -EINTR)
        return vpy_set_oserror(-r);
    if (vpy_process_pending(l) < 0 || vpy_run_ready(l, l->ready.len) < 0)
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
    if (r < 0 && r != -EINTR)
        return vpy_set_oserror(-r);
    if (vpy_process_pending(l) < 0)
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

/* -------------------------------------------------------------- the rest */

static PyObject *loop_time(LoopObject *l, PyObject *unused)
{
    return PyFloat_FromDouble((double)vpy_mono_ns() / 1e9);
}

/* create_future and get_debug, as BaseEventLoop's, in C: a future is made per awaited
 * receive (sock_recv, a stream's read), and the C Future's constructor asks the loop's
 * get_debug(), so in Python each future cost two interpreted calls (uvloop has both in
 * Cython). The class is looked up in asyncio.futures on every call, as BaseEventLoop
 * does, so a patched asyncio.futures.Future is still honoured. */
static PyObject *loop_create_future(LoopObject *l, PyObject *unused)
{
    vpy_state *st = l->st;
    if (!st->futures_mod && !(st->futures_mod = PyImport_ImportModule("asyncio.futures")))
        return NULL;
    PyObject *cls = PyObject_GetAttrString(st->futures_mod, "Future");
    if (!cls)
        return NULL;
    PyObject *args[1] = {(PyObject *)l};
    PyObject *f = PyObject_Vectorcall(cls, args, 0, st->kw_loop);
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
    if (vpy_check_open(l) < 0)
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
    return PyLong_FromSize_t(l->ready.len);
}

static PyObject *loop_timer_count(LoopObject *l, PyObject *unused)
{
    return PyLong_FromSize_t(l->nactive[VPY_KIND_TIMER]);
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

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL

static PyMethodDef loop_methods[] = {
    {"time", (PyCFunction)loop_time, METH_NOARGS, "CLOCK_MONOTONIC in seconds (time.monotonic())."},
    {"call_soon", FASTCALL_KW(loop_call_soon),
     "call_soon(callback, *args, context=None)\n\n"
     "Arrange for callback(*args) to be called in the next turn of the loop, after the "
     "callbacks already queued (FIFO), in context (default: a copy of the current one). "
     "Returns a Handle whose cancel() withdraws the call."},
    {"call_soon_threadsafe", FASTCALL_KW(loop_call_soon_threadsafe),
     "call_soon_threadsafe(callback, *args, context=None)\n\n"
     "Like call_soon(), from any thread: wakes the loop if it sleeps."},
    {"_call_soon_threadsafe", FASTCALL_KW(loop_call_soon_threadsafe), NULL},
    {"call_later", FASTCALL_KW(loop_call_later),
     "call_later(delay, callback, *args, context=None)\n\n"
     "Arrange for callback(*args) to be called after delay seconds (an int or a float; "
     "the deadline is rounded up to the next nanosecond), in context (default: a copy of "
     "the current one). Returns a TimerHandle whose cancel() stops the timer."},
    {"call_at", FASTCALL_KW(loop_call_at),
     "call_at(when, callback, *args, context=None)\n\n"
     "Like call_later(), at an absolute time when, on loop.time()'s clock."},
    {"_add_reader", FASTCALL(loop_add_reader), NULL},
    {"_add_writer", FASTCALL(loop_add_writer), NULL},
    {"_remove_reader", (PyCFunction)vpy_loop_remove_reader, METH_O, NULL},
    {"_remove_writer", (PyCFunction)vpy_loop_remove_writer, METH_O, NULL},
    {"_fd_handles", (PyCFunction)vpy_loop_fd_handles, METH_O, NULL},
    {"_run", (PyCFunction)loop_run, METH_NOARGS, "Run turns until stop() (the C run loop)."},
    {"_run_once_nowait", (PyCFunction)loop_run_once, METH_NOARGS, NULL},
    {"_flush_changes", (PyCFunction)loop_flush_changes, METH_NOARGS, NULL},
    {"stop", (PyCFunction)loop_stop, METH_NOARGS,
     "Stop the loop after the current turn: the callbacks already queued run, the ones "
     "they queue wait for the next run."},
    {"is_closed", (PyCFunction)loop_is_closed, METH_NOARGS, "True once the loop was closed."},
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

static PyMemberDef loop_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(LoopObject, weakreflist), READONLY, NULL},
    {NULL},
};

static PyType_Slot loop_slots[] = {
    {Py_tp_doc, "The C core of vigil's asyncio loop."},
    {Py_tp_new, loop_tp_new},
    {Py_tp_dealloc, loop_dealloc},
    {Py_tp_traverse, loop_traverse},
    {Py_tp_clear, loop_clear},
    {Py_tp_methods, loop_methods},
    {Py_tp_getset, loop_getset},
    {Py_tp_members, loop_members},
    {0, NULL},
};

static PyType_Spec loop_spec = {
    .name = "vigil._core.Loop",
    .basicsize = sizeof(LoopObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = loop_slots,
};

int vpy_loop_type_add(PyObject *m, vpy_state *st)
{
    st->loop_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &loop_spec, NULL);
    if (!st->loop_type || PyModule_AddType(m, st->loop_type) < 0)
        return -1;
    return 0;
}
