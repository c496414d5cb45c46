/* src/dns/cache.c: answers kept for their TTL, keyed by (name asked, type): a hash table
 * of chains and a least-recently-used list, at most max entries (the least recently used
 * one is reused for a new answer once full, so a full cache allocates nothing). Negative
 * answers (NXDOMAIN, NODATA) are kept for the SOA's minimum when the answer carried one.
 * Calls libc only.
 */
#include "dns/dns_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vigil__dns_cache_init(struct dns_cache *c, uint32_t max)
{
    memset(c, 0, sizeof *c);
    c->max = max;
    c->lru.lru_next = c->lru.lru_prev = &c->lru;
    uint32_t nb = 16;
    while (nb < max)
        nb *= 2;
    c->bucket = calloc(nb, sizeof *c->bucket);
    if (!c->bucket)
        return -ENOMEM;
    c->nbucket = nb;
    return 0;
}

void vigil__dns_cache_fini(struct dns_cache *c)
{
    struct dns_cache_ent *e = c->lru.lru_next;
    while (e && e != &c->lru) {
        struct dns_cache_ent *n = e->lru_next;
        free(e);
        e = n;
    }
    free(c->bucket);
    memset(c, 0, sizeof *c);
}

static void lru_unlink(struct dns_cache_ent *e)
{
    e->lru_prev->lru_next = e->lru_next;
    e->lru_next->lru_prev = e->lru_prev;
}

static void lru_front(struct dns_cache *c, struct dns_cache_ent *e)
{
    e->lru_next = c->lru.lru_next;
    e->lru_prev = &c->lru;
    c->lru.lru_next->lru_prev = e;
    c->lru.lru_next = e;
}

static struct dns_cache_ent **find(struct dns_cache *c, const char *name, uint16_t qtype, uint32_t h)
{
    struct dns_cache_ent **pp = &c->bucket[h & (c->nbucket - 1)];
    for (; *pp; pp = &(*pp)->hnext)
        if ((*pp)->hash == h && (*pp)->qtype == qtype && strcmp((*pp)->name, name) == 0)
            return pp;
    return pp;
}

static void remove_ent(struct dns_cache *c, struct dns_cache_ent *e)
{
    struct dns_cache_ent **pp = find(c, e->name, e->qtype, e->hash);
    if (*pp == e)
        *pp = e->hnext;
    lru_unlink(e);
    c->n--;
}

const struct dns_cache_ent *vigil__dns_cache_get(struct dns_cache *c, const char *name, uint16_t qtype,
                                                 int64_t now_ns, uint32_t *ttl_left)
{
    if (!c->bucket)
        return NULL;
    uint32_t h = vigil__dns_hash(name) ^ qtype;
    struct dns_cache_ent *e = *find(c, name, qtype, h);
    if (!e)
        return NULL;
    if (e->expires_ns <= now_ns) {
        remove_ent(c, e);
        free(e);
        return NULL;
    }
    lru_unlink(e);
    lru_front(c, e);
    *ttl_left = (uint32_t)((e->expires_ns - now_ns + 999999999) / 1000000000);
    return e;
}

void vigil__dns_cache_put(struct dns_cache *c, const char *name, uint16_t qtype, const struct dns_answer *a,
                          uint32_t ttl_s, int64_t now_ns)
{
    if (!c->bucket || c->max == 0 || ttl_s == 0)
        return;
    uint32_t h = vigil__dns_hash(name) ^ qtype;
    struct dns_cache_ent *e = *find(c, name, qtype, h);
    if (e) {
        remove_ent(c, e);
    } else if (c->n >= c->max) {
        e = c->lru.lru_prev; /* the least recently used */
        remove_ent(c, e);
    } else {
        e = malloc(sizeof *e);
        if (!e)
            return;
    }
    e->hash = h;
    e->qtype = qtype;
    e->rcode = a->rcode;
    e->expires_ns = now_ns + (int64_t)ttl_s * 1000000000LL;
    e->naddr = a->naddr;
    memcpy(e->addr, a->addr, (size_t)a->naddr * sizeof a->addr[0]);
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->canon, sizeof e->canon, "%s", a->canon);
    struct dns_cache_ent **pp = &c->bucket[h & (c->nbucket - 1)];
    e->hnext = *pp;
    *pp = e;
    lru_front(c, e);
    c->n++;
}
