/* Handle and TimerHandle: asyncio.Handle's and asyncio.TimerHandle's contracts in C, so
 * call_soon costs one small allocation and call_later one more field. */
#ifndef VIGIL_PY_HANDLE_H
#define VIGIL_PY_HANDLE_H

#include "loop.h"

/* A callback queued on the loop (cancel, cancelled, get_context, _run). */
typedef struct HandleObject {
    PyObject_HEAD
    PyObject *callback;         /* NULL once cancelled */
    PyObject *args;             /* a tuple; NULL once cancelled */
    PyObject *context;
    LoopObject *loop;
    PyObject *source_traceback; /* debug mode only */
    PyObject *repr_cache;       /* repr taken at cancel() in debug mode */
    PyObject *weakreflist;
    char cancelled;
    char is_timer;              /* a TimerHandleObject */
} HandleObject;

/* A handle with a deadline: its vigil timer is embedded, so scheduling allocates
 * nothing beyond the object itself. While started (lh.active), the loop holds one
 * reference and lists it (VPY_KIND_TIMER). */
typedef struct TimerHandleObject {
    HandleObject base;
    double when;         /* seconds, loop.time()'s clock */
    int64_t deadline_ns; /* CLOCK_MONOTONIC, absolute */
    vigil_timer timer;
    struct vpy_handle lh;
} TimerHandleObject;

/* A new Handle (timer 0) or TimerHandle (timer 1, not started) for cb(*args) in
 * context (NULL or None: a copy of the current one). */
HandleObject *vpy_handle_new(LoopObject *l, int timer, PyObject *cb, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *context);

/* Runs the callback. 0, or -1 with SystemExit/KeyboardInterrupt set (asyncio lets only
 * those escape a callback; everything else goes to the loop's exception handler). */
int vpy_handle_run(HandleObject *h);

/* cancel(): a timer is also stopped and unlisted. */
void vpy_handle_cancel(HandleObject *h);

/* Starts t's vigil timer at deadline_ns (CLOCK_MONOTONIC, absolute). 0, or a
 * negative errno (nothing started, no exception set). */
int vpy_timer_start(LoopObject *l, TimerHandleObject *t, double when, int64_t deadline_ns);

/* Returns once t's deadline has come (its vigil timer fires a little early: see
 * TIMER_LEAD_NS); the ready queue calls it before a timer's callback in debug mode. */
void vpy_timer_due(TimerHandleObject *t);

/* vpy_handle_run for a timer the ready queue runs: the rest of the lead is waited out
 * after its context is entered, just before the callback. */
int vpy_timer_run(TimerHandleObject *t);

#endif
