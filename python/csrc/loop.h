/* The loop object, and what every file above it may call: the shared lifecycle of the
 * loop's handles, the events vigil's callbacks record, the ready queue.
 *
 * Layers (each calls only downward; a handle kind above the core reaches the loop only
 * through this header and its ops):
 *   module.c             the module: state, types, exec slot
 *   transport_new.c      making a stream transport (the SocketTransport shell and its
 *                        TransportIO), for the accept path and _make_socket_transport
 *   stream.c             the stream socket transport (TransportIO): kind STREAM
 *   mq.c, proc.c         message queues (MQ): kind MQ; children (Process): kind PROC
 *   file.c               file requests through vigil's file engine (FileIO): kind FILE
 *   loop.c               the Loop type: create/close, call_soon/call_later/call_at
 *   io.c                 readers and writers: kind FD
 *   runloop.c, handle.c  the core: the handles' lists, recorded events, the ready queue
 *                        and the turn, which runs Handles (handle.h); TimerHandle and
 *                        its vigil timer: kind TIMER
 *   ring.c               the one FIFO ring
 *
 * Threads and the GIL: the loop thread releases the GIL only inside a blocking
 * vigil_loop_run(). vigil's callbacks (timers, fd watchers, sockets) run inside that
 * call, so they touch no Python object: they record an event (vpy_pend_push), which the
 * loop thread turns into ready work once it holds the GIL again. */
#ifndef VIGIL_PY_LOOP_H
#define VIGIL_PY_LOOP_H

#include "module.h"
#include "ring.h"

#include <sys/types.h>

#include "vigil.h"

typedef struct LoopObject LoopObject;

/* ------------------------------------------------------- handle lifecycle
 *
 * A handle is anything that owns a vigil object on the loop's behalf: a started timer,
 * an fd's reader/writer watch, a transport's socket. Every kind goes through the same
 * two calls, as libuv's uv__handle_start/uv__handle_stop: vpy_handle_start once vigil
 * has accepted the object (a start that fails lists nothing: uvloop's _abort_init has
 * nothing to undo here), vpy_handle_stop when the handle gives it up. While started, a
 * handle is on its kind's list and counted, the loop delivers its events through its
 * ops, and closing the loop finishes it through its ops. */
enum vpy_kind {
    VPY_KIND_TIMER,  /* TimerHandleObject: a vigil_timer (handle.c) */
    VPY_KIND_FD,     /* struct vpy_fdwatch: a vigil_io for add_reader/add_writer (io.c) */
    VPY_KIND_STREAM, /* TransportObject: a vigil_sock (stream.c) */
    VPY_KIND_MQ,     /* one direction of an MQObject: a vigil_mq_watch (mq.c) */
    VPY_KIND_PROC,   /* ProcObject: a running vigil_proc (proc.c) */
    VPY_KIND_FILE,   /* struct freq: a vigil file request in flight (file.c) */
    VPY_KIND_LISTENER, /* ListenerObject: a listening vigil_sock accepting (server.c) */
    VPY_KIND_DGRAM,  /* DgramObject: a datagram socket's vigil_sock (dgram.c) */
    VPY_KIND_COUNT
};

struct vpy_handle;

struct vpy_handle_ops {
    enum vpy_kind kind;
    /* An event vigil recorded for the handle, now with the GIL (no Python code runs
     * here): queue what must run. revents as vigil gave it (a mask, or < 0). */
    int (*event)(LoopObject *l, struct vpy_handle *h, int revents);
    /* Run from the ready queue (handles that queue themselves: transports). 0, or -1
     * with SystemExit/KeyboardInterrupt set. */
    int (*run)(LoopObject *l, struct vpy_handle *h);
    /* The loop closes, vigil's loop still alive: stop the vigil object, drop the loop's
     * references. Must vpy_handle_stop. NULL: wait for loop_freed. */
    void (*loop_closing)(LoopObject *l, struct vpy_handle *h);
    /* vigil_loop_free ran (it ended the handle's vigil object): drop what it held.
     * Must vpy_handle_stop. */
    void (*loop_freed)(LoopObject *l, struct vpy_handle *h);
    /* GC: the Python objects the loop keeps alive through this handle. */
    int (*traverse)(struct vpy_handle *h, visitproc visit, void *arg);
};

struct vpy_handle {
    const struct vpy_handle_ops *ops;
    struct vpy_handle *prev, *next; /* the loop's list of started handles of this kind */
    char active;                    /* between vpy_handle_start and vpy_handle_stop */
};

#define vpy_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

static inline void vpy_handle_init(struct vpy_handle *h, const struct vpy_handle_ops *ops)
{
    h->ops = ops;
    h->prev = h->next = NULL;
    h->active = 0;
}

void vpy_handle_start(LoopObject *l, struct vpy_handle *h);
void vpy_handle_stop(LoopObject *l, struct vpy_handle *h);

/* ------------------------------------------------------------ the loop */

/* An entry of the ready queue: a strong reference, and how to run it. */
struct vpy_ready {
    PyObject *obj;         /* a Handle/TimerHandle, or the object that owns `h` */
    struct vpy_handle *h;  /* NULL: obj is a Handle; else run through h->ops->run */
};

/* An event recorded by a vigil callback (no GIL) for its handle. */
struct vpy_pend {
    struct vpy_handle *h;
    int revents;
    int flags; /* VPY_PEND_* */
};

/* struct vpy_pend's flags. BEHIND (vpy_pend_push_behind): the work keeps asyncio's
 * order, queued behind what was ready before the wait; without it, it runs first
 * (vpy_loop_run says why). */
#define VPY_PEND_BEHIND 1

