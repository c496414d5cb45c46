/* src/dns/resolver.c: the public calls of <vigil/dns.h>; a lookup's walk through the
 * hosts: line's sources (files here, dns through query.c, foreign sources through
 * system.c); glibc's search-list order (res_search) and its choice of the error a failed
 * search reports; the end of a lookup (its callback at the loop's completion point, so
 * never inside the call that started it); the loop module that ends every resolver's
 * lookups when the loop is freed.
 * May call: query.c, conf.c, cache.c, sort.c, system.c, src/loop (module slot, the
 * completion point, the active count).
 */
#include "dns/dns_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dns_mod {
    struct vigil_resolver *head;
};

static struct dns_lk *lk_of(const vigil_lookup *pub)
{
    return (struct dns_lk *)(uintptr_t)pub->private_[0];
}

/* ------------------------------------------------------------ the end */

static void lk_release_work(struct vigil_resolver *r, struct dns_lk *lk)
{
    for (int i = 0; i < 2; i++) {
        struct dns_q *q = lk->q[i];
        if (!q)
            continue;
        lk->q[i] = NULL;
        vigil__dns_q_stop(r, q);
        if (q->sending) {
            q->lk = NULL; /* freed by its send's callback */
        } else {
            q->free_next = r->q_free;
            r->q_free = q;
        }
    }
    if (lk->job) {
        lk->job->lk = NULL; /* system.c drops the answer */
        lk->job = NULL;
    }
}

static void lk_end(struct vigil_resolver *r, struct dns_lk *lk, int status)
{
    lk_release_work(r, lk);
    lk->ending = true;
    lk->status = status;
    lk->done_next = NULL;
    *r->done_tail = lk;
    r->done_tail = &lk->done_next;
    if (r->loop)
        vigil__defer(r->loop, &r->later);
}

/* Runs lk's callback (lk is off the end queue). */
static void deliver(struct vigil_resolver *r, struct dns_lk *lk)
{
    vigil_loop *loop = r->loop;
    lk_list_del(&r->lks, lk);
    vigil_lookup *pub = lk->pub;
    pub->private_[0] = 0;
    struct vigil_dns_result res = {0};
    if (lk->status == 0) {
        res.naddr = (uint32_t)lk->naddr;
        res.ttl_s = lk->ttl;
        res.addr = lk->addr;
    }
    res.canonname = lk->canon[0] ? lk->canon : lk->name;
    res.source = lk->source;
    r->in_cb++;
    if (loop)
        loop->in_callback++;
    lk->cb(loop, pub, lk->status, &res);
    if (loop) {
        loop->in_callback--;
        loop->active--; /* taken at vigil_resolve */
    }
    r->in_cb--;
    lk->free_next = r->lk_free;
    r->lk_free = lk;
}

static void run_later(vigil_loop *loop, struct vigil__deferred *d)
{
    (void)loop;
    struct vigil_resolver *r = (struct vigil_resolver *)(void *)((char *)d - offsetof(struct vigil_resolver, later));
    if (!r->shutting)
        vigil__dns_pump(r);
    /* Only what has ended now; lookups ending in these callbacks queue the next run. */
    struct dns_lk *list = r->done_head;
    r->done_head = NULL;
    r->done_tail = &r->done_head;
    while (list) {
        struct dns_lk *lk = list;
        list = lk->done_next;
        deliver(r, lk);
    }
}

/* Ends every lookup now, callbacks included (-ECANCELED for those still working). */
static void end_all(struct vigil_resolver *r)
{
    while (r->lks) {
        for (struct dns_lk *lk = r->lks; lk; lk = lk->next)
            if (!lk->ending)
                lk_end(r, lk, -ECANCELED);
        if (r->loop)
            vigil__undefer(r->loop, &r->later);
        run_later(r->loop, &r->later);
    }
}

/* ------------------------------------------------------------ the walk */

static void walk(struct vigil_resolver *r, struct dns_lk *lk);

/* The source at lk->nss_i gave st; lk->status holds its error. true: the lookup ended. */
static bool source_said(struct vigil_resolver *r, struct dns_lk *lk, int st)
{
    const struct dns_nss_src *src = &r->conf.nss[lk->nss_i];
    if (st == NSS_SUCCESS) {
        if (lk->naddr > 1)
            vigil__dns_sort(&r->sorter, lk->addr, lk->naddr, vigil_loop_now(r->loop));
        lk_end(r, lk, 0);
        return true;
    }
    if (src->ret[st]) {
        lk_end(r, lk, lk->status ? lk->status : VIGIL_DNS_ENONAME);
        return true;
    }
    lk->nss_i++;
    return false;
}

