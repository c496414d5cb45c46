/* src/dns/: name lookup in the loop (<vigil/dns.h>). One concept per file:
 *   conf.c      resolv.conf, hosts and nsswitch.conf: parsing, the change check
 *   packet.c    DNS messages: a question encoded, an answer decoded and checked
 *   cache.c     the TTL cache (bounded, least recently used evicted)
 *   sort.c      RFC 6724 destination ordering with glibc's default policy
 *   system.c    the getaddrinfo() fallback on the resolver's own thread
 *   query.c     the engine: questions over UDP (TCP after truncation), timeouts, servers
 *   resolver.c  the public calls, the lookup's walk through the hosts: sources, the end
 * May call: <vigil/net.h> (UDP and TCP sockets), timers, src/loop (the module slot, the
 * completion point, the loop's active count), libc. Nothing else calls into it.
 *
 * Lifetime. A resolver belongs to its caller; the loop knows it through the DNS module
 * (a list of resolvers) so that vigil_loop_free can end its lookups (-ECANCELED) and close
 * its sockets first (the module's slot is the last, so its fini runs before the sockets'
 * own). Sockets are closed asynchronously: each socket lives in a struct of its own,
 * freed by its close callback, so a resolver's memory may go before its sockets' closes
 * complete. A question (struct dns_q) may have a send in flight on a socket when its
 * lookup ends: the question is then parked on its socket (q->lk NULL) until the send's
 * callback, and freed there.
 */
#ifndef VIGIL_DNS_INT_H
#define VIGIL_DNS_INT_H

#include "vigil.h"
#include "vigil/dns.h"
#include "vigil/net.h"
#include "loop/loop.h"
#include "sys/list.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define DNS_MAX_NS 3
#define DNS_MAX_SEARCH 6
#define DNS_MAX_ADDR 32     /* addresses kept per question (more are dropped) */
#define DNS_NAME_MAX 256    /* dotted name with its NUL (at most 253 characters) */
#define DNS_MAX_NSS 8       /* sources on the hosts: line */
#define DNS_UDP_MAX 512     /* answer size without EDNS (what glibc asks for) */
#define DNS_TCP_MAX 65537   /* length prefix + largest message */
#define DNS_CNAME_MAX 16
/* UDP questions a resolver keeps on the wire at most; the rest wait their turn (their
 * timeout starts when they are sent). io_uring sends a turn's questions in one burst: 200
 * small datagrams at once overflow a server socket's default receive buffer (208 KiB,
 * about 1 KiB of it per datagram: lab/resolve saw dnsmasq drop 3-6 of 20,000 questions,
 * each a 2 s timeout), and a server that answers in order is not served faster by a
 * longer queue. */
#define DNS_WINDOW 128

enum { DNS_T_A = 1, DNS_T_CNAME = 5, DNS_T_SOA = 6, DNS_T_AAAA = 28 };
enum { DNS_R_NOERROR = 0, DNS_R_FORMERR = 1, DNS_R_SERVFAIL = 2, DNS_R_NXDOMAIN = 3, DNS_R_NOTIMP = 4,
       DNS_R_REFUSED = 5 };

/* ------------------------------------------------------------- conf.c */

enum dns_nss_kind { NSS_FILES = 1, NSS_DNS, NSS_MDNS, NSS_MYHOSTNAME, NSS_OTHER };
enum dns_nss_status { NSS_SUCCESS = 0, NSS_NOTFOUND, NSS_UNAVAIL, NSS_TRYAGAIN, NSS_NSTATUS };

struct dns_nss_src {
    uint8_t kind;                /* enum dns_nss_kind */
    uint8_t ret[NSS_NSTATUS];    /* 1: return on that status, 0: continue */
};

struct dns_host {                /* one (name, address) pair of the hosts file */
    uint32_t name_off;           /* in hosts_names: the name, lower case */
    uint32_t canon_off;          /* the line's first name, as written */
    uint32_t next;               /* next entry of the same hash bucket + 1 (0 ends) */
    uint32_t hash;
    int family;
    uint8_t addr[16];
};

struct dns_stamp {
    bool exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    int64_t mtime_ns;
};