struct LoopObject {
    PyObject_HEAD
    vpy_state *st; /* the module's state, cached: no module lookup per call */
    vigil_loop *vl;
    struct vpy_ring ready; /* of struct vpy_ready, FIFO */
    size_t ready_found;    /* at its head: found work a turn left for the next (runloop.c) */
    /* Recorded events: a flat array, emptied every turn (C heap: filled without GIL). */
    struct vpy_pend *pend;
    size_t npend, pend_cap;
    size_t npend_behind; /* of them, VPY_PEND_BEHIND */
    int pend_nomem;
    struct vpy_handle *active[VPY_KIND_COUNT]; /* started handles, per kind */
    size_t nactive[VPY_KIND_COUNT];
    struct vpy_fdwatch **fdw; /* io.c's table, by fd */
    int nfdw;
    struct vpy_fdwatch *fdw_idle; /* io.c: watches kept until the turn's wait */
    void *sbuf_free;              /* stream.c: free send buffers (io_uring) */
    int nsbuf_free;
    int nsent_turn; /* stream.c: transport sends handed to vigil since its last turn */
    int closed, stopping, debug, running;
    volatile int waiting; /* the loop thread sleeps in vigil_loop_run (GIL released) */
    int wake_fd;          /* eventfd: call_soon_threadsafe's doorbell */
    vigil_io wake_io;
    int precise;
    int is_epoll;
    int sync_send; /* epoll/poll: a transport's write tries send(2) at once (stream.c) */
    pid_t pid;
    PyObject *weakreflist;
};

/* runloop.c */
int vpy_pend_push(LoopObject *l, struct vpy_handle *h, int revents); /* no GIL needed */
/* The same for work that keeps asyncio's order (VPY_PEND_BEHIND). */
int vpy_pend_push_behind(LoopObject *l, struct vpy_handle *h, int revents);
int vpy_ready_push(LoopObject *l, PyObject *obj, struct vpy_handle *h); /* steals obj */
void vpy_ready_clear(LoopObject *l);
int vpy_process_pending(LoopObject *l);
int vpy_run_ready(LoopObject *l, size_t n); /* the first n entries */
PyObject *vpy_loop_run(LoopObject *l);
void vpy_ring_doorbell(LoopObject *l);
void vpy_on_doorbell(vigil_loop *vl, vigil_io *w, int revents);
int vpy_check_open(LoopObject *l); /* -1 with RuntimeError once closed */

/* stream.c: sets up the loop's sockets (the receive-buffer pool) as the transports
 * want it; 0 if done already, or a negative errno. Call before any vigil_sock_open. */
int vpy_stream_net_setup(LoopObject *l);
/* stream.c: a vigil socket on a dup of fd (F_DUPFD_CLOEXEC; vigil owns and closes the
 * dup, fd stays the caller's), opened after vpy_stream_net_setup and after stopping an
 * idle watch that holds the dup's number; data is its data. malloc'd: free it in its
 * close callback. NULL with the exception set. (The transport's and the listener's.) */
vigil_sock *vpy_sock_open_dup(LoopObject *l, int fd, void *data);
/* The same without vpy_stream_net_setup, for a caller that set the pool up its own way
 * (dgram.c: datagram-sized buffers). */
vigil_sock *vpy_sock_dup_open(LoopObject *l, int fd, void *data);
void vpy_stream_bufs_free(LoopObject *l); /* stream.c: the send buffers, when the loop is freed */
/* stream.c: a new TransportIO on sock (its fd given) for shell, calling protocol's
 * callbacks (buffered: a BufferedProtocol's) in a copy of the current context. NULL with
 * the exception set (RuntimeError if the loop is closed). */
PyObject *vpy_tio_create(LoopObject *l, PyObject *sock, int fd, PyObject *shell, PyObject *protocol, int buffered);

/* transport_new.c: a new vigil._loop.SocketTransport as its __init__ would make it
 * (extra info, TCP_NODELAY, its TransportIO, server._attach, loop._transports,
 * connection_made and the first read queued; waiter's result queued if not None). type
 * and proto: the socket's, if the caller knows them, else -1. extra and server may be
 * None. NULL with the exception set. */
PyObject *vpy_transport_new(LoopObject *l, PyObject *sock, int fd, int type, int proto, PyObject *protocol,
                            PyObject *waiter, PyObject *extra, PyObject *server);
/* True if cls is the shell class vpy_transport_new makes (registered by vigil._loop). */
int vpy_transport_is_shell(vpy_state *st, PyObject *cls);

/* io.c */
void vpy_fdwatch_table_free(LoopObject *l);
PyObject *vpy_loop_add_reader(LoopObject *l, PyObject *const *args, Py_ssize_t nargs);
PyObject *vpy_loop_add_writer(LoopObject *l, PyObject *const *args, Py_ssize_t nargs);
PyObject *vpy_loop_remove_reader(LoopObject *l, PyObject *fd);
PyObject *vpy_loop_remove_writer(LoopObject *l, PyObject *fd);
PyObject *vpy_loop_fd_handles(LoopObject *l, PyObject *fd);
/* add_reader/add_writer(fileobj, cb) with the handle in context (NULL: a copy of the
 * current one): sock.c's waits. */
PyObject *vpy_fdwatch_add(LoopObject *l, PyObject *fileobj, PyObject *cb, int writer, PyObject *context);
/* Stops the watches add_reader/add_writer left idle this turn (before each wait). */
void vpy_fdwatch_flush(LoopObject *l);
/* Any C code of the module that starts a vigil watcher or socket on an fd it did not get
 * through add_reader/add_writer (a transport's dup, a pipe) calls this first: an idle
 * watch may still hold the number's registration for a file closed this turn. */
void vpy_fdwatch_forget(LoopObject *l, int fd);

#endif
