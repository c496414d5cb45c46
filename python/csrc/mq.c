/* vigil._core.MQ: a POSIX message queue of vigil's (<vigil/mq.h>) for the asyncio loop.
 * vigil.mq (Python) builds MessageQueue's coroutines on it.
 *
 * The descriptor is always O_NONBLOCK: send_nowait/receive_nowait never block the loop's
 * thread; a coroutine that finds the queue full or empty waits through a vigil mq
 * watcher (<vigil/mqo_watch.h>) on the loop: on io_uring with Linux 6.7+ the futex wait
 * rides in the loop's own io_uring_enter, elsewhere vigil's helper thread per watcher
 * wakes the loop (the library's fallback; no Python thread, no GIL taken off the loop).
 *
 * Each direction (read: a message is there; write: there is room) has its own watcher,
 * started by watch() and stopped by unwatch() or close(): a handle of the loop
 * (VPY_KIND_MQ) while it is on. The watcher is level-triggered; its callback records an
 * event, and the turn queues the direction's Handle (the Python callback given to
 * watch()), as io.c does for a reader. While a direction is on, the loop holds a
 * reference to the MQ object. */
#include "handle.h"

#include <structmember.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "vigil/mq.h"
#include "vigil/mq_watch.h"

typedef struct MQObject MQObject;

struct vpy_mqdir {
    vigil_mq_watch w;
    struct vpy_handle lh;
    MQObject *owner;
    LoopObject *loop;  /* strong while on */
    HandleObject *cb;  /* strong while on */
    uint32_t events;   /* VIGIL_READ or VIGIL_WRITE */
    char on;
};

struct MQObject {
    PyObject_HEAD
    mqd_t mq; /* -1 once closed */
    long msgsize;
    vpy_state *st;
    struct vpy_mqdir dir[2]; /* [0] read, [1] write */
    PyObject *weakreflist;
};

/* ----------------------------------------------------------- the watchers */

/* Stops one direction: vigil's watcher (unless the loop is gone or forked away), the
 * loop's handle, and the references it held. May drop the last reference to the owner. */
static void dir_stop(struct vpy_mqdir *d, int vigil_alive)
{
    if (!d->on)
        return;
    LoopObject *l = d->loop;
    HandleObject *cb = d->cb;
    MQObject *owner = d->owner;
    if (vigil_alive && l->vl && l->pid == getpid())
        vigil_mq_watch_stop(l->vl, &d->w);
    d->on = 0;
    d->loop = NULL;
    d->cb = NULL;
    vpy_handle_stop(l, &d->lh);
    if (cb) {
        vpy_handle_cancel(cb);
        Py_DECREF(cb);
    }
    Py_DECREF(l);
    Py_DECREF(owner);
}

static int dir_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    struct vpy_mqdir *d = vpy_container_of(lh, struct vpy_mqdir, lh);
    int rc = 0;
    if (d->cb && !d->cb->cancelled) {
        Py_INCREF(d->cb);
        rc = vpy_ready_push(l, (PyObject *)d->cb, NULL);
    }
    if (revents < 0) /* corrupt queue: vigil stopped the watcher; the callback finds out */
        dir_stop(d, 0);
    return rc;
}

static void dir_loop_closing(LoopObject *l, struct vpy_handle *lh)
{
    dir_stop(vpy_container_of(lh, struct vpy_mqdir, lh), 1);
}

static void dir_loop_freed(LoopObject *l, struct vpy_handle *lh)
{
    dir_stop(vpy_container_of(lh, struct vpy_mqdir, lh), 0);
}

static int dir_traverse(struct vpy_handle *lh, visitproc visit, void *arg)
{
    /* The loop holds a reference to the owner per direction on (as to a timer). */
    Py_VISIT((PyObject *)vpy_container_of(lh, struct vpy_mqdir, lh)->owner);
    return 0;
}

static const struct vpy_handle_ops mqdir_ops = {
    .kind = VPY_KIND_MQ,
    .event = dir_event,
    .loop_closing = dir_loop_closing,
    .loop_freed = dir_loop_freed,
    .traverse = dir_traverse,
};

static void on_mq(vigil_loop *vl, vigil_mq_watch *w, int revents)
{
    struct vpy_mqdir *d = w->data;
    vpy_pend_push(vigil_loop_data(vl), &d->lh, revents);
}

/* ------------------------------------------------------------ the methods */

static int check_open(MQObject *q)
{
    if (q->mq == (mqd_t)-1) {
        PyErr_SetString(PyExc_ValueError, "message queue is closed");
        return -1;
    }
    return 0;
}

/* MQ(name, oflag, mode, maxmsg, msgsize): vigil_mq_open with O_NONBLOCK added;
 * maxmsg/msgsize 0: the defaults (only with O_CREAT do they matter). */
