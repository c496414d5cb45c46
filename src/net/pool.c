/* Sockets' per-loop state: the receive-buffer pool (where every buffer is: free,
 * in the ring, stashed, lent), set-up and the end of the loop. The queue of ends is
 * done.c. Loop thread only.
 */
#include "net/net_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void net_fini(vigil_loop *loop, void *state);

void vigil_net_options_init(struct vigil_net_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
    opt->buf_size = 4096;
    opt->buf_count = 4096;
}

static int pool_new(struct vigil__npool *p, uint32_t size, uint32_t count)
{
    size_t bytes = (size_t)size * count;
    /* One mapping: pages are touched only when a receive first uses them. */
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return -ENOMEM;
    p->bufs = calloc(count, sizeof *p->bufs);
    p->link = calloc(count, sizeof *p->link);
    p->stack = calloc(count, sizeof *p->stack);
    if (!p->bufs || !p->link || !p->stack) {
        munmap(mem, bytes);
        free(p->bufs), free(p->link), free(p->stack);
        return -ENOMEM;
    }
    p->mem = mem;
    p->size = size;
    p->count = count;
    for (uint32_t i = 0; i < count; i++) {
        p->bufs[i].private_id = i;
        p->stack[i] = count - 1 - i; /* lowest ids first: fewer pages touched */
    }
    p->nfree = count;
    return 0;
}

static void pool_free(struct vigil__npool *p)
{
    if (p->mem)
        munmap(p->mem, (size_t)p->size * p->count);
    free(p->bufs), free(p->link), free(p->stack);
    memset(p, 0, sizeof *p);
}

struct vigil__net *vigil__net_state(vigil_loop *loop, const struct vigil_net_options *opt, int *err)
{
    struct vigil__net *n = vigil__net_of(loop);
    if (n) {
        *err = opt ? -EBUSY : 0;
        return opt ? NULL : n;
    }
    struct vigil_net_options def;
    if (!opt) {
        vigil_net_options_init(&def);
        opt = &def;
    }
    uint32_t size = opt->buf_size ? opt->buf_size : 4096, count = opt->buf_count ? opt->buf_count : 4096;
    if (opt->size < offsetof(struct vigil_net_options, reserved) || opt->flags || size > (1u << 30) ||
        count > 32768 || (count & (count - 1))) {
        *err = -EINVAL;
        return NULL;
    }
    n = calloc(1, sizeof *n);
    if (!n) {
        *err = -ENOMEM;
        return NULL;
    }
    int e = pool_new(&n->pool, size, count);
    if (e < 0) {
        free(n);
        *err = e;
        return NULL;
    }
    vigil__net_done_init(n);
    n->eng = loop->ring ? &vigil__net_engine_uring : &vigil__net_engine_ready;
    e = n->eng->setup(loop, n);
    if (e < 0) {
        pool_free(&n->pool);
        free(n);
        *err = e;
        return NULL;
    }
    vigil__module_attach(loop, VIGIL__MOD_NET, n, net_fini);
    *err = 0;
    return n;
}

int vigil_net_setup(vigil_loop *loop, const struct vigil_net_options *opt)
{
    if (!loop)
        return -EINVAL;
    struct vigil_net_options def;
    if (!opt) {
        vigil_net_options_init(&def);
        opt = &def;
    }
    int err;
    return vigil__net_state(loop, opt, &err) ? 0 : err;
}

unsigned vigil_net_bufs_lent(vigil_loop *loop)
{
    struct vigil__net *n = loop ? vigil__net_of(loop) : NULL;
    return n ? n->pool.lent : 0;
}

