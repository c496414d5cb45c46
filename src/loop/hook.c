/* Hooks around the wait (a module, see loop.h): idle, prepare and check watchers
 * (<vigil/loop.h>). The state -- one list per kind, in start order -- is made at the
 * loop's first hook start; the turn (turn.h) reaches it only through the two counters
 * in struct vigil_loop (hooks_before, hooks_check), so a loop with no hook started
 * never calls into this file.
 *
 * Walks. A kind's hooks run in one walk down its list. A callback may stop any hook (a
 * stop of the walk's next hook moves the walk on, as the signal and fd walks do) and
 * start any (appended at the tail). Each walk bears a number; a hook remembers the
 * number of the walk during which it was started, and a walk skips hooks of its own
 * number: a hook started by a hook of its kind -- a callback that stops and restarts
 * its own hook included -- waits for the next turn, and a walk always ends.
 *
 * May call: the loop's core (loop.h). Loop thread only.
 */
#include "loop/loop.h"
#include "sys/list.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

enum { K_IDLE = 0, K_PREPARE, K_CHECK, K_N };

typedef void (*hook_fn)(void); /* the kind's callback type, cast back before each call */

/* The library's view of vigil_prepare, vigil_check and vigil_idle (one layout). */
struct hookw {
    void *data;
    hook_fn cb;
    struct hookw *next, *prev; /* the kind's list, in start order */
    uint64_t walk;             /* the walk during which it was started */
    uint32_t state;            /* 1 while started */
    uint32_t kind;             /* K_*, while started */
    uint64_t reserved_;
};
_Static_assert(sizeof(struct hookw) == sizeof(vigil_prepare) && sizeof(struct hookw) == sizeof(vigil_check) &&
                   sizeof(struct hookw) == sizeof(vigil_idle),
               "hooks: size is ABI");
_Static_assert(offsetof(struct hookw, data) == offsetof(vigil_prepare, data) &&
                   offsetof(struct hookw, data) == offsetof(vigil_check, data) &&
                   offsetof(struct hookw, data) == offsetof(vigil_idle, data),
               "struct hookw must mirror the hook structs");

struct hook_list {
    struct hookw *head, *tail;
    struct hookw *iter_next; /* next hook of the running walk (stop advances it) */
    uint64_t walk;           /* the running walk's number (or the last one's) */
    unsigned n;              /* started hooks of this kind */
};

VIGIL__DLIST_DEFINE(hook_list, struct hook_list, struct hookw)

struct hooks {
    struct hook_list k[K_N];
};

static void hooks_fini(vigil_loop *loop, void *state)
{
    (void)loop;
    struct hooks *h = state;
    /* Stopped and forgotten: vigil_*_active says 0 from here on. */
    for (int i = 0; i < K_N; i++) {
        for (struct hookw *w = h->k[i].head, *next; w; w = next) {
            next = w->next;
            w->state = 0;
            w->next = w->prev = NULL;
        }
    }
    free(h);
}

static void hooks_init(void *state)
{
    struct hooks *h = state;
    for (int i = 0; i < K_N; i++)
        h->k[i].walk = 1; /* hooks started before the first walk carry 1: walk 2 runs them */
}

static void count(vigil_loop *loop, int kind, int delta)
{
    loop->hooks += (unsigned)delta;
    if (kind == K_CHECK)
        loop->hooks_check += (unsigned)delta;
    loop->active += (unsigned)delta;
}

static int hook_start(vigil_loop *loop, struct hookw *w, int kind, hook_fn cb)
{
    if (!loop || !w || !cb)
        return -EINVAL;
    if (w->state)
        return -EBUSY;
    struct hooks *h = vigil__module_get(loop, VIGIL__MOD_HOOKS, sizeof(struct hooks), hooks_fini, hooks_init);
    if (!h)
        return -ENOMEM;
    struct hook_list *l = &h->k[kind];
    w->cb = cb;
    w->kind = (uint32_t)kind;
    w->walk = l->walk;
    w->state = 1;
    hook_list_push(l, w);
    count(loop, kind, 1);
    return 0;
}

