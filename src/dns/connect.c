/* src/dns/connect.c: connecting by name with Happy Eyeballs (RFC 8305), the calls
 * vigil_dns_connect* of <vigil/dns.h>. One lookup (A and AAAA in parallel, in the
 * resolver's RFC 6724 order), the addresses interleaved by family, an attempt started
 * every delay_ns while the previous ones still try (at once when one fails), the first
 * to connect handed over on the caller's vigil_sock (a dup of its fd), every other
 * attempt closed; an overall timeout.
 *
 * State: one heap block per call (not a hot path), kept until the lookup's callback
 * and every attempt socket's close callback have run, which may be after the caller's
 * callback (the caller's struct is let go at its callback).
 * May call: the resolver's public calls (vigil_resolve, vigil_resolve_cancel), the
 * sockets' public calls (<vigil/net.h>), timers, src/loop's deferred queue (the
 * callback of a cancel, run at the completion point).
 */
#include "dns/dns_int.h"
#include "vigil/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct he_att {
    vigil_sock s;
    vigil_net_req req;
    struct he *he;
    unsigned idx;      /* in he->att */
    bool connecting;   /* its connect's callback has not run */
    bool closing;      /* vigil_sock_close called (or the loop closes it) */
};

struct he {
    vigil_loop *loop;
    vigil_resolver *r;
    vigil_dns_conn *c; /* NULL once the caller's callback ran */
    vigil_sock *out;
    vigil_dns_conn_cb cb;
    vigil_dns_attempt_cb attempt_cb;
    int family;
    uint16_t port;
    int64_t delay_ns;
    vigil_lookup lk;
    bool resolving;    /* lk's callback has not run */
    vigil_timer delay; /* starts the next attempt */
    vigil_timer timeout;
    struct vigil__deferred later; /* a cancel's callback */
    union vigil_dns_addr *addrs;  /* in attempt order, with the port */
    unsigned naddr, next;
    struct he_att **att;          /* one per started attempt, NULL once closed */
    unsigned open;                /* attempt sockets not yet closed */
    unsigned connecting;          /* attempts still trying */
    int last_err;
    int status;
    bool done;                    /* status decided */
    bool delivered;               /* the caller's callback ran (or runs now) */
    int depth;                    /* calls of this file running on it */
};

static struct he *he_of(const vigil_dns_conn *c)
{
    return (struct he *)(uintptr_t)c->private_[0];
}

static void he_maybe_free(struct he *he)
{
    if (he->depth > 0 || !he->delivered || he->resolving || he->open > 0 || he->later.queued)
        return;
    vigil_timer_stop(he->loop, &he->delay);
    vigil_timer_stop(he->loop, &he->timeout);
    free(he->att);
    free(he->addrs);
    free(he);
}

static void he_deliver(struct he *he)
{
    if (he->delivered)
        return;
    he->delivered = true;
    vigil_dns_conn *c = he->c;
    he->c = NULL;
    c->private_[0] = 0; /* idle: the callback may start it again */
    he->cb(he->loop, c, he->status);
}

static void he_close_att(struct he *he, struct he_att *a)
{
    if (a->closing)
        return;
    a->closing = true;
    /* -EBADF: vigil_loop_free is closing it already; its close callback comes all the
     * same (vigil_sock_set_close_cb). */
    (void)vigil_sock_close(he->loop, &a->s, NULL);
}

/* Decides the end: stops the timers and the lookup, closes every attempt; the caller's
 * callback runs now (now) or at the completion point (a cancel). */
static void he_finish(struct he *he, int status, bool now)
{
    if (he->done)
        return;
    he->done = true;
    he->status = status;
    vigil_timer_stop(he->loop, &he->delay);
    vigil_timer_stop(he->loop, &he->timeout);
    if (he->resolving)
        vigil_resolve_cancel(he->r, &he->lk); /* its callback comes later */
    for (unsigned i = 0; i < he->next; i++)
        if (he->att[i])
            he_close_att(he, he->att[i]);
    if (now)
        he_deliver(he);
    else
        vigil__defer(he->loop, &he->later);
}

