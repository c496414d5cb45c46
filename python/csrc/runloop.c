/* The run loop: the handles' lifecycle lists, the events vigil's callbacks record, the
 * ready queue, and the turn (vpy_loop_run). Every turn of a running loop is here.
 *
 * The doorbell: call_soon_threadsafe appends to the ready queue under the GIL and rings
 * the loop's own eventfd only when loop->waiting says it sleeps; waiting is set and the
 * ready queue checked under the GIL before the wait, and the first caller clears it
 * (under the GIL), so one sleep gets one write and a wake-up cannot be lost between the
 * check and the sleep. The eventfd is drained by its watcher in whatever turn sees it
 * readable: a write that lands after the drain costs one spurious turn, never a lost
 * wake-up. (vigil_loop_wakeup would do as well; this eventfd is rung only when the loop
 * sleeps, which the GIL already tells us.) */
#include "handle.h"
#include "sys/list.h" /* libvigil's intrusive lists (src/ is on the include path) */

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int vpy_check_open(LoopObject *l)
{
    if (l->closed || !l->vl) {
        PyErr_SetString(PyExc_RuntimeError, "Event loop is closed");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------- handle lifecycle */

VIGIL__HLIST_DEFINE(handle_list, struct vpy_handle, next, prev)

void vpy_handle_start(LoopObject *l, struct vpy_handle *h)
{
    enum vpy_kind k = h->ops->kind;
    handle_list_add(&l->active[k], h);
    l->nactive[k]++;
    h->active = 1;
}

void vpy_handle_stop(LoopObject *l, struct vpy_handle *h)
{
    if (!h->active)
        return;
    handle_list_del(&l->active[h->ops->kind], h);
    h->active = 0;
    l->nactive[h->ops->kind]--;
}

/* ------------------------------------------------------------ the ready queue */

#define READY_FIRST_CAP 256

int vpy_ready_push(LoopObject *l, PyObject *obj, struct vpy_handle *h)
{
    struct vpy_ready *e = vpy_ring_push(&l->ready, sizeof *e, READY_FIRST_CAP);
    if (!e) {
        Py_DECREF(obj);
        PyErr_NoMemory();
        return -1;
    }
    e->obj = obj;
    e->h = h;
    return 0;
}

static inline struct vpy_ready ready_pop(LoopObject *l)
{
    struct vpy_ready e = VPY_RING_AT(&l->ready, struct vpy_ready, 0);
    vpy_ring_drop(&l->ready);
    return e;
}

void vpy_ready_clear(LoopObject *l)
{
    l->ready_found = 0;
    while (l->ready.len) {
        struct vpy_ready e = ready_pop(l);
        Py_DECREF(e.obj);
    }
}

/* ------------------------------------------------- events from vigil callbacks */

static int pend_push(LoopObject *l, struct vpy_handle *h, int revents, int flags)
{
    if (l->npend == l->pend_cap) {
        size_t ncap = l->pend_cap ? l->pend_cap * 2 : 64;
        struct vpy_pend *n = realloc(l->pend, ncap * sizeof *n); /* no GIL here: plain C heap */
        if (!n) {
            l->pend_nomem = 1;
            return -1;
        }
        l->pend = n;
        l->pend_cap = ncap;
    }
    l->pend[l->npend++] = (struct vpy_pend){h, revents, flags};
    l->npend_behind += flags & VPY_PEND_BEHIND;
    return 0;
}

int vpy_pend_push(LoopObject *l, struct vpy_handle *h, int revents)
{
    return pend_push(l, h, revents, 0);
}

int vpy_pend_push_behind(LoopObject *l, struct vpy_handle *h, int revents)
{
    return pend_push(l, h, revents, VPY_PEND_BEHIND);
}

/* Turns the recorded events whose flags & mask equal `behind` into ready (mask 0: all)
 * work, through each handle's ops. No Python code runs here. */
static int pending_pass(LoopObject *l, int mask, int behind)
{
    int rc = 0;
    for (size_t i = 0; i < l->npend; i++) {
        struct vpy_pend *p = &l->pend[i];
        if ((p->flags & mask) == behind && p->h->ops->event(l, p->h, p->revents) < 0)
            rc = -1;
    }
    return rc;
}

static int pending_done(LoopObject *l, int rc)
{
    l->npend = 0;
    l->npend_behind = 0;
    if (l->pend_nomem) {
        l->pend_nomem = 0;
        PyErr_NoMemory();
        rc = -1;
    }
    return rc;
}

/* Turns recorded events into ready work, queued in the order vigil recorded them. */
int vpy_process_pending(LoopObject *l)
{
    return pending_done(l, pending_pass(l, 0, 0)); /* mask 0: every entry */
}

/* The same for a turn of vpy_loop_run: the work found runs first (at the head of the
 * ready queue, in the order vigil recorded it), but the VPY_PEND_BEHIND work goes behind
 * what was queued before. *first: how many entries run first; *before: how many keep
 * asyncio's order (what was queued, then the BEHIND work). */
static int process_pending_turn(LoopObject *l, size_t *first, size_t *before)
{
    size_t queued = l->ready.len;
    int rc = pending_pass(l, VPY_PEND_BEHIND, 0);
    *first = l->ready.len - queued;
    vpy_ring_rotate(&l->ready, sizeof(struct vpy_ready), queued);
    if (l->npend_behind && pending_pass(l, VPY_PEND_BEHIND, VPY_PEND_BEHIND) < 0)
        rc = -1;
    *before = l->ready.len - *first;
    return pending_done(l, rc);
}

/* ---------------------------------------------------------------- the doorbell */

void vpy_on_doorbell(vigil_loop *vl, vigil_io *w, int revents)
{
    uint64_t v;
    (void)vl;
    (void)revents;
    while (read(w->fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
}

void vpy_ring_doorbell(LoopObject *l)
{
    if (!l->waiting || l->wake_fd < 0)
        return;
    l->waiting = 0; /* the first caller of this sleep rings; the GIL orders us */
    uint64_t one = 1;
    while (write(l->wake_fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

/* ------------------------------------------------------------------ the turn */

/* Debug mode: the slow-callback report and _current_handle around one handle. */
static int run_handle_debug(LoopObject *l, HandleObject *h, double *slow)
{
    PyObject *o = (PyObject *)h;
    if (*slow < 0) {
        PyObject *v = PyObject_GetAttrString((PyObject *)l, "slow_callback_duration");
        *slow = v ? PyFloat_AsDouble(v) : 0.1;
        Py_XDECREF(v);
        if (PyErr_Occurred())
            PyErr_Clear();
    }
    if (PyObject_SetAttrString((PyObject *)l, "_current_handle", o) < 0)
        PyErr_Clear();
    int64_t t0 = vpy_mono_ns();
    int r = vpy_handle_run(h);
    double dt = (double)(vpy_mono_ns() - t0) / 1e9;
    if (PyObject_SetAttrString((PyObject *)l, "_current_handle", Py_None) < 0)
        PyErr_Clear();
    if (r == 0 && dt >= *slow) {
        PyObject *x = PyObject_CallMethod((PyObject *)l, "_vigil_slow_callback", "Od", o, dt);
        if (!x)
            PyErr_Clear();
        Py_XDECREF(x);
    }
    return r;
}

/* A turn's sends reach the kernel in batches of this many (see vpy_run_ready). */
#define SEND_BATCH 64

/* One non-blocking turn of vigil in the middle of running the ready queue: what vigil
 * found is queued behind what is queued now (FIFO), as loop_flush_changes does. */
static int mid_turn(LoopObject *l)
{
    int r = vigil_loop_run(l->vl, VIGIL_RUN_NOWAIT);
    l->nsent_turn = 0;
    if (r < 0 && r != -EINTR) {
        vpy_set_oserror(-r);
        return -1;
    }
    return vpy_process_pending(l);
}

/* Runs the first n entries of the ready queue (not what their callbacks queue).
 *
 * On io_uring a transport's write is an SQE that reaches the kernel with the turn's one
 * io_uring_enter, from a loop send buffer (stream.c). With 1,000 connections a pass
 * writes ~1,000 x 4 KiB before that call, so the kernel's copies read 4 MiB written
 * long before, out of the caches (the copy into the socket grew from 4% to 8% of the
 * echo server's CPU, 100 -> 1000 connections), and the buffers in use grow with the
 * connections; and the client got its first answer only at the end of the pass, so
 * server and client took turns instead of working at once. So once SEND_BATCH sends
 * wait, vigil runs a non-blocking turn between two callbacks: the sends go out while
 * their data is cached, their completions give the buffers back at once, the next
 * writes reuse them, and the peer starts on the answers; receives that arrived are
 * queued as usual. One system call per SEND_BATCH sends; none with fewer. py-echo at
 * 1000 x 4 KiB, 5 alternated pairs: protocol 1.11-1.37x the requests/s at 0.70-0.87x
 * the CPU per request, streams 1.11-1.24x at 0.81-0.90x; 100 connections unchanged
 * within the spread. (Under a heavily shared CPU, the client woken once per batch
 * instead of once per pass cost more than this saved: 0.97-1.26x the CPU.)
 * The full lab run of 2 Dec 2026 (quiet machine, 4 alternated rounds) with 64: 1000 x
 * 4 KiB streams 0.99x uvloop's requests/s (0.94x on uring, 0.99x on epoll), protocol
 * 1.14x (epoll; 0.96x on uring) at 0.77x its CPU per request (uring). Tried by hand the same day, 1000 x 4 KiB
 * on uring, 5 alternated rounds, medians vs uvloop, but with other benchmarks sharing the
 * 2 CPUs (load 4-6, rounds spread up to 2x): streams 16 0.91x, 32 0.98x, 64 0.94x,
 * 256 0.92x, none 1.12x, a 128 KiB byte threshold 0.98x; protocol 0.90x, 0.99x, 0.92x,
 * 0.96x, 0.83x, 1.00x; CPU per request lowest with none or 256 (0.63-0.79x), as under
 * load before. No setting stood out of the spread, so 64 stays. */
int vpy_run_ready(LoopObject *l, size_t n)
{
    double slow = -1;
    while (n-- > 0 && l->ready.len) {
        if (l->nsent_turn >= SEND_BATCH && l->vl && !l->closed && mid_turn(l) < 0)
            return -1;
        struct vpy_ready e = ready_pop(l);
        int r = 0;
        if (e.h) {
            r = e.h->ops->run(l, e.h); /* a handle's own work (a transport's I/O) */
        } else {
            HandleObject *h = (HandleObject *)e.obj;
            if (h->cancelled) {
                Py_DECREF(e.obj);
                continue;
            }
            if (l->debug) {
                if (h->is_timer)
                    vpy_timer_due((TimerHandleObject *)h);
                r = run_handle_debug(l, h, &slow);
            } else {
                r = h->is_timer ? vpy_timer_run((TimerHandleObject *)h) : vpy_handle_run(h);
            }
        }
        Py_DECREF(e.obj);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* At most this many entries of the work a wait found run in one turn; the rest stays at
 * the head of the ready queue (l->ready_found) and the next turns run it, a slice each,
 * before anything else and without waiting, so nothing new is found (no event seen
 * twice, no timer overtaking an earlier one) until the whole batch has run, as before.
 *
 * Why: a turn runs the work found, then the callbacks it queued. With 1,000 busy
 * connections one wait found ~1,000 receives, and aiohttp's data_received made
 * ~1,000 requests' objects (parser messages, Request, Task, Response...) before the
 * first of their tasks ran: the live set rose and fell by ~1,000 requests a turn. The
 * cyclic collector's young generation counts allocations minus deallocations (never
 * below 0), so each rise of more than 700 objects triggered collections, which moved the
 * live requests to the older generations: one young collection every ~120 requests,
 * with the older ones, ~12% of the server's time (aiohttp hello, 1000 connections, epoll,
 * wrk 7 s, gc.callbacks: 1,334 young collections and 865 ms in collections; rloop 173
 * and ~110 ms, only those the 1,000 connections' setup makes). A slice of 64 keeps the
 * rise below 700: 193 young collections, 40 ms. On io_uring the non-blocking turns
 * between sends (SEND_BATCH) reap receives into the queue behind the slice, so it
 * changes little there. */
#define FOUND_SLICE 64

/* Runs the first `found` entries of the ready queue, FOUND_SLICE at most, and moves the
 * rest behind everything queued now: once the turn has run what was queued before it
 * and what the slice queued, the rest is at the head again. *rest: its count. */
static int run_found(LoopObject *l, size_t found, size_t *rest)
{
    size_t run = found < FOUND_SLICE ? found : FOUND_SLICE;
    if (vpy_run_ready(l, run) < 0)
        return -1;
    /* [rest | queued | what the slice queued] -> [queued | what the slice queued | rest] */
    *rest = found - run < l->ready.len ? found - run : l->ready.len;
    vpy_ring_rotate(&l->ready, sizeof(struct vpy_ready), *rest);
    return 0;
}

/* The C run loop, until stop(). A new reference to None, or NULL with the exception. */
PyObject *vpy_loop_run(LoopObject *l)
{
    PyObject *ret = Py_None;
    for (;;) {
        int r;
        if (l->fdw_idle)
            vpy_fdwatch_flush(l);
        size_t left = l->ready_found; /* found work an earlier turn left, at the head */
        l->ready_found = 0;
        if (left) {
            r = 0; /* no wait until the batch has run (FOUND_SLICE) */
        } else if (l->ready.len == 0 && !l->stopping) {
            l->waiting = 1;
            Py_BEGIN_ALLOW_THREADS r = vigil_loop_run(l->vl, VIGIL_RUN_ONCE);
            Py_END_ALLOW_THREADS l->waiting = 0;
        } else {
            r = vigil_loop_run(l->vl, VIGIL_RUN_NOWAIT);
        }
        if (!left)
            l->nsent_turn = 0; /* the sends reached the kernel with that turn */
        if (r < 0 && r != -EINTR) {
            vpy_set_oserror(-r);
            ret = NULL;
            break;
        }
        /* The order of a turn: (1) what the wait found, (2) the ready queue as it is
         * then: what was queued before the wait, then what (1) queued; what (2)
         * queues waits for the next wait. This is uvloop's order, read from its poll
         * phase on: libuv runs the I/O callbacks (data_received) in its poll phase and
         * uvloop's ready queue in the next idle phase, so a callback and the callbacks
         * it schedules always have a wait between them, while a future completed by
         * data_received wakes its task in the same turn.
         *
         * Why not asyncio's order (found work behind the ready queue, one pass)? It
         * wakes that task only after another wait, so this loop ran a second pass for
         * what the first pass scheduled; that pass also ran, before any wait, what the
         * ready callbacks scheduled. aiohttp's handler task writes its response and
         * ends; its RequestHandler.start then resumed at once, before a wait could read
         * the client's next request, found no request and slept on a new future, which
         * that request then completed: 2.0 steps of start per request (asyncio and
         * rloop: 2.0 as well), where uvloop takes 1.5-1.7: its start resumes after a
         * poll phase that often read the next request already, and goes on with it.
         * One task step and one pass of the loop less per request. Counted on 2 Dec
         * 2026 (a counting task factory, wrk -t1 -c100, 3 s): start's steps per request
         * 2.01 -> 1.45 on epoll (uvloop 1.43-1.47), 2.01 -> 1.83 on io_uring, whose
         * sends reach the kernel only with the next turn's io_uring_enter, so the
         * answer to them is seen a turn later; at 1000 connections epoll 2.04 -> 1.23
         * (uvloop 1.11-1.23), io_uring 1.89.
         *
         * asyncio's guarantees hold: call_soon's callbacks run in FIFO order (found
         * work only moves before the ring, whose order is kept); a callback scheduled
         * by a callback runs after a later wait. One order of asyncio's is kept on
         * purpose: a stream transport's first receive (VPY_PEND_BEHIND, stream.c) runs
         * behind what was queued before the wait, so the task that awaited
         * create_connection (whose waiter completed with connection_made) resumes
         * before the first data_received, as CPython's suite expects
         * (test_buffered_proto: the callback uses the transport create_connection
         * returned). stop() ends the turn as asyncio's "current batch": what was queued
         * before the wait still runs (asyncio runs it in the same pass as the found
         * work); what the found work queued waits for the next run (in asyncio it is
         * the next iteration's), even when the stop() came from that earlier part. */
        size_t found, queued;
        if (left) { /* nothing was waited for: the found work is what was left */
            found = left < l->ready.len ? left : l->ready.len;
            queued = l->ready.len - found;
        } else if (process_pending_turn(l, &found, &queued) < 0) {
            ret = NULL;
            break;
        }
        if (PyErr_CheckSignals() < 0) {
            ret = NULL;
            break;
        }
        size_t rest = 0;
        if (found && run_found(l, found, &rest) < 0) {
            ret = NULL;
            break;
        }
        size_t scheduled = l->ready.len - queued - rest; /* by the found work */
        if (!l->closed && vpy_run_ready(l, queued) < 0) {
            ret = NULL;
            break;
        }
        if (l->stopping || l->closed)
            break; /* the rest stays in the queue, in its order: the next run runs it */
        if (vpy_run_ready(l, scheduled) < 0) {
            ret = NULL;
            break;
        }
        l->ready_found = rest; /* at the head now */
        if (l->stopping || l->closed)
            break;
    }
    if (l->fdw_idle)
        vpy_fdwatch_flush(l); /* none kept while the loop is stopped */
    l->ready_found = 0; /* what the caller does to the queue while stopped is not known */
    Py_XINCREF(ret);
    return ret;
}
