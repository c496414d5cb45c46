/* vigil._core.Process: a child process started by vigil (<vigil/proc.h>) for the loop's
 * subprocess transport (vigil._loop's _VigilSubprocessTransport).
 *
 * vigil_proc_start makes the child with clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD) and
 * returns once it has called execve, or with the child's own error (-ENOENT, -EACCES,
 * ...), raised here as the OSError subclass Popen raises. Pipes are vigil's
 * VIGIL_PROC_SOCKET entries: the parent's ends (non-blocking, close-on-exec) are
 * returned by stdio_fds() for the loop's socket transport. The exit is seen through the
 * child's pidfd, watched by vigil on every backend, and reaped by pidfd: no SIGCHLD
 * handler, no thread, no waitpid(-1).
 *
 * While the child runs, the Process is a handle of the loop (VPY_KIND_PROC) and the loop
 * holds a reference to it. The exit (vigil's callback records it) queues
 * on_exit(returncode) in the context captured at start; returncode as Popen's: the
 * exit code, or -signal, or 255 when something else reaped the child (exit status
 * unknown, as asyncio's child watchers report it). */
#include "handle.h"

#include <structmember.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

typedef struct ProcObject {
    PyObject_HEAD
    vigil_proc p;
    struct vpy_handle lh;
    LoopObject *loop;  /* strong while running */
    PyObject *on_exit; /* strong while running */
    PyObject *context; /* on_exit's */
    int status, sig;   /* from vigil's exit callback */
    pid_t pid;
    int returncode;    /* -1000: running */
    PyObject *weakreflist;
} ProcObject;

#define RC_RUNNING (-1000)

static void proc_release(ProcObject *po)
{
    LoopObject *l = po->loop;
    PyObject *cb = po->on_exit, *ctx = po->context;
    po->loop = NULL;
    po->on_exit = po->context = NULL;
    vpy_handle_stop(l, &po->lh);
    Py_XDECREF(cb);
    Py_XDECREF(ctx);
    Py_DECREF(l);
    Py_DECREF(po); /* the loop's */
}

static int proc_event(LoopObject *l, struct vpy_handle *lh, int revents)
{
    ProcObject *po = vpy_container_of(lh, ProcObject, lh);
    po->returncode = po->status < 0 ? 255 : po->sig ? -po->sig : po->status;
    int rc = 0;
    PyObject *arg = PyLong_FromLong(po->returncode);
    HandleObject *h = arg ? vpy_handle_new(l, 0, po->on_exit, &arg, 1, po->context) : NULL;
    Py_XDECREF(arg);
    if (!h || vpy_ready_push(l, (PyObject *)h, NULL) < 0)
        rc = -1;
    proc_release(po);
    return rc;
}

/* The loop is freed: vigil_loop_free has killed (SIGKILL) and reaped the child; nothing
 * runs in Python. */
static void proc_loop_freed(LoopObject *l, struct vpy_handle *lh)
{
    ProcObject *po = vpy_container_of(lh, ProcObject, lh);
    if (po->returncode == RC_RUNNING)
        po->returncode = -SIGKILL;
    proc_release(po);
}

static int proc_traverse(struct vpy_handle *lh, visitproc visit, void *arg)
{
    /* The loop holds a reference to the Process while it runs (as to a timer). */
    Py_VISIT((PyObject *)vpy_container_of(lh, ProcObject, lh));
    return 0;
}

static const struct vpy_handle_ops proc_ops = {
    .kind = VPY_KIND_PROC,
    .event = proc_event,
    .loop_freed = proc_loop_freed,
    .traverse = proc_traverse,
};

static void on_proc_exit(vigil_loop *vl, vigil_proc *p, int exit_status, int term_signal)
{
    ProcObject *po = vpy_container_of(p, ProcObject, p);
    po->status = exit_status;
    po->sig = term_signal;
    vpy_pend_push(vigil_loop_data(vl), &po->lh, 0);
}

/* A list of bytes -> a NULL-terminated char *[] into them (PyMem). */
static char **bytes_vector(PyObject *list)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    char **v = PyMem_Calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(list, i);
        if (!PyBytes_Check(b)) {
            PyMem_Free(v);
            PyErr_SetString(PyExc_TypeError, "argv and env must be lists of bytes");
            return NULL;
        }
        v[i] = PyBytes_AS_STRING(b);
    }
    return v;
}

