/* The segment: its geometry (where records, list heads and slots lie for a maxmsg and a
 * msgsize), formatting an empty queue, attaching with every identity field checked, and
 * the lock-free count. The layout itself is drawn in mq_int.h. Calls nothing but
 * libc; takes no lock.
 */
#include "mq/queue_int.h"

/* ---------------------------------------------------------------- geometry */

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

struct geom {
    size_t off_recs, off_heads, off_slots, stride, total;
};

static int geometry(long maxmsg, long msgsize, struct geom *g)
{
    if (maxmsg < 1 || maxmsg > VIGIL_MQ_MAXMSG_MAX || msgsize < 1 || msgsize > VIGIL_MQ_MSGSIZE_MAX)
        return -EINVAL;
    g->stride = align_up(VIGIL__MQ_SLOT_HDR + (size_t)msgsize, 8);
    if ((size_t)maxmsg * align_up((size_t)msgsize, 8) > (size_t)VIGIL_MQ_BYTES_MAX)
        return -EINVAL;
    g->off_recs = align_up(sizeof(struct vigil__mq_hdr), 64);
    g->off_heads = align_up(g->off_recs + VIGIL__MQ_NREC * sizeof(struct vigil__mq_rec), 64);
    g->off_slots = align_up(g->off_heads + VIGIL__MQ_NPRIO * sizeof(struct vigil__mq_head), 4096);
    g->total = align_up(g->off_slots + (size_t)maxmsg * g->stride, 4096);
    return 0;
}

size_t vigil__mq_bytes(long maxmsg, long msgsize)
{
    struct geom g;
    return geometry(maxmsg, msgsize, &g) < 0 ? 0 : g.total;
}

int vigil__mq_format(void *base, size_t size, uint32_t maxmsg, uint32_t msgsize)
{
    struct geom g;
    int r = geometry(maxmsg, msgsize, &g);
    if (r < 0)
        return r;
    if (size < g.total)
        return -EINVAL;
    struct vigil__mq_hdr *h = base;
    h->version = VIGIL__MQ_VERSION;
    h->hdr_bytes = sizeof *h;
    h->total_bytes = g.total;
    h->maxmsg = maxmsg;
    h->msgsize = msgsize;
    h->stride = (uint32_t)g.stride;
    h->nrec = VIGIL__MQ_NREC;
    h->off_recs = g.off_recs;
    h->off_heads = g.off_heads;
    h->off_slots = g.off_slots;
    /* Everything else is zero: an empty queue (see the layout comment). The magic goes
     * last, with release order, though the creator publishes the name only after this
     * returns (link()), so no other process can see a half-formatted segment. */
    atomic_thread_fence(memory_order_release);
    h->magic = VIGIL__MQ_MAGIC;
    return 0;
}

int vigil__mq_attach(struct vigil__mq *q, void *base, size_t size)
{
    struct vigil__mq_hdr *h = base;
    struct geom g;
    memset(q, 0, sizeof *q);
    if (size < sizeof *h)
        return -EBADMSG;
    /* Read the identity once into locals: a concurrent scribbler cannot make us check
     * one value and use another. */
    uint64_t magic = h->magic;
    uint32_t version = h->version, hdr_bytes = h->hdr_bytes, maxmsg = h->maxmsg, msgsize = h->msgsize;
    uint32_t stride = h->stride, nrec = h->nrec;
    uint64_t total = h->total_bytes, off_recs = h->off_recs, off_heads = h->off_heads, off_slots = h->off_slots;
    if (magic != VIGIL__MQ_MAGIC || version != VIGIL__MQ_VERSION || hdr_bytes != sizeof *h || nrec != VIGIL__MQ_NREC)
        return -EBADMSG;
    if (geometry(maxmsg, msgsize, &g) < 0)
        return -EBADMSG;
    if (stride != g.stride || total != g.total || off_recs != g.off_recs || off_heads != g.off_heads ||
        off_slots != g.off_slots || size < g.total)
        return -EBADMSG;
    q->base = base;
    q->size = g.total;
    q->h = h;
    q->recs = (struct vigil__mq_rec *)((unsigned char *)base + g.off_recs);
    q->heads = (struct vigil__mq_head *)((unsigned char *)base + g.off_heads);
    q->slots = (unsigned char *)base + g.off_slots;
    q->maxmsg = maxmsg;
    q->msgsize = msgsize;
    q->stride = (uint32_t)g.stride;
    return 0;
}

long vigil__mq_curmsgs(struct vigil__mq *q)
{
    /* A racy snapshot, like the kernel's mq_getattr (it may be stale on return). */
    uint32_t c = __atomic_load_n(&q->h->curmsgs, __ATOMIC_RELAXED);
    return c > q->maxmsg ? -EBADMSG : (long)c;
}