static int from_hosts(struct vigil_resolver *r, struct dns_lk *lk)
{
    const char *canon = NULL;
    /* glibc's files source compares the name as given: "name." matches no entry. */
    int n = lk->trailing_dot ? 0 : vigil__dns_hosts_find(&r->conf, lk->name, lk->family, lk->addr, 2 * DNS_MAX_ADDR, &canon);
    if (n == 0) {
        if (!lk->status)
            lk->status = VIGIL_DNS_ENONAME;
        return NSS_NOTFOUND;
    }
    lk->naddr = n;
    lk->ttl = 0;
    lk->source = VIGIL_DNS_SOURCE_HOSTS;
    snprintf(lk->canon, sizeof lk->canon, "%s", canon ? canon : lk->name);
    return NSS_SUCCESS;
}

/* ---- dns: glibc's res_search */

static bool next_cand(struct vigil_resolver *r, struct dns_lk *lk)
{
    const struct dns_conf *c = &r->conf;
    for (;;) {
        switch (lk->phase) {
        case 0:
            lk->phase = 1;
            if (lk->dots >= c->ndots || lk->trailing_dot) {
                snprintf(lk->cur, sizeof lk->cur, "%s", lk->name);
                lk->cand_kind = 0;
                return true;
            }
            break;
        case 1:
            if (lk->trailing_dot || lk->search_stop || lk->si >= c->nsearch) {
                lk->phase = 2;
                break;
            }
            {
                const char *d = c->search[lk->si++];
                lk->cand_kind = 1;
                if (!*d) {
                    lk->root_on_list = true;
                    snprintf(lk->cur, sizeof lk->cur, "%s", lk->name);
                    return true;
                }
                size_t nl = strlen(lk->name), dl = strlen(d);
                if (nl + 1 + dl > 253)
                    break;
                memcpy(lk->cur, lk->name, nl);
                lk->cur[nl] = '.';
                memcpy(lk->cur + nl + 1, d, dl + 1);
                return true;
            }
        case 2:
            lk->phase = 3;
            if (!lk->tried_as_is && !lk->root_on_list && !lk->trailing_dot) {
                snprintf(lk->cur, sizeof lk->cur, "%s", lk->name);
                lk->cand_kind = 2;
                return true;
            }
            break;
        default:
            return false;
        }
    }
}

static struct dns_q *q_alloc(struct vigil_resolver *r)
{
    struct dns_q *q = r->q_free;
    if (q) {
        r->q_free = q->free_next;
        return q;
    }
    return calloc(1, sizeof *q);
}

static void cand_done(struct vigil_resolver *r, struct dns_lk *lk);

static void ask(struct vigil_resolver *r, struct dns_lk *lk)
{
    static const uint16_t types[2] = {DNS_T_A, DNS_T_AAAA};
    int first = lk->family == AF_INET6 ? 1 : 0;
    int last = lk->family == AF_INET ? 0 : 1;
    bool use_cache = r->cache_on && !(lk->flags & VIGIL_RESOLVE_NO_CACHE);
    int64_t now = use_cache ? vigil_loop_now(r->loop) : 0;
    lk->nq = 0;
    lk->nq_done = 0;
    lk->starting = true;
    for (int t = first; t <= last; t++) {
        struct dns_q *q = lk->q[lk->nq];
        if (!q && !(q = lk->q[lk->nq] = q_alloc(r))) {
            lk->starting = false;
            lk->status = -ENOMEM;
            if (!source_said(r, lk, NSS_UNAVAIL))
                walk(r, lk);
            return;
        }
        lk->nq++;
        q->lk = lk;
        q->r = r;
        q->qtype = types[t];
        q->from_cache = false;
        const struct dns_cache_ent *e;
        uint32_t left = 0;
        if (use_cache && (e = vigil__dns_cache_get(&r->cache, lk->cur, q->qtype, now, &left))) {
            r->stats.cache_hits++;
            q->from_cache = true;
            q->done = true;
            q->status = 0;
            q->ans.rcode = e->rcode;
            q->ans.tc = false;
            q->ans.naddr = e->naddr;
            memcpy(q->ans.addr, e->addr, (size_t)e->naddr * sizeof e->addr[0]);
            q->ans.ttl = left;
            q->ans.ancount = e->naddr > 0 || strcmp(e->canon, lk->cur) != 0;
            snprintf(q->ans.canon, sizeof q->ans.canon, "%s", e->canon);
            lk->nq_done++;
            continue;
        }
        int e2 = vigil__dns_q_start(r, q);
        if (e2 < 0) {
            q->done = true;
            q->status = e2;
            lk->nq_done++;
        }
    }
    lk->starting = false;
    if (lk->nq_done == lk->nq)
        cand_done(r, lk);
}