static PyObject *mqo_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"name", "oflag", "mode", "maxmsg", "msgsize", NULL};
    const char *name;
    int oflag, mode = 0600;
    long maxmsg = 0, msgsize = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "si|ill", kwlist, &name, &oflag, &mode, &maxmsg, &msgsize))
        return NULL;
    vpy_state *st = vpy_state_of_type(type);
    if (!st)
        return NULL;
    struct mq_attr attr = {0};
    attr.mq_maxmsg = maxmsg ? maxmsg : 10;
    attr.mq_msgsize = msgsize ? msgsize : 8192;
    mqd_t mq;
    Py_BEGIN_ALLOW_THREADS
    mq = (oflag & O_CREAT) ? vigil_mq_open(name, oflag | O_NONBLOCK, (mode_t)mode, (maxmsg || msgsize) ? &attr : NULL)
                           : vigil_mq_open(name, oflag | O_NONBLOCK);
    Py_END_ALLOW_THREADS
    if (mq == (mqd_t)-1)
        return PyErr_SetFromErrnoWithFilename(PyExc_OSError, name);
    struct mq_attr a;
    if (vigil_mq_getattr(mq, &a) < 0) {
        int e = errno;
        vigil_mq_close(mq);
        return vpy_set_oserror(e);
    }
    MQObject *q = (MQObject *)type->tp_alloc(type, 0);
    if (!q) {
        vigil_mq_close(mq);
        return NULL;
    }
    q->mq = mq;
    q->msgsize = a.mq_msgsize;
    q->st = st;
    for (int i = 0; i < 2; i++) {
        q->dir[i].owner = q;
        q->dir[i].events = i ? VIGIL_WRITE : VIGIL_READ;
        q->dir[i].w.data = &q->dir[i];
        vpy_handle_init(&q->dir[i].lh, &mqdir_ops);
    }
    return (PyObject *)q;
}

/* send_nowait(data, priority=0): BlockingIOError when full. */
static PyObject *mqo_send_nowait(MQObject *q, PyObject *args)
{
    Py_buffer b;
    unsigned prio = 0;
    if (!PyArg_ParseTuple(args, "y*|I", &b, &prio))
        return NULL;
    if (check_open(q) < 0) {
        PyBuffer_Release(&b);
        return NULL;
    }
    int r = vigil_mq_send(q->mq, b.buf, (size_t)b.len, prio);
    int e = errno;
    PyBuffer_Release(&b);
    if (r < 0)
        return vpy_set_oserror(e);
    Py_RETURN_NONE;
}

/* receive_nowait() -> (bytes, priority): BlockingIOError when empty. */
static PyObject *mqo_receive_nowait(MQObject *q, PyObject *unused)
{
    if (check_open(q) < 0)
        return NULL;
    PyObject *data = PyBytes_FromStringAndSize(NULL, q->msgsize);
    if (!data)
        return NULL;
    unsigned prio = 0;
    ssize_t n = vigil_mq_receive(q->mq, PyBytes_AS_STRING(data), (size_t)q->msgsize, &prio);
    if (n < 0) {
        int e = errno;
        Py_DECREF(data);
        return vpy_set_oserror(e);
    }
    if (_PyBytes_Resize(&data, n) < 0)
        return NULL;
    PyObject *res = Py_BuildValue("(NI)", data, prio);
    return res;
}

/* watch(loop, writable, callback): callback() runs in the loop each turn while the
 * queue has a message (writable False) or room (True), until unwatch(writable). */
static PyObject *mqo_watch(MQObject *q, PyObject *args)
{
    PyObject *loop, *cb;
    int writable;
    if (!PyArg_ParseTuple(args, "OpO", &loop, &writable, &cb))
        return NULL;
    if (check_open(q) < 0)
        return NULL;
    if (!PyObject_TypeCheck(loop, q->st->loop_type)) {
        PyErr_SetString(PyExc_TypeError, "watch() needs a vigil loop");
        return NULL;
    }
    LoopObject *l = (LoopObject *)loop;
    if (vpy_check_open(l) < 0)
        return NULL;
    struct vpy_mqdir *d = &q->dir[writable ? 1 : 0];
    if (d->on) {
        PyErr_SetString(PyExc_RuntimeError, "already watched");
        return NULL;
    }
    HandleObject *h = vpy_handle_new(l, 0, cb, NULL, 0, NULL);
    if (!h)
        return NULL;
    vpy_fdwatch_forget(l, q->mq); /* an idle watch of a file closed this turn may hold the number */
    int r = vigil_mq_watch_start(l->vl, &d->w, q->mq, d->events, on_mq);
    if (r < 0) {
        Py_DECREF(h);
        return vpy_set_oserror(-r);
    }
    d->cb = h;
    d->loop = (LoopObject *)Py_NewRef(loop);
    Py_INCREF(q);
    d->on = 1;
    vpy_handle_start(l, &d->lh);
    Py_RETURN_NONE;
}

static PyObject *mqo_unwatch(MQObject *q, PyObject *arg)
{
    int writable = PyObject_IsTrue(arg);
    if (writable < 0)
        return NULL;
    dir_stop(&q->dir[writable ? 1 : 0], 1);
    Py_RETURN_NONE;
}