static void he_later(vigil_loop *loop, struct vigil__deferred *d)
{
    (void)loop;
    struct he *he = (struct he *)((char *)d - offsetof(struct he, later));
    he->depth++;
    he_deliver(he);
    he->depth--;
    he_maybe_free(he);
}

static void on_att_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    struct he_att *a = s->data;
    struct he *he = a->he;
    he->att[a->idx] = NULL;
    he->open--;
    free(a);
    he_maybe_free(he);
}

static void he_start_next(struct he *he);

static void on_att_done(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct he_att *a = req->data;
    struct he *he = a->he;
    a->connecting = false;
    he->connecting--;
    he->depth++;
    if (he->done) {
        /* cancelled by the end: its socket is closing already */
    } else if (res == 0) {
        /* The winner: its file goes to the caller's socket (a dup; the attempt's own fd
         * is closed with the others). */
        he->c->addr = he->addrs[a->idx];
        int status = 0;
        int fd = fcntl(a->s.fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) {
            status = -errno;
        } else {
            int e = vigil_sock_open(loop, he->out, fd);
            if (e < 0) {
                close(fd);
                status = e;
            }
        }
        he_finish(he, status, true);
    } else {
        bool ours = a->closing;
        he->last_err = (int)res;
        he_close_att(he, a);
        if (res == -ECANCELED && !ours)
            he_finish(he, -ECANCELED, true); /* closed by vigil_loop_free */
        else
            he_start_next(he); /* a failure starts the next attempt at once */
    }
    he->depth--;
    he_maybe_free(he);
}

static void on_delay(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    struct he *he = t->data;
    he->depth++;
    he_start_next(he);
    he->depth--;
    he_maybe_free(he);
}

static void on_timeout(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    struct he *he = t->data;
    he->depth++;
    he_finish(he, -ETIMEDOUT, true);
    he->depth--;
    he_maybe_free(he);
}

/* Starts the next address's attempt (skipping addresses whose socket cannot even be
 * made), or ends the call when none is left and none still tries. */
static void he_start_next(struct he *he)
{
    while (!he->done && he->next < he->naddr) {
        unsigned i = he->next++;
        struct he_att *a = calloc(1, sizeof *a);
        if (!a) {
            he->last_err = -ENOMEM;
            continue;
        }
        a->he = he;
        a->idx = i;
        a->s.data = a;
        a->req.data = a;
        he->c->attempts = he->next;
        if (he->attempt_cb) {
            he->attempt_cb(he->loop, he->c, &he->addrs[i], i);
            if (he->done) { /* cancelled from the callback */
                free(a);
                return;
            }
        }
        socklen_t len = he->addrs[i].sa.sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                                : sizeof(struct sockaddr_in);
        int e = vigil_net_connect_addr(he->loop, &a->s, &a->req, &he->addrs[i].sa, len, 0, on_att_done);
        if (e < 0) {
            free(a);
            he->last_err = e;
            continue;
        }
        vigil_sock_set_close_cb(&a->s, on_att_closed);
        he->att[i] = a;
        he->open++;
        a->connecting = true;
        he->connecting++;
        vigil_timer_stop(he->loop, &he->delay);
        if (he->next < he->naddr &&
            vigil_timer_start(he->loop, &he->delay, CLOCK_MONOTONIC, he->delay_ns, 0, 0, on_delay) < 0) {
            /* No timer: the next address waits for this attempt to fail. */
        }
        return;
    }
    if (!he->done && he->connecting == 0)
        he_finish(he, he->last_err ? he->last_err : -ECONNREFUSED, true);
}

