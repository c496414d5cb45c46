/* vigil._core: the asyncio loop's hot core over libvigil. Shared by core.c (the loop,
 * handles, readers/writers, timers, the run loop) and transport.c (the socket
 * transport's read/write path). Everything here is internal to the extension. */
#ifndef VIGIL_PY_CORE_H
#define VIGIL_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <sys/types.h>

#include "vigil.h"

typedef struct LoopObject LoopObject;

/* A callback queued on the loop: asyncio.Handle's contract (cancel, cancelled,
 * get_context, _run), written in C so call_soon costs one small allocation. */
typedef struct HandleObject {
    PyObject_HEAD
    PyObject *callback;    /* NULL once cancelled */
    PyObject *args;        /* a tuple; NULL once cancelled */
    PyObject *context;
    LoopObject *loop;
    PyObject *source_traceback; /* debug mode only */
    PyObject *repr_cache;       /* repr taken at cancel() in debug mode */
    PyObject *weakreflist;
    char cancelled;
} HandleObject;

/* A handle with a deadline: its vigil timer is embedded, so scheduling allocates
 * nothing beyond the object itself. While started, the loop holds one reference. */
typedef struct TimerHandleObject {
    HandleObject base;
    double when;          /* seconds, loop.time()'s clock */
    int64_t deadline_ns;  /* CLOCK_MONOTONIC, absolute */
    vigil_timer timer;
    struct TimerHandleObject *prev, *next; /* the loop's list of started timers */
    char scheduled;
} TimerHandleObject;

/* add_reader/add_writer state of one fd: one vigil_io for both directions. */
struct fdwatch {
    vigil_io io;
    HandleObject *reader, *writer;
    int fd;
    char active;
};

/* An event recorded by a vigil callback (run without the GIL) and turned into ready
 * handles once vigil_loop_run returns. */
struct pend {
    void *obj;   /* TimerHandleObject * (kind 0), struct fdwatch * (kind 1) or a
                    transport (kind 2) */
    int kind;
    int revents;
};

struct LoopObject {
    PyObject_HEAD
    vigil_loop *vl;
    /* The ready queue: a ring of strong references to handles (or transports' turn
       callbacks), FIFO. */
    PyObject **rq;
    size_t rq_head, rq_len, rq_cap;
    struct pend *pend;
    size_t npend, pend_cap;
    int pend_nomem;
    struct fdwatch **fdw;
    int nfdw;
    TimerHandleObject *timers; /* started timers (each holds a reference) */
    int closed, stopping, debug, running;
    volatile int waiting; /* the loop thread sleeps in vigil_loop_run (GIL released) */
    int wake_fd;          /* eventfd: call_soon_threadsafe's doorbell */
    vigil_io wake_io;
    int precise;
    int is_epoll;
    struct TransportObject *trs; /* transports whose vigil_sock is open */
    pid_t pid;
    PyObject *weakreflist;
};

extern PyTypeObject Vigil_LoopType;
extern PyTypeObject Vigil_HandleType;
extern PyTypeObject Vigil_TimerHandleType;

int vigil_py_pend_push(LoopObject *loop, void *obj, int kind, int revents);
int vigil_py_rq_push(LoopObject *loop, PyObject *item); /* steals item */

/* transport.c */
extern PyTypeObject Vigil_TransportType;
int vigil_py_transport_init(PyObject *module);
int vigil_py_transport_event(LoopObject *loop, void *tr, int revents);
int vigil_py_transport_run(PyObject *tr);      /* -1: SystemExit/KeyboardInterrupt */
void vigil_py_transport_loop_closed(LoopObject *loop);

#endif
