/* The loop's life cycle, backend choice, vigil_loop_run's entry, modules, wakeup and
 * stats. The turn itself is src/loop/turn.h (compiled into each backend); the fd table
 * and watchers are fd.c.
 */
#include "loop/loop.h"
#include "loop/timer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>



/* ----------------------------------------------------------------- modules */

void vigil__module_attach(vigil_loop *loop, enum vigil__module_id id, void *state, vigil__module_fini fini)
{
    loop->mod[id] = state;
    loop->mod_fini[id] = fini;
}

void *vigil__module_make(vigil_loop *loop, enum vigil__module_id id, size_t size, vigil__module_fini fini,
                         void (*init)(void *state))
{
    void *state = calloc(1, size);
    if (!state)
        return NULL;
    if (init)
        init(state);
    vigil__module_attach(loop, id, state, fini);
    return state;
}

/* Reverse slot order (see loop.h). A module's fini may still run callbacks (file I/O
 * completes what is in flight) and use the modules below it. */
static void modules_fini(vigil_loop *loop)
{
    for (int id = VIGIL__MOD_N - 1; id >= 0; id--) {
        if (loop->mod[id]) {
            void *state = loop->mod[id];
            vigil__module_fini fini = loop->mod_fini[id];
            fini(loop, state);
            loop->mod[id] = NULL;
            loop->mod_fini[id] = NULL;
        }
    }
}

/* ------------------------------------------------------------------ wakeup */