static int pair_status(struct dns_lk *lk, bool *ok)
{
    bool timeout = false, nodata = false, nx = false, servfail = false;
    int other = 0;
    *ok = false;
    for (int i = 0; i < lk->nq; i++) {
        struct dns_q *q = lk->q[i];
        if (q->status == 0 && q->ans.rcode == DNS_R_NOERROR && q->ans.ancount > 0)
            *ok = true;
        else if (q->status == 0 && q->ans.rcode == DNS_R_NOERROR)
            nodata = true;
        else if (q->status == 0 && q->ans.rcode == DNS_R_NXDOMAIN)
            nx = true;
        else if (q->status == VIGIL_DNS_ESERVFAIL)
            servfail = true;
        else if (q->status > -10000)
            timeout = true, other = other ? other : q->status;
        else if (!other)
            other = q->status;
    }
    if (*ok)
        return 0;
    if (timeout)
        return other;
    if (nodata)
        return VIGIL_DNS_ENODATA;
    if (nx)
        return VIGIL_DNS_ENONAME;
    if (servfail)
        return VIGIL_DNS_ESERVFAIL;
    return other ? other : VIGIL_DNS_EBADRESP;
}

static int dns_nss_status(int err)
{
    if (err == VIGIL_DNS_ENONAME || err == VIGIL_DNS_ENODATA)
        return NSS_NOTFOUND;
    if (err == VIGIL_DNS_ENOSERVER)
        return NSS_UNAVAIL;
    return NSS_TRYAGAIN;
}

static void dns_finished(struct vigil_resolver *r, struct dns_lk *lk, int err)
{
    lk->status = err;
    if (!source_said(r, lk, err == 0 ? NSS_SUCCESS : dns_nss_status(err)))
        walk(r, lk);
}

static void cand_done(struct vigil_resolver *r, struct dns_lk *lk)
{
    bool ok;
    int err = pair_status(lk, &ok);
    if (ok) {
        bool all_cache = true;
        uint32_t ttl = UINT32_MAX;
        lk->naddr = 0;
        lk->canon[0] = '\0';
        for (int i = 0; i < lk->nq; i++) {
            struct dns_q *q = lk->q[i];
            if (!q->from_cache)
                all_cache = false;
            if (q->status != 0 || q->ans.rcode != DNS_R_NOERROR)
                continue;
            if (q->ans.naddr > 0 && q->ans.ttl < ttl)
                ttl = q->ans.ttl;
            if (!lk->canon[0] && (q->ans.naddr > 0 || q->ans.ancount > 0))
                snprintf(lk->canon, sizeof lk->canon, "%s", q->ans.canon);
            for (int k = 0; k < q->ans.naddr && lk->naddr < 2 * DNS_MAX_ADDR; k++) {
                union vigil_dns_addr *a = &lk->addr[lk->naddr++];
                memset(a, 0, sizeof *a);
                if (q->qtype == DNS_T_A) {
                    a->in.sin_family = AF_INET;
                    memcpy(&a->in.sin_addr, q->ans.addr[k], 4);
                } else {
                    a->in6.sin6_family = AF_INET6;
                    memcpy(&a->in6.sin6_addr, q->ans.addr[k], 16);
                }
            }
        }
        lk->ttl = ttl == UINT32_MAX ? 0 : ttl;
        lk->source = all_cache ? VIGIL_DNS_SOURCE_CACHE : VIGIL_DNS_SOURCE_DNS;
        /* An answer ends the search, with or without addresses (glibc's res_search).
         * Records without an address of the family (a CNAME to a name without one):
         * glibc's getaddrinfo says EAI_NODATA for AF_INET (its gethostbyname2 path) and
         * EAI_NONAME for AF_INET6 and AF_UNSPEC; the same here (tests/dns/glibc_diff.c). */
        dns_finished(r, lk, lk->naddr > 0 ? 0 : lk->family == AF_INET ? VIGIL_DNS_ENODATA : VIGIL_DNS_ENONAME);
        return;
    }
    lk->source = VIGIL_DNS_SOURCE_DNS;
    lk->last_err = err;
    if (lk->cand_kind == 0) {
        if (lk->trailing_dot) {
            dns_finished(r, lk, err);
            return;
        }
        lk->saved_err = err;
        lk->tried_as_is = true;
    } else if (lk->cand_kind == 1) {
        if (err == VIGIL_DNS_ENODATA)
            lk->got_nodata = true;
        else if (err == VIGIL_DNS_ESERVFAIL)
            lk->got_servfail = true;
        else if (err != VIGIL_DNS_ENONAME)
            lk->search_stop = true;
    }
    if (next_cand(r, lk)) {
        ask(r, lk);
        return;
    }
    if (lk->saved_err)
        err = lk->saved_err;
    else if (lk->got_nodata)
        err = VIGIL_DNS_ENODATA;
    else if (lk->got_servfail)
        err = VIGIL_DNS_ESERVFAIL;
    else
        err = lk->last_err;
    dns_finished(r, lk, err);
}