struct dns_conf {
    /* resolv.conf */
    union vigil_dns_addr ns[DNS_MAX_NS];
    int nns;
    char search[DNS_MAX_SEARCH][DNS_NAME_MAX];
    int nsearch;
    int ndots, timeout_s, attempts;
    bool rotate;
    /* nsswitch.conf's hosts: line */
    struct dns_nss_src nss[DNS_MAX_NSS];
    int nnss;
    bool nss_foreign;            /* a source vigil does not speak is named */
    /* hosts */
    struct dns_host *hosts;
    uint32_t nhosts, hosts_cap;
    uint32_t *hosts_bucket;      /* entry index + 1, 0 empty; hosts_nbucket is a power of two */
    uint32_t hosts_nbucket;
    char *hosts_names;
    size_t hosts_names_len, hosts_names_cap;
    /* the host's own name (myhostname) */
    char hostname[DNS_NAME_MAX];
    /* change check */
    struct dns_stamp st[3];      /* resolv.conf, hosts, nsswitch.conf */
    int64_t checked_ns;          /* last check (CLOCK_MONOTONIC), 0: never */
    bool loaded;
};

/* Files as given (or the /etc defaults). */
struct dns_paths {
    const char *file[3];         /* resolv.conf, hosts, nsswitch.conf */
    uint16_t port;
};

/* Reads the files again if one changed since the last check, at most once a second
 * (now_ns): returns 1 when something was read, 0 when nothing changed, -ENOMEM. */
int vigil__dns_conf_check(struct dns_conf *c, const struct dns_paths *p, int64_t now_ns);
void vigil__dns_conf_free(struct dns_conf *c);
/* The hosts entries of name (lower case, no trailing dot) for family (AF_UNSPEC: both),
 * in file order, into out (at most max); *canon: the first entry's line's first name.
 * Returns the count. */
int vigil__dns_hosts_find(const struct dns_conf *c, const char *name, int family, union vigil_dns_addr *out,
                          int max, const char **canon);
/* 1 if the foreign source kind answers name (see dns.h). */
bool vigil__dns_nss_claims(const struct dns_conf *c, int kind, const char *name);
uint32_t vigil__dns_hash(const char *s);

/* ------------------------------------------------------------- packet.c */

struct dns_answer {
    int rcode;
    bool tc;
    int ancount;                    /* records in the answer section */
    int naddr;
    uint8_t addr[DNS_MAX_ADDR][16]; /* 4 or 16 bytes each, per the question's type */
    uint32_t ttl;                   /* smallest TTL of the chain and the addresses used */
    uint32_t neg_ttl;               /* NXDOMAIN/NODATA: min(SOA TTL, SOA minimum); 0: none */
    bool has_neg_ttl;
    char canon[DNS_NAME_MAX];       /* end of the CNAME chain */
};

enum { DNS_PARSE_OK = 0, DNS_PARSE_MALFORMED = -1, DNS_PARSE_QUESTION = -2 };

/* A standard query (RD set) for name (dotted, no trailing dot) into buf: its length, or
 * -EINVAL if the name does not encode. */
int vigil__dns_encode_query(uint8_t *buf, size_t cap, uint16_t id, const char *name, uint16_t qtype);
/* Checks that msg answers (name, qtype, IN) and decodes it into out. */
int vigil__dns_parse(const uint8_t *msg, size_t len, const char *name, uint16_t qtype, struct dns_answer *out);
/* A host name check (letters, digits, '-', '_', '.'; labels 1..63, total <= 253): lowers
 * it into out (without a trailing dot); *trailing_dot says if there was one. -EINVAL. */
int vigil__dns_name_norm(const char *in, char out[DNS_NAME_MAX], bool *trailing_dot);

/* ------------------------------------------------------------- cache.c */

struct dns_cache_ent {
    struct dns_cache_ent *hnext;            /* hash chain */
    struct dns_cache_ent *lru_prev, *lru_next;
    uint32_t hash;
    uint16_t qtype;
    int rcode;                              /* NOERROR (naddr may be 0: NODATA) or NXDOMAIN */
    int64_t expires_ns;
    int naddr;
    uint8_t addr[DNS_MAX_ADDR][16];
    char name[DNS_NAME_MAX];
    char canon[DNS_NAME_MAX];
};

struct dns_cache {
    struct dns_cache_ent **bucket;
    uint32_t nbucket;                       /* power of two */
    uint32_t n, max;
    struct dns_cache_ent lru;               /* sentinel: next is the most recent */
};

