/* src/loop/: the loop and its turn. Owns struct vigil_loop, the fd table and fd
 * watchers, the cached clocks, the wakeup, the completion point, and the feature
 * modules' per-loop state (timers, signals, file I/O, mq watchers: one slot each, see
 * "Modules" below). May call: src/backend through struct vigil__backend, src/ring,
 * src/sys. The order of a turn is written once, in turn.h.
 *
 * Memory: everything here is allocated by vigil_loop_new, by a module's first use, or
 * grown when a new high-water mark is reached (a bigger fd number, more timers than
 * ever before); a steady-state turn allocates nothing.
 */
#ifndef VIGIL_LOOP_LOOP_H
#define VIGIL_LOOP_LOOP_H

#include "vigil.h"
#include "backend/backend.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIGIL__EV_CAP 512      /* events taken from the kernel per turn */
#define VIGIL__FD_TABLE_MIN 64 /* fd slots a new loop starts with */

/* The library's view of a vigil_io (its private_ words given names). */
struct vigil__io {
    void *data;
    int fd;
    uint32_t events;
    vigil_io_cb cb;
    struct vigil__io *next, *prev; /* watchers of one fd, in start order */
    uint32_t state;                /* VIGIL__IO_* */
    uint32_t spare_;
    uint64_t reserved_[2];
};
_Static_assert(sizeof(struct vigil__io) == sizeof(vigil_io), "vigil_io: size is ABI");
_Static_assert(offsetof(struct vigil__io, data) == offsetof(vigil_io, data) &&
                   offsetof(struct vigil__io, fd) == offsetof(vigil_io, fd) &&
                   offsetof(struct vigil__io, events) == offsetof(vigil_io, events),
               "struct vigil__io must mirror vigil_io");
static inline struct vigil__io *vigil__io(vigil_io *w)
{
    return (struct vigil__io *)(void *)w;
}
static inline vigil_io *vigil__io_pub(struct vigil__io *w)
{
    return (vigil_io *)(void *)w;
}

/* One slot per fd number. */
struct vigil__fd {
    struct vigil__io *head; /* watchers of this fd, in start order */
    uint32_t wanted;   /* union of the watchers' masks */
    uint32_t applied;  /* what the backend registered (0: nothing) */
    uint32_t gen;      /* bumped whenever the last watcher stops */
    uint16_t nwatch;
    uint8_t dirty;     /* on loop->dirty */
    uint8_t reset;     /* all watchers stopped since applied: register afresh */
    int32_t failed;    /* negative errno from applying, pending report; 0 none */
    int32_t fail_next; /* next fd on loop->fail_head's list, -1 ends it */
    /* The backend's own record of this fd's registration: one member per backend. */
    union {
        uint32_t poll_index; /* poll: index in its pollfd array + 1 (0: not there) */
        uint32_t epoll_mask; /* epoll: the mask registered in the kernel (lazy narrowing) */
        struct {
            uint32_t arm[2];   /* arm ids of the polls in flight, READ|PRI and WRITE (0: none) */
            uint32_t arm_gen;  /* slot generation those polls were armed for */
            uint16_t ev_index; /* 1 + index of this turn's event for the fd (0: none) */
            uint8_t kmask;     /* the bits those polls watch in the kernel */
            uint8_t verified;  /* pollability checked for generation arm_gen */
        } uring;
    } bk;
};

/* Internal fd watchers (wakeup eventfd, signalfd, timerfds, doorbells) are ordinary
 * vigil_io watchers with this state bit: they do not keep vigil_loop_run(DEFAULT) alive. */
#define VIGIL__IO_ACTIVE 0x1u
#define VIGIL__IO_INTERNAL 0x2u
#define VIGIL__IO_FAILING 0x4u  /* being told of a failed registration */

/* Clocks, by index. */
enum { VIGIL__CLK_MONO = 0, VIGIL__CLK_BOOT = 1, VIGIL__CLK_REAL = 2, VIGIL__CLK_N = 3 };