void vigil__dns_q_done(struct vigil_resolver *r, struct dns_q *q)
{
    struct dns_lk *lk = q->lk;
    if (q->status == 0 && r->cache_on && !(lk->flags & VIGIL_RESOLVE_NO_CACHE)) {
        const struct dns_answer *a = &q->ans;
        uint32_t ttl = a->naddr > 0 ? a->ttl : a->has_neg_ttl ? a->neg_ttl : 0;
        if (a->naddr == 0 && a->ancount > 0 && !a->has_neg_ttl)
            ttl = 0;
        vigil__dns_cache_put(&r->cache, lk->cur, q->qtype, a, ttl, vigil_loop_now(r->loop));
    }
    lk->nq_done++;
    if (!lk->starting && lk->nq_done == lk->nq)
        cand_done(r, lk);
}

static void dns_begin(struct vigil_resolver *r, struct dns_lk *lk)
{
    lk->phase = 0;
    lk->si = 0;
    lk->tried_as_is = lk->root_on_list = lk->search_stop = false;
    lk->got_nodata = lk->got_servfail = false;
    lk->saved_err = lk->last_err = 0;
    lk->dots = 0;
    for (const char *p = lk->name; *p; p++)
        lk->dots += *p == '.';
    const struct dns_conf *c = &r->conf;
    lk->start_ns = 0;
    if (c->rotate) {
        lk->start_ns = r->rr;
        r->rr = (r->rr + 1) % c->nns;
    }
    if (!next_cand(r, lk)) {
        dns_finished(r, lk, VIGIL_DNS_ENONAME);
        return;
    }
    ask(r, lk);
}

static void walk(struct vigil_resolver *r, struct dns_lk *lk)
{
    const struct dns_conf *c = &r->conf;
    while (lk->nss_i < c->nnss) {
        const struct dns_nss_src *src = &c->nss[lk->nss_i];
        int st;
        switch (src->kind) {
        case NSS_FILES:
            st = from_hosts(r, lk);
            break;
        case NSS_DNS:
            if (c->nns == 0) {
                lk->status = VIGIL_DNS_ENOSERVER;
                st = NSS_UNAVAIL;
                break;
            }
            dns_begin(r, lk);
            return;
        default:
            if (vigil__dns_nss_claims(c, src->kind, lk->name)) {
                if (vigil__dns_sys_post(r, lk) == 0)
                    return;
                lk->status = -ENOMEM;
                st = NSS_UNAVAIL;
            } else {
                st = src->kind == NSS_MYHOSTNAME ? NSS_NOTFOUND : NSS_UNAVAIL;
            }
            break;
        }
        if (source_said(r, lk, st))
            return;
    }
    lk_end(r, lk, lk->status ? lk->status : VIGIL_DNS_ENONAME);
}

void vigil__dns_sys_done(struct vigil_resolver *r, struct dns_sys_job *job)
{
    struct dns_lk *lk = job->lk;
    lk->job = NULL;
    lk->source = VIGIL_DNS_SOURCE_SYSTEM;
    lk->ttl = 0;
    if (job->status == 0) {
        lk->naddr = job->naddr;
        memcpy(lk->addr, job->addr, (size_t)job->naddr * sizeof job->addr[0]);
        snprintf(lk->canon, sizeof lk->canon, "%s", job->canon[0] ? job->canon : lk->name);
    }
    /* getaddrinfo() walked the whole hosts: line and sorted: its word is final. */
    lk_end(r, lk, job->status);
}

