/* Handle and TimerHandle (handle.h), and the timer handle's place in the loop's
 * handle lifecycle (VPY_KIND_TIMER). */
#include "handle.h"

#include <structmember.h>

#include <errno.h>
#include <string.h>

/* ------------------------------------------------------ the timer as a handle */

static int timer_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    TimerHandleObject *t = vpy_container_of(lh, TimerHandleObject, lh);
    (void)revents;
    if (!lh->active)
        return 0;
    vpy_handle_stop(l, lh); /* the started timer's reference moves to the queue */
    if (t->base.cancelled) {
        Py_DECREF(t);
        return 0;
    }
    return vpy_ready_push(l, (PyObject *)t, NULL);
}

static void timer_loop_closing(LoopObject *l, struct vpy_handle *lh)
{
    TimerHandleObject *t = vpy_container_of(lh, TimerHandleObject, lh);
    if (l->vl)
        vigil_timer_stop(l->vl, &t->timer);
    vpy_handle_stop(l, lh);
    Py_DECREF(t);
}

static int timer_traverse_lh(struct vpy_handle *lh, visitproc visit, void *arg)
{
    Py_VISIT((PyObject *)vpy_container_of(lh, TimerHandleObject, lh));
    return 0;
}

static const struct vpy_handle_ops timer_ops = {
    .kind = VPY_KIND_TIMER,
    .event = timer_event,
    .loop_closing = timer_loop_closing,
    .traverse = timer_traverse_lh,
};

static void on_timer(vigil_loop *vl, vigil_timer *timer)
{
    TimerHandleObject *t = timer->data;
    (void)vl;
    vpy_pend_push(t->base.loop, &t->lh, 0);
}

/* The timer's vigil deadline is TIMER_LEAD_NS before the handle's: about what the way
 * from vigil's expiry to the callback costs (the turn's end, the GIL, the ready queue),
 * so a short timer's callback starts near its deadline instead of that much after it.
 * Never before it: vpy_timer_run() waits out the rest (at most the lead) just before the
 * callback runs, on the clock the deadline is on. */
#define TIMER_LEAD_NS 200

int vpy_timer_start(LoopObject *l, TimerHandleObject *t, double when, int64_t deadline_ns)
{
    t->when = when;
    t->deadline_ns = deadline_ns;
    int64_t armed = deadline_ns > INT64_MIN / 2 ? deadline_ns - TIMER_LEAD_NS : deadline_ns;
    int r = vigil_timer_start(l->vl, &t->timer, CLOCK_MONOTONIC, armed, 0, VIGIL_TIMER_ABS, on_timer);
    if (r < 0)
        return r;
    vpy_handle_start(l, &t->lh);
    Py_INCREF(t); /* the started timer's */
    return 0;
}

/* Waits out what is left of a timer's lead, on the deadline's clock. */
static inline void timer_wait_due(int64_t deadline_ns)
{
    while (vpy_mono_ns() < deadline_ns) {
    }
}

void vpy_timer_due(TimerHandleObject *t)
{
    timer_wait_due(t->deadline_ns);
}

/* ------------------------------------------------------------ creation */