int vigil__dns_cache_init(struct dns_cache *c, uint32_t max);
void vigil__dns_cache_fini(struct dns_cache *c);
/* The entry for (name, qtype) if not expired at now_ns (its TTL left in *ttl_left). */
const struct dns_cache_ent *vigil__dns_cache_get(struct dns_cache *c, const char *name, uint16_t qtype,
                                                 int64_t now_ns, uint32_t *ttl_left);
void vigil__dns_cache_put(struct dns_cache *c, const char *name, uint16_t qtype, const struct dns_answer *a,
                          uint32_t ttl_s, int64_t now_ns);

/* ------------------------------------------------------------- sort.c */

struct dns_sorter {
    int fd[2];                              /* UDP sockets for the source check: v4, v6; -1 */
    int64_t ifs_ns;                         /* when the IPv4 prefix lengths were read */
    int nv4;
    bool have_v6;                           /* an IPv6 address other than ::1 */
    struct { uint32_t addr, mask; } v4[16]; /* local IPv4 addresses and their masks */
};
void vigil__dns_sorter_init(struct dns_sorter *s);
void vigil__dns_sorter_fini(struct dns_sorter *s);
/* Sorts a[0..n) into getaddrinfo()'s order (stable for ties). */
void vigil__dns_sort(struct dns_sorter *s, union vigil_dns_addr *a, int n, int64_t now_ns);

/* ------------------------------------------------------------- system.c */

struct dns_sys_job {
    struct dns_sys_job *next;
    struct dns_lk *lk;                      /* NULL once the lookup ended (dropped) */
    char name[DNS_NAME_MAX];
    int family;
    int status;                             /* the outcome (VIGIL_DNS_E*, errno) */
    int naddr;
    union vigil_dns_addr addr[DNS_MAX_ADDR];
    char canon[DNS_NAME_MAX];
};

struct dns_sys {
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct dns_sys_job *todo_head, **todo_tail;  /* guarded by mu */
    struct dns_sys_job *done_head, **done_tail;  /* guarded by mu */
    bool stop;                                   /* guarded by mu */
    int efd;                                     /* eventfd: done jobs waiting */
    vigil_io io;
    unsigned pending;                            /* jobs posted, not yet taken back (loop thread) */
};

/* ------------------------------------------------------------- query.c / resolver.c */

struct dns_udp;
struct dns_tcp;
struct vigil_resolver;

/* One question (name, type) of a lookup, to one server at a time. */
struct dns_q {
    struct dns_lk *lk;                      /* NULL: orphaned (its send still in flight) */
    struct vigil_resolver *r;
    uint16_t qtype;
    uint16_t id;
    bool done;
    bool sending;                           /* sreq in flight */
    bool resend;                            /* a try waits for sreq to come back */
    bool timing;                            /* timer started */
    bool from_cache;
    bool waiting;                           /* on the resolver's window queue */
    struct dns_q *wait_next, **wait_prev;
    int server;                             /* index in conf.ns of the current try */
    union vigil_dns_addr ns;                /* that server's address */
    int tries;                              /* tries made (servers x rounds) */
    int last_err;                           /* the worst server answer so far */
    int status;                             /* at done: 0 with ans, or an error */
    struct dns_udp *udp;                    /* the socket the current try went out on */
    struct dns_udp *send_udp;               /* the socket sreq is on */
    int slot;                               /* its index in udp->q */
    struct dns_tcp *tcp;
    vigil_net_req sreq;
    vigil_timer timer;
    uint8_t pkt[DNS_UDP_MAX];
    int pktlen;
    struct dns_answer ans;
    struct dns_q *free_next;
};