/* ------------------------------------------------------------ the calls */

void vigil_resolver_options_init(struct vigil_resolver_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
    opt->cache_max = 1024;
    opt->udp_max_queries = 64;
    opt->port = 53;
}

static void mod_fini(vigil_loop *loop, void *state);

static void shutdown_work(struct vigil_resolver *r)
{
    r->shutting = true; /* callbacks run here may not start lookups */
    end_all(r);
    if (r->loop)
        vigil__undefer(r->loop, &r->later);
    if (r->loop)
        vigil__dns_udp_close_all(r);
    vigil__dns_sys_fini(r);
}

static void mod_fini(vigil_loop *loop, void *state)
{
    (void)loop;
    struct dns_mod *m = state;
    while (m->head) {
        struct vigil_resolver *r = m->head;
        shutdown_work(r);
        m->head = r->mod_next;
        r->mod_prev = r->mod_next = NULL;
        r->loop = NULL;
    }
    free(m);
}

int vigil_resolver_new(vigil_loop *loop, vigil_resolver **out, const struct vigil_resolver_options *opt)
{
    struct vigil_resolver_options def;
    if (!loop || !out)
        return -EINVAL;
    if (!opt) {
        vigil_resolver_options_init(&def);
        opt = &def;
    }
    if (opt->size != sizeof *opt || (opt->flags & ~VIGIL_RESOLVER_NO_CACHE) || opt->udp_max_queries > 65536)
        return -EINVAL;
    const char *files[3] = {opt->resolv_conf ? opt->resolv_conf : "/etc/resolv.conf",
                            opt->hosts ? opt->hosts : "/etc/hosts",
                            opt->nsswitch ? opt->nsswitch : "/etc/nsswitch.conf"};
    for (int i = 0; i < 3; i++)
        if (strlen(files[i]) >= sizeof ((struct vigil_resolver *)0)->path_buf[0])
            return -EINVAL;
    struct vigil_resolver *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    for (int i = 0; i < 3; i++) {
        snprintf(r->path_buf[i], sizeof r->path_buf[i], "%s", files[i]);
        r->paths.file[i] = r->path_buf[i];
    }
    r->paths.port = opt->port ? opt->port : 53;
    r->flags = opt->flags;
    r->udp_max = opt->udp_max_queries ? opt->udp_max_queries : 64;
    r->cache_on = !(opt->flags & VIGIL_RESOLVER_NO_CACHE);
    if (r->cache_on && vigil__dns_cache_init(&r->cache, opt->cache_max ? opt->cache_max : 1024) < 0) {
        free(r);
        return -ENOMEM;
    }
    struct dns_mod *m = vigil__module_get(loop, VIGIL__MOD_DNS, sizeof *m, mod_fini, NULL);
    if (!m) {
        vigil__dns_cache_fini(&r->cache);
        free(r);
        return -ENOMEM;
    }
    vigil__dns_sorter_init(&r->sorter);
    pthread_mutex_init(&r->sys.mu, NULL);
    pthread_cond_init(&r->sys.cv, NULL);
    r->sys.efd = -1;
    r->sys.todo_tail = &r->sys.todo_head;
    r->sys.done_tail = &r->sys.done_head;
    r->done_tail = &r->done_head;
    r->wait_tail = &r->wait_head;
    r->later.run = run_later;
    r->loop = loop;
    resolver_list_add(&m->head, r);
    *out = r;
    return 0;
}

int vigil_resolver_free(vigil_resolver *r)
{
    if (!r)
        return -EINVAL;
    if (r->in_cb)
        return -EBUSY;
    if (r->loop) {
        shutdown_work(r);
        struct dns_mod *m = r->loop->mod[VIGIL__MOD_DNS];
        if (m)
            resolver_list_del(&m->head, r);
    }
    pthread_mutex_destroy(&r->sys.mu);
    pthread_cond_destroy(&r->sys.cv);
    while (r->lk_free) {
        struct dns_lk *lk = r->lk_free;
        r->lk_free = lk->free_next;
        free(lk);
    }
    while (r->q_free) {
        struct dns_q *q = r->q_free;
        r->q_free = q->free_next;
        free(q);
    }
    if (r->cache_on)
        vigil__dns_cache_fini(&r->cache);
    vigil__dns_sorter_fini(&r->sorter);
    vigil__dns_conf_free(&r->conf);
    free(r);
    return 0;
}