static int hook_stop(vigil_loop *loop, struct hookw *w, int kind)
{
    if (!loop || !w)
        return -EINVAL;
    if (!w->state)
        return 0;
    struct hooks *h = loop->mod[VIGIL__MOD_HOOKS];
    if (!h || w->kind != (uint32_t)kind)
        return -EINVAL; /* started on no loop's hooks, or as another kind: corrupt */
    struct hook_list *l = &h->k[kind];
    if (l->iter_next == w)
        l->iter_next = w->next;
    hook_list_remove(l, w);
    w->state = 0;
    count(loop, kind, -1);
    return 0;
}

static void run_kind(vigil_loop *loop, struct hooks *h, int kind)
{
    struct hook_list *l = &h->k[kind];
    if (!l->head)
        return;
    uint64_t walk = ++l->walk;
    for (struct hookw *w = l->head; w; w = l->iter_next) {
        l->iter_next = w->next;
        if (w->walk == walk)
            continue; /* started during this walk: from the next turn */
        loop->in_callback++;
        switch (kind) {
        case K_IDLE: ((vigil_idle_cb)w->cb)(loop, (vigil_idle *)(void *)w); break;
        case K_PREPARE: ((vigil_prepare_cb)w->cb)(loop, (vigil_prepare *)(void *)w); break;
        default: ((vigil_check_cb)w->cb)(loop, (vigil_check *)(void *)w); break;
        }
        loop->in_callback--;
    }
    l->iter_next = NULL;
}

int vigil__hooks_before(vigil_loop *loop)
{
    struct hooks *h = loop->mod[VIGIL__MOD_HOOKS];
    run_kind(loop, h, K_IDLE);
    run_kind(loop, h, K_PREPARE);
    /* Hooks keep the loop alive but cannot end a wait: with nothing else active (and no
     * on_wakeup) the turn does not sleep, and the loop runs turn after turn, as libuv's
     * does with only prepare or check handles. */
    return h->k[K_IDLE].n || (loop->active == loop->hooks && !loop->on_wakeup) ? 1 : 0;
}

void vigil__hooks_check(vigil_loop *loop)
{
    run_kind(loop, loop->mod[VIGIL__MOD_HOOKS], K_CHECK);
}

/* ------------------------------------------------------------ the public calls */

static inline struct hookw *hw(void *pub)
{
    return (struct hookw *)pub;
}

static inline int hook_active(const void *pub)
{
    const struct hookw *w = pub;
    return w && w->state ? 1 : 0;
}

int vigil_prepare_start(vigil_loop *loop, vigil_prepare *w, vigil_prepare_cb cb)
{
    return hook_start(loop, hw(w), K_PREPARE, (hook_fn)cb);
}

int vigil_prepare_stop(vigil_loop *loop, vigil_prepare *w)
{
    return hook_stop(loop, hw(w), K_PREPARE);
}

int vigil_prepare_active(const vigil_prepare *w)
{
    return hook_active(w);
}

int vigil_check_start(vigil_loop *loop, vigil_check *w, vigil_check_cb cb)
{
    return hook_start(loop, hw(w), K_CHECK, (hook_fn)cb);
}

int vigil_check_stop(vigil_loop *loop, vigil_check *w)
{
    return hook_stop(loop, hw(w), K_CHECK);
}

int vigil_check_active(const vigil_check *w)
{
    return hook_active(w);
}

int vigil_idle_start(vigil_loop *loop, vigil_idle *w, vigil_idle_cb cb)
{
    return hook_start(loop, hw(w), K_IDLE, (hook_fn)cb);
}

int vigil_idle_stop(vigil_loop *loop, vigil_idle *w)
{
    return hook_stop(loop, hw(w), K_IDLE);
}

int vigil_idle_active(const vigil_idle *w)
{
    return hook_active(w);
}