/* Modules. A feature keeps its per-loop state in a struct of its own, made by the
 * feature (on first use, through vigil__module_get, or by vigil_loop_new for timers) and
 * attached to its slot with vigil__module_attach; vigil_loop_free calls each attached module's fini in reverse
 * slot order (sockets first, then file I/O, whose draining callbacks may still use timers; timers
 * last). */
enum vigil__module_id {
    VIGIL__MOD_TIMERS = 0,
    VIGIL__MOD_HOOKS,   /* before the others: their fini may run callbacks that stop hooks */
    VIGIL__MOD_SIGNALS,
    VIGIL__MOD_MQ_WATCH,
    VIGIL__MOD_FILE,
    VIGIL__MOD_NET,
    VIGIL__MOD_FSWATCH, /* file-system watchers (src/fswatch): their inotify fds closed */
    VIGIL__MOD_DNS, /* resolvers (src/dns): ended and their sockets closed before the sockets' own fini */
    VIGIL__MOD_PROC, /* after NET: a child's exit callback at free may still close its sockets */
    VIGIL__MOD_WORK, /* the work queue: freed first, its callbacks may use every other module */
    VIGIL__MOD_N
};
typedef void (*vigil__module_fini)(vigil_loop *loop, void *state);

/* Work for the turn's completion point: a module whose news arrives as an fd event (a
 * doorbell eventfd) queues one of these from that internal watcher's callback; the turn
 * runs it after every fd event, where io_uring's op completions run too. */
struct vigil__deferred {
    struct vigil__deferred *next;
    void (*run)(vigil_loop *loop, struct vigil__deferred *d);
    bool queued;
};

struct vigil__timers;

struct vigil_loop {
    const struct vigil__backend *backend;
    void *bk;                   /* backend state */
    struct vigil__ring *ring;   /* the shared io_uring path (src/ring); NULL off io_uring */
    char bk_reason[96];         /* why this backend (fallback reason) */

    /* fd table and the turn's pending changes */
    struct vigil__fd *fds;
    int nfds;                   /* capacity of fds[] */
    int *dirty;                 /* fd numbers with pending changes; capacity nfds */
    int ndirty;
    int fail_head;              /* fds with a pending failure report (list via fail_next), -1 */
    struct vigil__io *iter_next; /* next watcher of the dispatch walk (stop() advances it) */
    struct vigil__event ev[VIGIL__EV_CAP];

    /* the completion point's queue (FIFO) */
    struct vigil__deferred *later_head, **later_tail;

    /* state of the run */
    int in_callback;            /* depth of callbacks running (vigil_loop_free refuses) */
    bool running;               /* vigil_loop_run is on the stack (a nested call is refused) */
    bool stop;
    unsigned active;            /* user watchers, timers, requests that keep RUN_DEFAULT going */
    /* started hooks (hook.c): of every kind (also counted in active), and the check
     * hooks among them. The turn tests each once, so a loop without hooks pays one
     * predictable branch at each of its two hook points. */
    unsigned hooks;
    unsigned hooks_check;
    uint64_t turns;
    uint64_t waits;

    /* cached clocks: now[c] is valid while now_epoch[c] == clock_epoch; the loop bumps
     * clock_epoch at the start of a turn and after its wait */
    int64_t now[VIGIL__CLK_N];
    uint64_t now_epoch[VIGIL__CLK_N];
    uint64_t clock_epoch;

    /* options the modules read */
    uint32_t flags;             /* VIGIL_LOOP_* */
    int64_t precise_budget_ns;

    /* modules' state, by enum vigil__module_id */
    void *mod[VIGIL__MOD_N];
    vigil__module_fini mod_fini[VIGIL__MOD_N];

    /* wakeup */
    int wake_fd;
    vigil_io wake_io;
    atomic_int wake_pending;
    void (*on_wakeup)(vigil_loop *, void *);
    void *data;

    /* timer slack to restore at free (-1: untouched) */
    long old_slack;
};