/* A lookup in flight (behind vigil_lookup.private_). */
struct dns_lk {
    struct vigil_resolver *r;
    vigil_lookup *pub;
    vigil_lookup_cb cb;
    struct dns_lk *prev, *next;             /* the resolver's lookups in flight */
    struct dns_lk *done_next;               /* the resolver's end queue */
    int family;
    uint32_t flags;
    int nss_i;                              /* the hosts: source being tried */
    /* glibc's res_search bookkeeping */
    int phase;                              /* 0 as given first, 1 search list, 2 as given last */
    int si;                                 /* next search domain */
    int dots;
    int cand_kind;                          /* the phase of the candidate being asked */
    int saved_err, last_err;
    bool got_nodata, got_servfail, tried_as_is, root_on_list, search_stop;
    bool starting;                          /* ask() is starting the questions */
    bool ending, cancelled;
    int status;
    int source;
    int start_ns;                           /* first server index (rotate) */
    int nq, nq_done;
    struct dns_q *q[2];
    struct dns_sys_job *job;
    uint32_t ttl;
    int naddr;
    union vigil_dns_addr addr[2 * DNS_MAX_ADDR];
    char name[DNS_NAME_MAX];                /* normalized */
    bool trailing_dot;
    char cur[DNS_NAME_MAX];                 /* the candidate being asked */
    char canon[DNS_NAME_MAX];
    struct dns_lk *free_next;
};

struct dns_udp {
    vigil_sock s;
    struct vigil_resolver *r;               /* NULL once the resolver is gone */
    struct dns_udp *prev, *next;            /* the resolver's sockets */
    int family;
    uint32_t used;                          /* questions sent on it, ever */
    uint32_t inflight;                      /* questions waiting for an answer or a send */
    bool retired, closing;
    bool rx_on;                             /* receiving (its loop->active count given back) */
    uint32_t nslot;
    struct dns_q *q[];                      /* by slot: questions in flight (NULL: free) */
};

VIGIL__HLIST_DEFINE(lk_list, struct dns_lk, next, prev)
VIGIL__HLIST_DEFINE(udp_list, struct dns_udp, next, prev)

struct dns_tcp {
    vigil_sock s;
    struct dns_q *q;                        /* NULL once the question left */
    vigil_net_req creq, sreq, rreq;
    uint32_t got;                           /* bytes received into buf */
    uint8_t hdr[2];
    struct iovec iov[2];
    uint8_t buf[DNS_TCP_MAX];
};

struct vigil_resolver {
    vigil_loop *loop;                       /* NULL once the loop is freed */
    struct vigil_resolver *mod_prev, *mod_next; /* the loop's resolvers */
    uint32_t flags;
    uint32_t udp_max;
    struct dns_paths paths;
    char path_buf[3][4096];
    struct dns_conf conf;
    struct dns_cache cache;
    bool cache_on;
    struct dns_sorter sorter;
    struct dns_sys sys;
    struct dns_lk *lks;                     /* in flight */
    struct dns_lk *lk_free;
    struct dns_q *q_free;
    struct dns_lk *done_head, **done_tail;  /* lookups to end at the completion point */
    struct vigil__deferred later;           /* runs the end queue */
    struct dns_udp *udps;                   /* open UDP sockets */
    uint32_t udp_out;                       /* questions in a UDP slot (<= DNS_WINDOW) */
    struct dns_q *wait_head, **wait_tail;   /* questions waiting for room in the window */
    struct dns_udp *cur[2];                 /* the socket taking new questions: v4, v6 */
    int rr;                                 /* rotate: next first server */
    int in_cb;                              /* callbacks of this resolver running */
    bool shutting;                          /* ending: no new lookups */
    uint8_t rnd[256];                       /* getrandom() bytes for ids */
    int rnd_left;
    struct vigil_resolver_stats stats;
};

VIGIL__HLIST_DEFINE(resolver_list, struct vigil_resolver, mod_next, mod_prev)

/* query.c */
int vigil__dns_q_start(struct vigil_resolver *r, struct dns_q *q);
void vigil__dns_q_stop(struct vigil_resolver *r, struct dns_q *q);
void vigil__dns_udp_close_all(struct vigil_resolver *r);
void vigil__dns_pump(struct vigil_resolver *r); /* start questions waiting for the window */
uint16_t vigil__dns_random16(struct vigil_resolver *r);
/* resolver.c: a question has ended (q->done, q->status, q->ans set). */
void vigil__dns_q_done(struct vigil_resolver *r, struct dns_q *q);
/* system.c */
int vigil__dns_sys_post(struct vigil_resolver *r, struct dns_lk *lk);
void vigil__dns_sys_fini(struct vigil_resolver *r);
/* resolver.c: a getaddrinfo() job came back. */
void vigil__dns_sys_done(struct vigil_resolver *r, struct dns_sys_job *job);

#endif