int vigil_resolve(vigil_resolver *r, vigil_lookup *pub, const char *name, int family, uint32_t flags,
                  vigil_lookup_cb cb)
{
    if (!r || !pub || !name || !cb || (flags & ~VIGIL_RESOLVE_NO_CACHE))
        return -EINVAL;
    if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6)
        return -EINVAL;
    if (!r->loop || r->shutting)
        return -ECANCELED; /* the loop is gone, or going */
    if (lk_of(pub))
        return -EBUSY;
    struct dns_lk *lk = r->lk_free;
    if (lk)
        r->lk_free = lk->free_next;
    else if (!(lk = malloc(sizeof *lk)))
        return -ENOMEM;
    memset(lk, 0, offsetof(struct dns_lk, addr));
    lk->r = r;
    lk->pub = pub;
    lk->cb = cb;
    lk->family = family;
    lk->flags = flags;
    lk->canon[0] = '\0';
    lk_list_add(&r->lks, lk);
    pub->private_[0] = (uint64_t)(uintptr_t)lk;
    r->loop->active++; /* until the callback */
    r->stats.lookups++;

    /* An address needs no lookup. */
    union vigil_dns_addr *a = &lk->addr[0];
    memset(a, 0, sizeof *a);
    if (inet_pton(AF_INET, name, &a->in.sin_addr) == 1) {
        a->in.sin_family = AF_INET;
    } else if (inet_pton(AF_INET6, name, &a->in6.sin6_addr) == 1) {
        a->in6.sin6_family = AF_INET6;
    }
    if (a->sa.sa_family) {
        snprintf(lk->name, sizeof lk->name, "%.*s", (int)(sizeof lk->name - 1), name);
        lk->source = VIGIL_DNS_SOURCE_NUMERIC;
        if (family != AF_UNSPEC && family != a->sa.sa_family) {
            lk_end(r, lk, VIGIL_DNS_ENONAME);
        } else {
            lk->naddr = 1;
            lk_end(r, lk, 0);
        }
        return 0;
    }
    if (vigil__dns_name_norm(name, lk->name, &lk->trailing_dot) < 0) {
        snprintf(lk->name, sizeof lk->name, "%.*s", (int)(sizeof lk->name - 1), name);
        lk_end(r, lk, -EINVAL);
        return 0;
    }
    int e = vigil__dns_conf_check(&r->conf, &r->paths, vigil_loop_now(r->loop));
    if (e < 0) {
        lk_end(r, lk, e);
        return 0;
    }
    if (e > 0 && r->stats.lookups > 1)
        r->stats.config_reloads++;
    walk(r, lk);
    return 0;
}

int vigil_resolve_cancel(vigil_resolver *r, vigil_lookup *pub)
{
    if (!r || !pub)
        return -EINVAL;
    struct dns_lk *lk = lk_of(pub);
    if (!lk || lk->r != r)
        return -ENOENT;
    if (lk->ending)
        return 0; /* ended first: its result is on its way */
    lk_end(r, lk, -ECANCELED);
    return 0;
}

int vigil_resolver_stats_get(vigil_resolver *r, struct vigil_resolver_stats *out)
{
    if (!r || !out)
        return -EINVAL;
    *out = r->stats;
    return 0;
}

const char *vigil_dns_strerror(int status)
{
    switch (status) {
    case 0:
        return "Success";
    case VIGIL_DNS_ENONAME:
        return "No such name";
    case VIGIL_DNS_ENODATA:
        return "No address of the family asked for this name";
    case VIGIL_DNS_ESERVFAIL:
        return "The name servers failed (SERVFAIL)";
    case VIGIL_DNS_EREFUSED:
        return "The name servers refused the question";
    case VIGIL_DNS_EBADRESP:
        return "Malformed answers from the name servers";
    case VIGIL_DNS_ENOSERVER:
        return "No name server configured";
    case VIGIL_DNS_ESYSTEM:
        return "The system resolver failed";
    default:
        return status < 0 && status > -4096 ? strerror(-status) : "Unknown resolver error";
    }
}