HandleObject *vpy_handle_new(LoopObject *l, int timer, PyObject *cb, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *context)
{
    HandleObject *h;
    vpy_state *st = l->st;
    if (st->handle_free[timer]) {
        h = (HandleObject *)st->handle_free[timer];
        st->handle_free[timer] = h->callback;
        st->handle_nfree[timer]--;
        /* the type's reference, refcount 1; the GC header is as untracking left it */
        PyObject_Init((PyObject *)h, timer ? st->timer_type : st->handle_type);
    } else {
        h = timer ? (HandleObject *)PyObject_GC_New(TimerHandleObject, l->st->timer_type)
                  : PyObject_GC_New(HandleObject, l->st->handle_type);
    }
    if (!h)
        return NULL;
    h->callback = h->context = h->source_traceback = h->repr_cache = h->weakreflist = NULL;
    h->loop = NULL;
    h->cancelled = 0;
    h->is_timer = (char)timer;
    if (timer) {
        TimerHandleObject *t = (TimerHandleObject *)h;
        memset(&t->timer, 0, sizeof t->timer);
        t->timer.data = t;
        vpy_handle_init(&t->lh, &timer_ops);
        t->when = 0;
        t->deadline_ns = 0;
    }
    h->args = PyTuple_New(nargs);
    if (!h->args) {
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
    Py_INCREF(l);
    h->loop = l;
    PyObject_GC_Track(h);
    if (!h->context) {
        Py_DECREF(h);
        return NULL;
    }
    return h;
}

static int handle_traverse(HandleObject *h, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(h)); /* a heap type */
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

/* Freed Handles and TimerHandles kept for the next call_soon or call_later, at most
 * this many of each. A handle that CPython allocates counts toward the cyclic GC's young
 * generation (a collection when 700 more have been allocated than freed), one taken from
 * here does not, as uvloop's Handle and TimerHandle (Cython free lists) do not. On a
 * server with 1000 connections a turn's found work queues a Handle per connection (a
 * future's done-callback: the task's wake-up) before the ready pass runs and frees
 * them, so without this list nearly every such turn triggered a young collection of the
 * 1000 live Handles: py-echo streams at 1000 connections on io_uring, 3 s runs of
 * 50-130k requests, 5 alternated pairs: 75-107 young collections a run without the list,
 * 40-48 with it (as many as accepting the 1000 connections makes; uvloop 44-63), and the
 * time in the GC (gc.callbacks, wall clock on a loaded VM) 1.0-1.5 -> 0.16-0.42 us per
 * request. aiohttp re-arms each connection's keep-alive TimerHandle per request.
 * Large enough for such a turn; at most 1024 x (96 or 200) bytes per module, only as
 * many as were freed. */
#define HANDLE_FREE_MAX 1024

static void handle_dealloc(HandleObject *h)
{
    vpy_state *st = h->loop ? h->loop->st : NULL; /* h's type keeps st alive (its module) */
    int timer = h->is_timer;
    vpy_dealloc_begin((PyObject *)h, h->weakreflist);
    handle_clear(h);
    PyTypeObject *tp = Py_TYPE(h);
    if (st && tp == (timer ? st->timer_type : st->handle_type) && st->handle_nfree[timer] < HANDLE_FREE_MAX) {
        h->callback = st->handle_free[timer];
        st->handle_free[timer] = (PyObject *)h;
        st->handle_nfree[timer]++;
        Py_DECREF(tp); /* last: it may free the module, and with it this list */
        return;
    }
    vpy_dealloc_end((PyObject *)h);
}

void vpy_handles_free(vpy_state *st)
{
    for (int k = 0; k < 2; k++) {
        while (st->handle_free[k]) {
            PyObject *h = st->handle_free[k];
            st->handle_free[k] = ((HandleObject *)h)->callback;
            PyObject_GC_Del(h);
        }
        st->handle_nfree[k] = 0;
    }
}

/* ---------------------------------------------------------- cancel, run */

static void cancel_callback(HandleObject *h)
{
    if (h->cancelled)
        return;
    h->cancelled = 1;
    PyObject *hook = h->loop ? h->loop->st->hook_handle_repr : NULL;
    if (h->loop && h->loop->debug && hook && !h->repr_cache) {
        h->repr_cache = PyObject_CallOneArg(hook, (PyObject *)h);
        if (!h->repr_cache)
            PyErr_Clear();
    }
    Py_CLEAR(h->callback);
    Py_CLEAR(h->args);
}

void vpy_handle_cancel(HandleObject *h)
{
    if (h->cancelled)
        return;
    cancel_callback(h);
    if (!h->is_timer)
        return;
    TimerHandleObject *t = (TimerHandleObject *)h;
    if (t->lh.active) {
        LoopObject *l = h->loop;
        if (l->vl)
            vigil_timer_stop(l->vl, &t->timer);
        vpy_handle_stop(l, &t->lh);
        Py_DECREF(t); /* the started timer's reference; the caller holds another */
    }
}

/* Runs h's callback in its context; a timer's (due_ns > INT64_MIN) once its deadline has
 * come: the rest of the lead is waited out last, with the context entered, so the least
 * work lies between the deadline and the callback. */
static int handle_run(HandleObject *h, int64_t due_ns)
{
    PyObject *res = NULL;
    if (PyContext_Enter(h->context) == 0) {
        if (due_ns > INT64_MIN)
            timer_wait_due(due_ns);
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
    if (vpy_exc_escapes())
        return -1;
    PyObject *exc = vpy_fetch_exc();
    PyObject *r = PyObject_CallMethod((PyObject *)h->loop, "_vigil_callback_error", "OO", (PyObject *)h, exc);
    Py_DECREF(exc);
    if (!r) {
        if (vpy_exc_escapes())
            return -1;
        PyErr_WriteUnraisable((PyObject *)h);
        return 0;
    }
    Py_DECREF(r);
    return 0;
}

int vpy_handle_run(HandleObject *h)
{
    return handle_run(h, INT64_MIN);
}

int vpy_timer_run(TimerHandleObject *t)
{
    return handle_run(&t->base, t->deadline_ns);
}

/* --------------------------------------------------------- Python methods */

static PyObject *handle_cancel_py(HandleObject *h, PyObject *unused)
{
    vpy_handle_cancel(h);
    Py_RETURN_NONE;
}

static PyObject *handle_cancelled(HandleObject *h, PyObject *unused)
{
    return PyBool_FromLong(h->cancelled);
}

static PyObject *handle_get_context(HandleObject *h, PyObject *unused)
{
    return Py_NewRef(h->context ? h->context : Py_None);
}

static PyObject *handle_run_py(HandleObject *h, PyObject *unused)
{
    if (h->cancelled || !h->callback)
        Py_RETURN_NONE;
    if (vpy_handle_run(h) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *handle_repr(HandleObject *h)
{
    vpy_state *st = h->loop ? h->loop->st : vpy_state_of_type(Py_TYPE(h));
    if (!st)
        return NULL;
    if (st->hook_handle_repr)
        return PyObject_CallOneArg(st->hook_handle_repr, (PyObject *)h);
    return PyUnicode_FromFormat("<%s at %p>", Py_TYPE(h)->tp_name, h);
}

static PyObject *handle_get_cancelled(HandleObject *h, void *c)
{
    return PyBool_FromLong(h->cancelled);
}

static PyObject *handle_get_args(HandleObject *h, void *c)
{
    return Py_NewRef(h->args ? h->args : Py_None);
}

static PyObject *timer_when(TimerHandleObject *t, PyObject *unused)
{
    return PyFloat_FromDouble(t->when);
}

static PyObject *timer_richcompare(PyObject *a, PyObject *b, int op)
{
    vpy_state *st = vpy_state_of_type(Py_TYPE(a));
    if (!st)
        return NULL;
    if (!PyObject_TypeCheck(b, st->timer_type))
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
    {"cancel", (PyCFunction)handle_cancel_py, METH_NOARGS, "Cancel the callback."},
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
    {"__weaklistoffset__", T_PYSSIZET, offsetof(HandleObject, weakreflist), READONLY, NULL},
    {NULL},
};

static PyGetSetDef handle_getset[] = {
    {"_cancelled", (getter)handle_get_cancelled, NULL, NULL, NULL},
    {"_args", (getter)handle_get_args, NULL, NULL, NULL},
    {NULL},
};

static PyType_Slot handle_slots[] = {
    {Py_tp_doc, "A callback scheduled on a vigil loop (asyncio.Handle's interface)."},
    {Py_tp_dealloc, handle_dealloc},
    {Py_tp_traverse, handle_traverse},
    {Py_tp_clear, handle_clear},
    {Py_tp_repr, handle_repr},
    {Py_tp_methods, handle_methods},
    {Py_tp_members, handle_members},
    {Py_tp_getset, handle_getset},
    {0, NULL},
};

/* Made only by the loop (DISALLOW_INSTANTIATION), immutable like a static type. */
static PyType_Spec handle_spec = {
    .name = "vigil._core.Handle",
    .basicsize = sizeof(HandleObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = handle_slots,
};

static PyMethodDef timer_methods[] = {
    {"when", (PyCFunction)timer_when, METH_NOARGS, "The deadline, in loop.time() seconds."},
    {NULL},
};

static PyMemberDef timer_members[] = {
    {"_when", T_DOUBLE, offsetof(TimerHandleObject, when), READONLY, NULL},
    {"_scheduled", T_BOOL, offsetof(TimerHandleObject, lh.active), READONLY, NULL},
    {NULL},
};

static PyType_Slot timer_slots[] = {
    {Py_tp_doc, "A callback with a deadline on a vigil timer (asyncio.TimerHandle's interface)."},
    {Py_tp_dealloc, handle_dealloc},
    {Py_tp_traverse, handle_traverse},
    {Py_tp_clear, handle_clear},
    {Py_tp_methods, timer_methods},
    {Py_tp_members, timer_members},
    {Py_tp_richcompare, timer_richcompare},
    {Py_tp_hash, timer_hash},
    {0, NULL},
};

static PyType_Spec timer_spec = {
    .name = "vigil._core.TimerHandle",
    .basicsize = sizeof(TimerHandleObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = timer_slots,
};

int vpy_handle_types_add(PyObject *m, vpy_state *st)
{
    st->handle_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &handle_spec, NULL);
    if (!st->handle_type || PyModule_AddType(m, st->handle_type) < 0)
        return -1;
    st->timer_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &timer_spec, (PyObject *)st->handle_type);
    if (!st->timer_type || PyModule_AddType(m, st->timer_type) < 0)
        return -1;
    return 0;
}