/* Process(loop, file, argv, env, cwd, stdio, flags, pgid, uid, gid, on_exit)
 *   file bytes; argv list of bytes; env list of b"K=V" or None; cwd bytes or None;
 *   stdio a 3-tuple of (mode, fd) (vigil_proc_stdio); flags VIGIL_PROC_*. */
static PyObject *proc_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *loop, *file, *argv, *env, *cwd, *stdio, *on_exit;
    unsigned flags;
    int pgid, uid, gid;
    if (!PyArg_ParseTuple(args, "OSO!OOO!IiiiO", &loop, &file, &PyList_Type, &argv, &env, &cwd, &PyTuple_Type,
                          &stdio, &flags, &pgid, &uid, &gid, &on_exit))
        return NULL;
    vpy_state *st = vpy_state_of_type(type);
    if (!st)
        return NULL;
    if (!PyObject_TypeCheck(loop, st->loop_type)) {
        PyErr_SetString(PyExc_TypeError, "Process() needs a vigil loop");
        return NULL;
    }
    LoopObject *l = (LoopObject *)loop;
    if (vpy_check_open(l) < 0)
        return NULL;
    struct vigil_proc_options o;
    vigil_proc_options_init(&o);
    o.flags = flags;
    o.file = PyBytes_AS_STRING(file);
    o.pgid = pgid;
    o.uid = (uid_t)uid;
    o.gid = (gid_t)gid;
    if (cwd != Py_None) {
        if (!PyBytes_Check(cwd)) {
            PyErr_SetString(PyExc_TypeError, "cwd must be bytes or None");
            return NULL;
        }
        o.cwd = PyBytes_AS_STRING(cwd);
    }
    if (PyTuple_GET_SIZE(stdio) != 3) {
        PyErr_SetString(PyExc_ValueError, "stdio: 3 (mode, fd) pairs");
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(stdio, i), "ii", &o.stdio[i].mode, &o.stdio[i].fd))
            return NULL;
    char **av = bytes_vector(argv), **ev = NULL;
    if (!av)
        return NULL;
    if (env != Py_None) {
        if (!PyList_Check(env) || !(ev = bytes_vector(env))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "env must be a list of bytes or None");
            PyMem_Free(av);
            return NULL;
        }
    }
    o.argv = av;
    o.envp = ev;
    PyObject *ctx = PyContext_CopyCurrent();
    ProcObject *po = ctx ? (ProcObject *)type->tp_alloc(type, 0) : NULL;
    if (!po) {
        Py_XDECREF(ctx);
        PyMem_Free(av);
        PyMem_Free(ev);
        return NULL;
    }
    po->returncode = RC_RUNNING;
    vpy_handle_init(&po->lh, &proc_ops);
    int r;
    /* The calling thread waits until the child has exec'd: other threads may run. */
    Py_BEGIN_ALLOW_THREADS
    /* the pidfd (and the child's socketpairs) take numbers an idle watch may still hold
     * for a file closed this turn: stop those first (io.c: vpy_fdwatch_forget) */
    vpy_fdwatch_flush(l);
    r = vigil_proc_start(l->vl, &po->p, &o, on_proc_exit);
    Py_END_ALLOW_THREADS
    PyMem_Free(av);
    PyMem_Free(ev);
    if (r < 0) {
        Py_DECREF(ctx);
        Py_DECREF(po);
        /* Popen names the program, or the cwd when that is what failed. */
        int err = -r;
        PyObject *b = (o.cwd && access(o.cwd, X_OK) < 0) ? cwd : file;
        PyObject *name = PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
        if (!name)
            return NULL;
        errno = err;
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, name);
        Py_DECREF(name);
        return NULL;
    }
    po->pid = po->p.pid;
    po->loop = (LoopObject *)Py_NewRef(loop);
    po->on_exit = Py_NewRef(on_exit);
    po->context = ctx;
    Py_INCREF(po); /* the loop's, until the exit */
    vpy_handle_start(l, &po->lh);
    return (PyObject *)po;
}

/* stdio_fds() -> (fd0, fd1, fd2): the parent's socket ends (-1 for the others); the
 * caller owns them. */
static PyObject *proc_stdio_fds(ProcObject *po, PyObject *unused)
{
    return Py_BuildValue("(iii)", po->p.stdio_fd[0], po->p.stdio_fd[1], po->p.stdio_fd[2]);
}