int vigil_net_pool_stats_get(vigil_loop *loop, struct vigil_net_pool_stats *out)
{
    if (!loop || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    struct vigil__net *n = vigil__net_of(loop);
    if (!n)
        return 0;
    const struct vigil__npool *p = &n->pool;
    out->size = p->count;
    out->buf_size = p->size;
    out->free = p->nfree;
    out->in_ring = p->in_ring;
    out->stashed = p->stashed;
    out->lent = p->lent;
    return 0;
}

/* Sockets that waited for a buffer receive again, the longest waiting first: their
 * receives reach the kernel in that order, so the first buffers go to them (the list was
 * a stack, and the last to starve was served first). */
static __attribute__((noinline)) void wake_starved(vigil_loop *loop, struct vigil__net *n)
{
    struct vigil__sock *s = n->starved;
    n->starved = n->starved_tail = NULL;
    while (s) {
        struct vigil__sock *next = s->starved_next;
        s->starved_next = NULL;
        s->state &= ~VIGIL__S_STARVED;
        if (s->state & VIGIL__S_OPEN)
            n->eng->rx_update(loop, n, s);
        s = next;
    }
}

/* A buffer back while sockets wait for one: put it, then wake them (out of line, so
 * that vigil_buf_put's common path makes no call it must come back from and sets up no
 * frame: callgrind, echo_server under net-echo 100 x 4 KiB on io_uring, 6 instructions
 * a put fewer). */
static __attribute__((noinline)) void buf_back_starved(vigil_loop *loop, struct vigil__net *n, uint32_t id)
{
    struct vigil__npool *p = &n->pool;
    if (p->in_ring < p->window)
        n->eng->buf_put(loop, n, id);
    else
        p->stack[p->nfree++] = id;
    wake_starved(loop, n);
}

/* vigil__net_buf_back's body, inline in vigil_buf_put (a call a request less). */
static inline __attribute__((always_inline)) void buf_back(vigil_loop *loop, struct vigil__net *n, uint32_t id)
{
    /* The engine takes the buffer only where a provided-buffer ring has room for it
     * (io_uring: in_ring below its window; the engine's buf_put is called only then);
     * otherwise the free stack does (the readiness engine has no ring: window 0). In a
     * busy io_uring loop a put mostly finds the place its buffer left in the ring still
     * open (uring.c, ring_taken, refills from the stack only once the ring is an eighth
     * short), so the common put is the engine's push into the ring. When no socket
     * waits for a buffer (the common case, tested first), the engine's call is the
     * last act, a tail call. */
    struct vigil__npool *p = &n->pool;
    if (__builtin_expect(n->starved != NULL, 0)) {
        buf_back_starved(loop, n, id);
        return;
    }
    if (p->in_ring < p->window) {
        n->eng->buf_put(loop, n, id);
        return;
    }
    p->stack[p->nfree++] = id;
}

void vigil_buf_put(vigil_loop *loop, vigil_buf *buf)
{
    struct vigil__net *n = loop ? vigil__net_of(loop) : NULL;
    if (!n || !buf || buf->private_id >= n->pool.count || buf != &n->pool.bufs[buf->private_id])
        return;
    if (!buf->data)
        return; /* put already (data is NULL from the put to the next lending) */
    buf->data = NULL;
    buf->len = 0;
    n->pool.lent--;
    buf_back(loop, n, buf->private_id);
}

void vigil__net_buf_back(vigil_loop *loop, struct vigil__net *n, uint32_t id)
{
    buf_back(loop, n, id);
}

void vigil__net_starve(struct vigil__net *n, struct vigil__sock *s)
{
    if (s->state & VIGIL__S_STARVED)
        return;
    s->state |= VIGIL__S_STARVED;
    s->starved_next = NULL;
    if (n->starved_tail)
        n->starved_tail->starved_next = s;
    else
        n->starved = s;
    n->starved_tail = s;
}

void vigil__net_unstarve(struct vigil__net *n, struct vigil__sock *s)
{
    if (!(s->state & VIGIL__S_STARVED))
        return;
    s->state &= ~VIGIL__S_STARVED;
    struct vigil__sock *prev = NULL;
    for (struct vigil__sock *q = n->starved; q; prev = q, q = q->starved_next) {
        if (q != s)
            continue;
        if (prev)
            prev->starved_next = s->starved_next;
        else
            n->starved = s->starved_next;
        if (n->starved_tail == s)
            n->starved_tail = prev;
        break;
    }
    s->starved_next = NULL;
}

/* vigil_loop_free: every socket still open is closed (its requests end with
 * -ECANCELED, their callbacks run here, then its close callback: vigil_sock_close's, or
 * the one vigil_sock_set_close_cb gave), then the pool goes. Buffers the program still
 * holds die with the loop. The callbacks run here are held to the rules of any other
 * (VIGIL__NET_CALL: vigil_loop_free from one is refused); and no turn may run inside
 * the loop's own free: vigil_loop_run from one of them is refused with -EBUSY, as from
 * inside a running turn. */
static void net_fini(vigil_loop *loop, void *state)
{
    struct vigil__net *n = state;
    bool was_running = loop->running;
    loop->running = true;
    n->freeing = true;
    for (struct vigil__sock *s = n->open; s; s = s->next)
        if (s->state & VIGIL__S_OPEN)
            vigil_sock_close(loop, vigil__sock_pub(s), NULL);
    /* Ends queued for the completion point, and what the kernel still holds. */
    for (int spins = 0; n->open || n->done_head; spins++) {
        if (n->done_head) {
            vigil__undefer(loop, &n->done_later);
            vigil__net_done_run(loop, n);
            continue;
        }
        vigil__run_deferred(loop);
        if (!n->open)
            break;
        if (!loop->ring || vigil__ring_drain(loop, loop->ring) < 0 || spins > 100000)
            break; /* nothing more can come: give up on what is left */
    }
    loop->running = was_running;
    vigil__undefer(loop, &n->done_later);
    vigil__undefer(loop, &n->tw_later);
    n->eng->fini(loop, n);
    pool_free(&n->pool);
    free(n->held); /* empty: closing a listener closes what it held */
    free(n);
}