static void on_lookup(vigil_loop *loop, vigil_lookup *lk, int status, const struct vigil_dns_result *res)
{
    (void)loop;
    struct he *he = lk->data;
    he->resolving = false;
    he->depth++;
    if (he->done) {
        /* cancelled */
    } else if (status < 0) {
        he_finish(he, status, true);
    } else if (res->naddr == 0) {
        he_finish(he, VIGIL_DNS_ENODATA, true);
    } else {
        unsigned n = res->naddr;
        he->addrs = calloc(n, sizeof *he->addrs);
        he->att = calloc(n, sizeof *he->att);
        if (!he->addrs || !he->att) {
            he_finish(he, -ENOMEM, true);
        } else {
            /* RFC 8305 section 4: the first address's family, then the other, taking
             * each family's addresses in the resolver's order. */
            int fam0 = res->addr[0].sa.sa_family;
            unsigned ia = 0, ib = 0, k = 0;
            while (k < n) {
                while (ia < n && res->addr[ia].sa.sa_family != fam0)
                    ia++;
                if (ia < n)
                    he->addrs[k++] = res->addr[ia++];
                while (ib < n && res->addr[ib].sa.sa_family == fam0)
                    ib++;
                if (ib < n)
                    he->addrs[k++] = res->addr[ib++];
            }
            he->naddr = k;
            for (unsigned i = 0; i < k; i++) {
                if (he->addrs[i].sa.sa_family == AF_INET6)
                    he->addrs[i].in6.sin6_port = htons(he->port);
                else
                    he->addrs[i].in.sin_port = htons(he->port);
            }
            he->c->naddr = k;
            he_start_next(he);
        }
    }
    he->depth--;
    he_maybe_free(he);
}

void vigil_dns_connect_options_init(struct vigil_dns_connect_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
    opt->family = AF_UNSPEC;
    opt->delay_ns = VIGIL_DNS_CONNECT_DELAY_NS;
}

int vigil_dns_connect(vigil_resolver *r, vigil_dns_conn *c, struct vigil_sock *s, const char *name, uint16_t port,
                      const struct vigil_dns_connect_options *opt, vigil_dns_conn_cb cb)
{
    struct vigil_dns_connect_options def;
    if (!opt) {
        vigil_dns_connect_options_init(&def);
        opt = &def;
    }
    if (!r || !c || !s || !name || !cb || port == 0 || opt->size != sizeof *opt || opt->flags != 0 ||
        (opt->family != AF_UNSPEC && opt->family != AF_INET && opt->family != AF_INET6) ||
        opt->timeout_ns < 0 || opt->delay_ns < 10000000 || opt->delay_ns > 2000000000)
        return -EINVAL;
    for (size_t i = 0; i < sizeof opt->reserved / sizeof opt->reserved[0]; i++)
        if (opt->reserved[i])
            return -EINVAL;
    if (he_of(c))
        return -EBUSY;
    if (!r->loop)
        return -ECANCELED;
    struct he *he = calloc(1, sizeof *he);
    if (!he)
        return -ENOMEM;
    he->loop = r->loop;
    he->r = r;
    he->c = c;
    he->out = s;
    he->cb = cb;
    he->attempt_cb = opt->attempt_cb;
    he->family = opt->family;
    he->port = port;
    he->delay_ns = opt->delay_ns;
    he->lk.data = he;
    he->delay.data = he;
    he->timeout.data = he;
    he->later.run = he_later;
    int e = vigil_resolve(r, &he->lk, name, opt->family, opt->resolve_flags, on_lookup);
    if (e < 0) {
        free(he);
        return e;
    }
    he->resolving = true;
    if (opt->timeout_ns > 0) {
        e = vigil_timer_start(he->loop, &he->timeout, CLOCK_MONOTONIC, opt->timeout_ns, 0, 0, on_timeout);
        if (e < 0) {
            vigil_resolve_cancel(r, &he->lk); /* its callback frees he, once delivered */
            he->done = true;
            he->delivered = true;
            return e;
        }
    }
    c->sock = s;
    c->attempts = 0;
    c->naddr = 0;
    memset(&c->addr, 0, sizeof c->addr);
    c->private_[0] = (uint64_t)(uintptr_t)he;
    return 0;
}

int vigil_dns_connect_cancel(vigil_dns_conn *c)
{
    if (!c)
        return -EINVAL;
    struct he *he = he_of(c);
    if (!he || he->done)
        return -ENOENT;
    he->depth++;
    he_finish(he, -ECANCELED, false);
    he->depth--;
    he_maybe_free(he);
    return 0;
}