/* send_signal(sig): by pidfd; nothing once the exit is known (as Popen). */
static PyObject *proc_send_signal(ProcObject *po, PyObject *arg)
{
    long sig = PyLong_AsLong(arg); /* (_PyLong_AsInt is gone in 3.13) */
    if (sig == -1 && PyErr_Occurred())
        return NULL;
    if (sig < 0 || sig > 64) {
        PyErr_SetString(PyExc_ValueError, "signal number out of range");
        return NULL;
    }
    if (po->returncode != RC_RUNNING || !po->loop || !po->loop->vl)
        Py_RETURN_NONE;
    int r = vigil_proc_kill(po->loop->vl, &po->p, (int)sig);
    if (r == -ESRCH)
        Py_RETURN_NONE; /* exited, the exit not yet delivered */
    if (r < 0)
        return vpy_set_oserror(-r);
    Py_RETURN_NONE;
}

static PyObject *proc_returncode_get(ProcObject *po, void *unused)
{
    if (po->returncode == RC_RUNNING)
        Py_RETURN_NONE;
    return PyLong_FromLong(po->returncode);
}

static PyObject *proc_pidfd_get(ProcObject *po, void *unused)
{
    return PyLong_FromLong(vigil_proc_pidfd(&po->p));
}

static int proc_tp_traverse(ProcObject *po, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(po));
    Py_VISIT((PyObject *)po->loop);
    Py_VISIT(po->on_exit);
    Py_VISIT(po->context);
    return 0;
}

static void proc_dealloc(ProcObject *po)
{
    vpy_dealloc_begin((PyObject *)po, po->weakreflist);
    /* Never while running: the loop holds a reference until the exit. */
    vpy_dealloc_end((PyObject *)po);
}

static PyMethodDef proc_methods[] = {
    {"stdio_fds", (PyCFunction)proc_stdio_fds, METH_NOARGS, NULL},
    {"send_signal", (PyCFunction)proc_send_signal, METH_O, NULL},
    {NULL},
};

static PyGetSetDef proc_getset[] = {
    {"returncode", (getter)proc_returncode_get, NULL, NULL, NULL},
    {"pidfd", (getter)proc_pidfd_get, NULL, NULL, NULL},
    {NULL},
};

static PyMemberDef proc_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ProcObject, weakreflist), READONLY},
    {"pid", T_INT, offsetof(ProcObject, pid), READONLY},
    {NULL},
};

static PyType_Slot proc_slots[] = {
    {Py_tp_new, proc_new},
    {Py_tp_dealloc, proc_dealloc},
    {Py_tp_traverse, proc_tp_traverse},
    {Py_tp_methods, proc_methods},
    {Py_tp_getset, proc_getset},
    {Py_tp_members, proc_members},
    {0, NULL},
};

static PyType_Spec proc_spec = {
    .name = "vigil._core.Process",
    .basicsize = sizeof(ProcObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = proc_slots,
};

int vpy_proc_type_add(PyObject *m, vpy_state *st)
{
    PyTypeObject *t = (PyTypeObject *)PyType_FromModuleAndSpec(m, &proc_spec, NULL);
    if (!t)
        return -1;
    int r = PyModule_AddType(m, t);
    Py_DECREF(t);
    if (r < 0)
        return -1;
    if (PyModule_AddIntConstant(m, "PROC_INHERIT", VIGIL_PROC_INHERIT) < 0 ||
        PyModule_AddIntConstant(m, "PROC_CLOSE", VIGIL_PROC_CLOSE) < 0 ||
        PyModule_AddIntConstant(m, "PROC_FD", VIGIL_PROC_FD) < 0 ||
        PyModule_AddIntConstant(m, "PROC_SOCKET", VIGIL_PROC_SOCKET) < 0 ||
        PyModule_AddIntConstant(m, "PROC_AS", VIGIL_PROC_AS) < 0 ||
        PyModule_AddIntConstant(m, "PROC_SEARCH_PATH", VIGIL_PROC_SEARCH_PATH) < 0 ||
        PyModule_AddIntConstant(m, "PROC_SETSID", VIGIL_PROC_SETSID) < 0 ||
        PyModule_AddIntConstant(m, "PROC_SETPGID", VIGIL_PROC_SETPGID) < 0 ||
        PyModule_AddIntConstant(m, "PROC_SETUID", VIGIL_PROC_SETUID) < 0 ||
        PyModule_AddIntConstant(m, "PROC_SETGID", VIGIL_PROC_SETGID) < 0)
        return -1;
    return 0;
}