static PyObject *mqo_watching(MQObject *q, PyObject *arg)
{
    int writable = PyObject_IsTrue(arg);
    if (writable < 0)
        return NULL;
    return PyBool_FromLong(q->dir[writable ? 1 : 0].on);
}

/* threaded(writable): None while that side is not watched, else whether its watcher
 * waits through vigil's helper thread (False: in the loop's io_uring). */
static PyObject *mqo_threaded(MQObject *q, PyObject *arg)
{
    int writable = PyObject_IsTrue(arg);
    if (writable < 0)
        return NULL;
    struct vpy_mqdir *d = &q->dir[writable ? 1 : 0];
    if (!d->on)
        Py_RETURN_NONE;
    return PyBool_FromLong(vigil_mq_watch_threaded(&d->w));
}

/* getattr() -> (flags, maxmsg, msgsize, curmsgs) */
static PyObject *mqo_getattr(MQObject *q, PyObject *unused)
{
    if (check_open(q) < 0)
        return NULL;
    struct mq_attr a;
    if (vigil_mq_getattr(q->mq, &a) < 0)
        return vpy_set_oserror(errno);
    return Py_BuildValue("(llll)", (long)a.mq_flags, (long)a.mq_maxmsg, (long)a.mq_msgsize, (long)a.mq_curmsgs);
}

static void mqo_close_fd(MQObject *q)
{
    dir_stop(&q->dir[0], 1);
    dir_stop(&q->dir[1], 1);
    if (q->mq != (mqd_t)-1) {
        vigil_mq_close(q->mq);
        q->mq = (mqd_t)-1;
    }
}

static PyObject *mqo_close(MQObject *q, PyObject *unused)
{
    Py_INCREF(q); /* dir_stop may drop the loop's references */
    mqo_close_fd(q);
    Py_DECREF(q);
    Py_RETURN_NONE;
}

static PyObject *mqo_closed_get(MQObject *q, void *unused)
{
    return PyBool_FromLong(q->mq == (mqd_t)-1);
}

static PyObject *mqo_unlink(PyObject *type, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name)
        return NULL;
    if (vigil_mq_unlink(name) < 0)
        return PyErr_SetFromErrnoWithFilename(PyExc_OSError, name);
    Py_RETURN_NONE;
}

static int mqo_traverse(MQObject *q, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(q));
    for (int i = 0; i < 2; i++) {
        Py_VISIT((PyObject *)q->dir[i].cb);
        Py_VISIT((PyObject *)q->dir[i].loop);
    }
    return 0;
}

static void mqo_dealloc(MQObject *q)
{
    vpy_dealloc_begin((PyObject *)q, q->weakreflist);
    /* No direction is on here: the loop holds a reference while one is. */
    if (q->mq != (mqd_t)-1)
        vigil_mq_close(q->mq);
    vpy_dealloc_end((PyObject *)q);
}

static PyMethodDef mqo_methods[] = {
    {"send_nowait", (PyCFunction)mqo_send_nowait, METH_VARARGS, NULL},
    {"receive_nowait", (PyCFunction)mqo_receive_nowait, METH_NOARGS, NULL},
    {"watch", (PyCFunction)mqo_watch, METH_VARARGS, NULL},
    {"unwatch", (PyCFunction)mqo_unwatch, METH_O, NULL},
    {"watching", (PyCFunction)mqo_watching, METH_O, NULL},
    {"threaded", (PyCFunction)mqo_threaded, METH_O, NULL},
    {"getattr", (PyCFunction)mqo_getattr, METH_NOARGS, NULL},
    {"close", (PyCFunction)mqo_close, METH_NOARGS, NULL},
    {"unlink", (PyCFunction)mqo_unlink, METH_O | METH_STATIC, NULL},
    {NULL},
};

static PyGetSetDef mqo_getset[] = {
    {"closed", (getter)mqo_closed_get, NULL, NULL, NULL},
    {NULL},
};

static PyMemberDef mqo_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(MQObject, weakreflist), READONLY},
    {"msgsize", T_LONG, offsetof(MQObject, msgsize), READONLY},
    {NULL},
};

static PyType_Slot mqo_slots[] = {
    {Py_tp_new, mqo_new},
    {Py_tp_dealloc, mqo_dealloc},
    {Py_tp_traverse, mqo_traverse},
    {Py_tp_methods, mqo_methods},
    {Py_tp_getset, mqo_getset},
    {Py_tp_members, mqo_members},
    {0, NULL},
};

static PyType_Spec mqo_spec = {
    .name = "vigil._core.MQ",
    .basicsize = sizeof(MQObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = mqo_slots,
};

int vpy_mq_type_add(PyObject *m, vpy_state *st)
{
    PyTypeObject *t = (PyTypeObject *)PyType_FromModuleAndSpec(m, &mqo_spec, NULL);
    if (!t)
        return -1;
    int r = PyModule_AddType(m, t);
    Py_DECREF(t);
    return r;
}