static inline struct vigil__timers *vigil__timers_of(vigil_loop *loop)
{
    return (struct vigil__timers *)loop->mod[VIGIL__MOD_TIMERS];
}

/* loop.c */
void vigil__module_attach(vigil_loop *loop, enum vigil__module_id id, void *state, vigil__module_fini fini);
/* Makes a module's state on first use: size zeroed bytes, given their first values by
 * init (NULL: none), attached with fini. NULL when out of memory. */
void *vigil__module_make(vigil_loop *loop, enum vigil__module_id id, size_t size, vigil__module_fini fini,
                         void (*init)(void *state));
/* The module's state, made by vigil__module_make the first time. */
static inline void *vigil__module_get(vigil_loop *loop, enum vigil__module_id id, size_t size,
                                      vigil__module_fini fini, void (*init)(void *state))
{
    void *state = loop->mod[id];
    return state ? state : vigil__module_make(loop, id, size, fini, init);
}

/* hook.c: the turn's hook points (see turn.h), called only while loop->hooks (resp.
 * loop->hooks_check) is not 0. vigil__hooks_before runs the idle, then the prepare
 * hooks; it returns 1 if the wait must not block (an idle hook is started, or nothing
 * but hooks is active and no on_wakeup could end the wait), else 0.
 * vigil__hooks_check runs the check hooks. */
int vigil__hooks_before(vigil_loop *loop);
void vigil__hooks_check(vigil_loop *loop);

/* fd.c: the fd table, fd watchers, failures, dispatch, the completion point, clocks */
int vigil__fd_reserve(vigil_loop *loop, int fd);     /* grow the fd table to hold fd */
/* A backend could not apply fd's registration: err (negative errno) reaches each of its
 * watchers once, after the turn, and stops them. Sets slot->applied = 0. */
void vigil__fd_failed(vigil_loop *loop, int fd, int err);
/* 0 if fd can be watched like epoll would accept it, -EBADF if closed, -EPERM for a
 * regular file or directory (epoll refuses them; poll and io_uring would report them
 * always ready): backends that do not get this from the kernel call it for new
 * registrations, so every backend gives the same result. One fstat. */
int vigil__fd_pollable(int fd);
/* close(fd) for a file vigil owns (a socket of <vigil/net.h>) whose watchers have all
 * stopped: the backend drops its registration first (epoll: EPOLL_CTL_DEL now, not
 * after the close), so a dup'd or inherited file is not left in the set. */
void vigil__fd_close(vigil_loop *loop, int fd);
/* Puts fd back on the dirty list if its watchers want something other than what is
 * applied (or it must be registered afresh). */
void vigil__fd_mark_dirty(vigil_loop *loop, int fd);
int vigil__io_start_internal(vigil_loop *loop, vigil_io *w, int fd, uint32_t events, vigil_io_cb cb);
/* The turn's steps 2 and 3 (see turn.h). */
void vigil__report_failures(vigil_loop *loop);
void vigil__dispatch(vigil_loop *loop, int n);
void vigil__keep_unapplied(vigil_loop *loop);
/* Queues d for this turn's completion point (once: a queued d is not queued again). */
void vigil__defer(vigil_loop *loop, struct vigil__deferred *d);
/* Takes d off the queue if it is there (its owner stops before the completion point). */
void vigil__undefer(vigil_loop *loop, struct vigil__deferred *d);
void vigil__run_deferred(vigil_loop *loop);

int64_t vigil__now(vigil_loop *loop, int clk);       /* cached per turn */
void vigil__now_invalidate(vigil_loop *loop);
/* Invalidates every cached clock but clk, which takes v: a read the caller just made
 * (a precise timer's spin ends on one, and the firing pass that follows needs no other). */
static inline void vigil__now_seen(vigil_loop *loop, int clk, int64_t v)
{
    loop->clock_epoch++;
    loop->now[clk] = v;
    loop->now_epoch[clk] = loop->clock_epoch;
}
int vigil__clk_index(int clock);                     /* -1 if unsupported */
extern const clockid_t vigil__clk_id[VIGIL__CLK_N];

#endif