int vigil_loop_wakeup(vigil_loop *loop)
{
    if (!loop)
        return -EINVAL;
    /* Only the first wakeup since the loop last drained writes: later ones coalesce. */
    if (atomic_exchange_explicit(&loop->wake_pending, 1, memory_order_seq_cst) == 0) {
        uint64_t one = 1;
        if (write(loop->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
            return -errno;
    }
    return 0;
}

static void wake_cb(vigil_loop *loop, vigil_io *w, int revents)
{
    (void)w;
    (void)revents;
    /* Drain, then clear the flag, then call on_wakeup. A wakeup racing with us either
     * saw 1 (before the clear: it wrote nothing and is served by the on_wakeup call
     * below, which runs after) or saw 0 (after the clear: its write makes the eventfd
     * readable again, a later turn comes here). Clearing before draining was wrong: a
     * wakeup that saw 0 between the clear and the drain had its write drained here
     * while the flag it set stayed 1, and every later vigil_loop_wakeup was dropped. */
    uint64_t v;
    while (read(loop->wake_fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
    /* A full barrier (seq_cst exchange, not a release store): what on_wakeup reads next
     * must not be read before the clear is visible, or a wakeup that saw 1 just before
     * the clear would have its work missed by on_wakeup (x86 lets a load pass a
     * buffered store). */
    atomic_exchange_explicit(&loop->wake_pending, 0, memory_order_seq_cst);
    if (loop->on_wakeup)
        loop->on_wakeup(loop, loop->data);
}

int vigil_loop_run(vigil_loop *loop, enum vigil_run_mode mode)
{
    if (!loop || (mode != VIGIL_RUN_DEFAULT && mode != VIGIL_RUN_ONCE && mode != VIGIL_RUN_NOWAIT))
        return -EINVAL;
    /* Called from one of the loop's callbacks: a nested turn would re-enter the
     * dispatch walk and the completion queue the outer turn is in the middle of. */
    if (loop->running)
        return -EBUSY;
    /* A tail call: the backend's run loop takes this frame's place (see turn.h). */
    return loop->backend->run(loop, mode);
}

void vigil_loop_stop(vigil_loop *loop)
{
    if (loop)
        loop->stop = true;
}

/* ------------------------------------------------------------- life cycle */

void vigil_loop_options_init(struct vigil_loop_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

static const struct vigil__backend *backend_named(const char *name)
{
    if (!strcmp(name, "uring"))
        return &vigil__backend_uring;
    if (!strcmp(name, "epoll"))
        return &vigil__backend_epoll;
    if (!strcmp(name, "poll"))
        return &vigil__backend_poll;
    return NULL;
}

/* AUTO tries io_uring, then epoll, then poll, and keeps why it fell back. A forced
 * backend the kernel refuses is an error: the caller asked for it by name. */
static int pick_backend(vigil_loop *loop, int kind)
{
    static const struct vigil__backend *const order[] = {&vigil__backend_uring, &vigil__backend_epoll,
                                                        &vigil__backend_poll};
    const struct vigil__backend *forced = NULL;
    if (kind == VIGIL_BACKEND_URING)
        forced = &vigil__backend_uring;
    else if (kind == VIGIL_BACKEND_EPOLL)
        forced = &vigil__backend_epoll;
    else if (kind == VIGIL_BACKEND_POLL)
        forced = &vigil__backend_poll;
    else if (kind != VIGIL_BACKEND_AUTO)
        return -EINVAL;
    if (!forced) {
        const char *env = getenv("VIGIL_BACKEND");
        if (env && *env && strcmp(env, "auto") != 0) {
            forced = backend_named(env);
            if (!forced)
                return -EINVAL;
        }
    }
    if (forced) {
        loop->backend = forced;
        int r = forced->init(loop);
        if (r < 0) {
            loop->backend = NULL;
            return r == -ENOMEM ? r : -ENOSYS;
        }
        snprintf(loop->bk_reason, sizeof loop->bk_reason, "forced");
        return 0;
    }
    char why[sizeof loop->bk_reason] = "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        loop->backend = order[i];
        loop->bk_reason[0] = 0;
        int r = order[i]->init(loop);
        if (r == 0) {
            if (why[0])
                snprintf(loop->bk_reason, sizeof loop->bk_reason, "%s", why);
            else
                snprintf(loop->bk_reason, sizeof loop->bk_reason, "first choice");
            return 0;
        }
        if (!why[0] && snprintf(why, sizeof why, "%s: %s", order[i]->name,
                                loop->bk_reason[0] ? loop->bk_reason : strerror(-r)) < 0)
            why[0] = 0;
    }
    loop->backend = NULL;
    return -ENOSYS;
}

int vigil_loop_new(vigil_loop **out, const struct vigil_loop_options *opt)
{
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (opt) {
        if (opt->size < offsetof(struct vigil_loop_options, reserved) || opt->size > sizeof o)
            return -EINVAL;
        memcpy(&o, opt, opt->size);
        for (size_t i = 0; i < sizeof o.reserved / sizeof o.reserved[0]; i++)
            if (o.reserved[i])
                return -EINVAL;
        if (o.flags & ~VIGIL_LOOP_PRECISE || o.precise_budget_ns < 0)
            return -EINVAL;
    }
    vigil_loop *loop = calloc(1, sizeof *loop);
    if (!loop)
        return -ENOMEM;
    loop->wake_fd = -1;
    loop->fail_head = -1;
    loop->later_tail = &loop->later_head;
    loop->old_slack = -1;
    loop->flags = o.flags;
    loop->precise_budget_ns = o.precise_budget_ns; /* 0: the timers' default */
    loop->on_wakeup = o.on_wakeup;
    loop->data = o.data;
    loop->clock_epoch = 1;

    int r = vigil__fd_reserve(loop, VIGIL__FD_TABLE_MIN - 1);
    if (r < 0)
        goto out_free;
    r = pick_backend(loop, o.backend);
    if (r < 0)
        goto out_free;
    r = vigil__timers_new(loop);
    if (r < 0)
        goto out_backend;
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->wake_fd < 0) {
        r = -errno;
        goto out_timers;
    }
    r = vigil__io_start_internal(loop, &loop->wake_io, loop->wake_fd, VIGIL_READ, wake_cb);
    if (r < 0)
        goto out_wake;
    if (o.timer_slack_ns >= 0) {
        /* Timer slack is per thread: remember it, restore it at free. */
        int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
        unsigned long slack = o.timer_slack_ns ? (unsigned long)o.timer_slack_ns : 1;
        if (old >= 0 && prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0) == 0)
            loop->old_slack = old;
    }
    *out = loop;
    return 0;

out_wake:
    close(loop->wake_fd);
out_timers:
    modules_fini(loop);
out_backend:
    loop->backend->fini(loop);
out_free:
    free(loop->fds);
    free(loop->dirty);
    free(loop);
    return r;
}

int vigil_loop_free(vigil_loop *loop)
{
    if (!loop)
        return -EINVAL;
    if (loop->in_callback || loop->running)
        return -EBUSY; /* from one of its own callbacks */
    modules_fini(loop);
    loop->backend->fini(loop);
    if (loop->wake_fd >= 0)
        close(loop->wake_fd);
    if (loop->old_slack >= 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)loop->old_slack, 0, 0, 0);
    free(loop->fds);
    free(loop->dirty);
    free(loop);
    return 0;
}

const char *vigil_loop_backend(const vigil_loop *loop)
{
    return loop && loop->backend ? loop->backend->name : "none";
}

const char *vigil_loop_backend_reason(const vigil_loop *loop)
{
    return loop ? loop->bk_reason : "";
}

void *vigil_loop_data(const vigil_loop *loop)
{
    return loop ? loop->data : NULL;
}

int vigil_loop_stats_get(vigil_loop *loop, struct vigil_loop_stats *out)
{
    if (!loop || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    out->turns = loop->turns;
    out->waits = loop->waits;
    vigil__timers_stats(vigil__timers_of(loop), out);
    return 0;
}
