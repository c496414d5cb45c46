/* The invariant checker, for tests and the fuzz harness: under the lock, walks every
 * list, the bitmap, the shortcuts, the free list and the records, and says what
 * disagrees. Reads only; calls the lock (queue_int.h).
 */
#include "mq/queue_int.h"

#include <stdio.h>

int vigil__mq_check(struct vigil__mq *q, char *why, size_t why_len)
{
#define FAIL(...)                                   \
    do {                                            \
        snprintf(why, why_len, __VA_ARGS__);        \
        r = -EBADMSG;                               \
        goto out;                                   \
    } while (0)
    struct vigil__mq_hdr *h = q->h;
    int r = qlock(q);
    if (r < 0) {
        snprintf(why, why_len, "lock: %d", r);
        return r;
    }
    if (h->fresh > q->maxmsg)
        FAIL("fresh %u > maxmsg %u", h->fresh, q->maxmsg);
    uint32_t count = 0, nfree = 0, busy = 0;
    for (uint32_t p = 0; p < VIGIL__MQ_NPRIO; p++) {
        struct vigil__mq_head *hd = &q->heads[p];
        bool bit = (h->lvl[p >> 6] >> (p & 63)) & 1;
        if (!!hd->head != bit)
            FAIL("prio %u: head %u, bit %d", p, hd->head, bit);
        uint32_t ref = hd->head, last = 0, n = 0;
        while (ref) {
            if (!ref_ok(q, ref) || ref > h->fresh || ++n > q->maxmsg)
                FAIL("prio %u: bad ref %u", p, ref);
            struct vigil__mq_slot *s = slot_at(q, ref);
            if (s->prio != p || s->len > q->msgsize)
                FAIL("prio %u: slot %u prio %u len %u", p, ref, s->prio, s->len);
            last = ref;
            ref = s->next;
        }
        if (hd->head && hd->tail != last)
            FAIL("prio %u: tail %u, last %u", p, hd->tail, last);
        count += n;
    }
    for (uint32_t w = 0; w < VIGIL__MQ_NPRIO / 64; w++)
        if (!!h->lvl[w] != (int)((h->top[w >> 6] >> (w & 63)) & 1))
            FAIL("bitmap word %u disagrees with the top level", w);
    if (count != h->curmsgs)
        FAIL("curmsgs %u, counted %u", h->curmsgs, count);
    if (count) {
        long p = bit_highest(h);
        if (p < 0 || (h->top_ref && (h->top_prio != (uint32_t)p || h->top_ref != q->heads[p].head)) ||
            (!h->top_ref && h->top_exact && (uint32_t)p != h->top_prio) ||
            (!h->top_ref && (uint32_t)p > h->top_prio))
            FAIL("shortcut: top %u/%u, highest %ld", h->top_prio, h->top_ref, p);
        if (h->k2_valid) {
            long second = -1;
            for (long pp = p - 1; pp >= 0 && second < 0; pp--)
                if (q->heads[pp].head)
                    second = pp;
            if (second < 0 || (uint32_t)second != h->k2_prio)
                FAIL("runner-up %u, found %ld", h->k2_prio, second);
        }
    }
    for (uint32_t ref = h->free_head; ref; ref = slot_at(q, ref)->next) {
        if (!ref_ok(q, ref) || ref > h->fresh || ++nfree > q->maxmsg)
            FAIL("free list: bad ref %u", ref);
    }
    for (uint32_t i = 0; i < VIGIL__MQ_NREC; i++) {
        uint32_t st = atomic_load_explicit(&q->recs[i].state, memory_order_relaxed);
        if (st != VIGIL__REC_FREE)
            busy++;
    }
    if (busy != h->nrec_busy)
        FAIL("nrec_busy %u, counted %u", h->nrec_busy, busy);
    if (busy == 0 && count + nfree != h->fresh)
        FAIL("slots: %u queued + %u free != %u used", count, nfree, h->fresh);
out:
    qunlock(q);
    return r;
#undef FAIL
}
