/* vigil: resolving names in the loop.
 *
 * getaddrinfo() blocks its thread for as long as the DNS server takes (seconds when a
 * server is down). A vigil resolver asks the questions itself, through vigil's own
 * sockets (<vigil/net.h>: UDP, and TCP when an answer is truncated), so a lookup costs
 * the loop a few datagrams and no thread:
 *
 *   vigil_resolver *r;
 *   vigil_resolver_new(loop, &r, NULL);        // reads /etc/resolv.conf, hosts, nsswitch.conf
 *   vigil_lookup lk = {0};                     // caller-owned, zeroed before first use
 *   vigil_resolve(r, &lk, "example.org", AF_UNSPEC, 0, on_done);
 *   ... on_done(loop, &lk, status, res): status 0: res->addr[0..res->naddr) in the order
 *       getaddrinfo() would give them; status < 0: VIGIL_DNS_E* or a negative errno
 *   vigil_resolver_free(r);
 *
 * What it does, as the system's resolver does (glibc's, where a program would notice):
 *   - /etc/nsswitch.conf's hosts: line decides the order of "files" (/etc/hosts) and
 *     "dns"; the /etc/hosts entries of a name are all returned (glibc's "multi on").
 *   - /etc/resolv.conf: nameserver (up to 3), search/domain, options ndots, timeout,
 *     attempts, rotate. The search list is tried as glibc tries it (a name with at least
 *     ndots dots as given first, else the search domains first; a trailing dot: as given
 *     only).
 *   - A and AAAA are asked in parallel (AF_UNSPEC), each to the first server, the next
 *     server after a timeout or a SERVFAIL/REFUSED answer, for `attempts` rounds; in each
 *     round the first server is given `timeout` seconds, the one at position i > 0
 *     (timeout << i) / nservers (at least 1 s), as glibc's res_send does.
 *   - CNAME chains inside an answer are followed (at most 16 links); the end of the chain
 *     is res->canonname.
 *   - Results are sorted by RFC 6724's destination address selection with glibc's
 *     default policy table (/etc/gai.conf is not read), using the source address the
 *     kernel would pick for each destination (a connect() of a UDP socket, as glibc
 *     does): on a machine without a gai.conf the order is getaddrinfo()'s.
 *
 * Where it differs, and why (vigil_dns.7 has the full list):
 *   - The files are checked for change (stat: mtime, size, inode) at most once a second,
 *     at a lookup: a change is seen by the first lookup a second after the last check.
 *     glibc stats resolv.conf at every res_init; one stat per lookup per file is the
 *     cost of a cache miss on this path, so vigil bounds it.
 *   - Answers are cached for their TTL (bounded, least recently used evicted first,
 *     negative answers for the SOA minimum), unless turned off: glibc caches nothing
 *     (nscd aside).
 *   - Query ids come from getrandom(); every UDP socket carries at most
 *     udp_max_queries questions, then a fresh socket (a fresh random port) takes over.
 *     A reply is accepted only if its id, its question (name, type, class) and the
 *     address and port it came from all match a question in flight; anything else is
 *     dropped and counted (vigil_resolver_stats_get), never accepted.
 *   - Sources of the hosts: line that vigil does not speak are handed to getaddrinfo()
 *     on a thread of the resolver's own, only for the names they answer: mdns4_minimal,
 *     mdns6_minimal, mdns_minimal, mdns4, mdns6, mdns (names under .local), myhostname
 *     (localhost, *.localhost, the host's own name, _gateway, _outbound), resolve and
 *     every other source (all names). res->source says which path answered.
 *
 * Lookups end exactly once: the callback runs in the loop thread, never inside the call
 * that started the lookup, with 0 and the addresses, or an error. vigil_resolve_cancel,
 * vigil_resolver_free and vigil_loop_free end lookups in flight with -ECANCELED. Once
 * the loop is freed a resolver refuses new lookups (-ECANCELED); vigil_resolver_free
 * must still be called to release its memory. Loop thread only.
 */
#ifndef VIGIL_DNS_H
#define VIGIL_DNS_H
/* Included by vigil.h; may also be included on its own. */

#include "vigil/loop.h"

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_resolver vigil_resolver;
typedef struct vigil_lookup vigil_lookup;

/* Errors of a lookup, beside negative errnos (-ECANCELED, -ENOMEM, -EINVAL for a name
 * that is not a valid host name, -ETIMEDOUT when no server answered in time). They lie
 * in a range no errno uses. getaddrinfo()'s nearest code is given for each. */
#define VIGIL_DNS_ENONAME (-10001)   /* no such name: NXDOMAIN, not in hosts (EAI_NONAME) */
#define VIGIL_DNS_ENODATA (-10002)   /* the name exists, without an address of the family
                                        asked (EAI_NODATA) */
#define VIGIL_DNS_ESERVFAIL (-10003) /* every server answered SERVFAIL (EAI_AGAIN) */
#define VIGIL_DNS_EREFUSED (-10004)  /* every server refused or did not implement the
                                        question (EAI_AGAIN) */
#define VIGIL_DNS_EBADRESP (-10005)  /* only malformed answers came back (EAI_FAIL) */
#define VIGIL_DNS_ENOSERVER (-10006) /* no nameserver configured, and dns asked (EAI_AGAIN) */
#define VIGIL_DNS_ESYSTEM (-10007)   /* the getaddrinfo() fallback failed with an EAI_
                                        code that has no equivalent here (EAI_FAIL...) */

/* What answered (vigil_dns_result.source). */
enum vigil_dns_source {
    VIGIL_DNS_SOURCE_NUMERIC = 1, /* the name was an address */
    VIGIL_DNS_SOURCE_HOSTS = 2,   /* the hosts file */
    VIGIL_DNS_SOURCE_DNS = 3,     /* a DNS server, asked by vigil */
    VIGIL_DNS_SOURCE_CACHE = 4,   /* vigil's cache of earlier DNS answers */
    VIGIL_DNS_SOURCE_SYSTEM = 5,  /* getaddrinfo() on the resolver's thread (nsswitch) */
};

/* One address: the family tells which member is valid; the port is 0. */
union vigil_dns_addr {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
};

/* What a lookup found; valid only during the callback. */
struct vigil_dns_result {
    uint32_t naddr;                   /* addresses in addr (0 on error) */
    uint32_t ttl_s;                   /* smallest TTL of the records used (0: hosts, system) */
    const union vigil_dns_addr *addr; /* in getaddrinfo()'s order */
    const char *canonname;            /* the name the addresses belong to (end of the CNAME
                                         chain, or the name as found); never NULL */
    int source;                       /* enum vigil_dns_source; 0 when nothing answered */
    int reserved_[3];
};

/* status 0: res holds the addresses. status < 0: VIGIL_DNS_E* or a negative errno; res
 * is still given (naddr 0, source saying who answered, if any). lk may be started again
 * (or freed) from here on. */
typedef void (*vigil_lookup_cb)(vigil_loop *loop, vigil_lookup *lk, int status, const struct vigil_dns_result *res);

/* A lookup: the caller's struct, zeroed before first use, reused after its callback. */
struct vigil_lookup {
    void *data;           /* the caller's */
    uint64_t private_[7]; /* the library's */
};

#define VIGIL_RESOLVER_NO_CACHE 0x1u /* vigil_resolver_options.flags: cache nothing */
#define VIGIL_RESOLVE_NO_CACHE 0x1u  /* vigil_resolve flags: neither read nor fill the cache */

struct vigil_resolver_options {
    uint32_t size;            /* sizeof(struct vigil_resolver_options); set by _init */
    uint32_t flags;           /* VIGIL_RESOLVER_* */
    const char *resolv_conf;  /* NULL: /etc/resolv.conf */
    const char *hosts;        /* NULL: /etc/hosts */
    const char *nsswitch;     /* NULL: /etc/nsswitch.conf (missing: "files dns") */
    uint32_t cache_max;       /* answers kept at most; default 1024 */
    uint32_t udp_max_queries; /* questions per UDP socket before a fresh one; default 64 */
    uint16_t port;            /* the servers' port; default 53 (tests use others) */
    uint16_t reserved16_;
    uint32_t reserved32_;
    uint64_t reserved[5];     /* zero */
};

VIGIL_EXPORT void vigil_resolver_options_init(struct vigil_resolver_options *opt);

/* Creates a resolver on loop (opt may be NULL). The configuration files are read at
 * the first lookup. -EINVAL for bad options, -ENOMEM. */
VIGIL_EXPORT int vigil_resolver_new(vigil_loop *loop, vigil_resolver **out, const struct vigil_resolver_options *opt);

/* Ends every lookup still in flight (each callback runs, inside this call, with
 * -ECANCELED), then releases the resolver (its sockets finish closing in the loop's next
 * turns, or in vigil_loop_free). Also after the loop was freed. -EBUSY from inside one of
 * this resolver's own callbacks. */
VIGIL_EXPORT int vigil_resolver_free(vigil_resolver *r);

/* Looks name up: family AF_UNSPEC (A and AAAA in parallel), AF_INET or AF_INET6;
 * flags VIGIL_RESOLVE_*. cb runs once, later. -EINVAL for NULL arguments, a bad family
 * or flags, -EBUSY if lk is in flight, -ECANCELED once the loop was freed, -ENOMEM. A
 * name that is not a valid host name is not an error here: its callback gets -EINVAL. */
VIGIL_EXPORT int vigil_resolve(vigil_resolver *r, vigil_lookup *lk, const char *name, int family, uint32_t flags,
                               vigil_lookup_cb cb);

/* Cancels a lookup in flight: its callback runs once, later, with -ECANCELED (or its
 * result if it ended first). A fallback getaddrinfo() already running on the resolver's
 * thread is not interrupted; its answer is dropped. -ENOENT if lk is not in flight. */
VIGIL_EXPORT int vigil_resolve_cancel(vigil_resolver *r, vigil_lookup *lk);

struct vigil_resolver_stats {
    uint64_t lookups;          /* started */
    uint64_t queries_sent;     /* DNS questions sent over UDP (retries included) */
    uint64_t tcp_queries;      /* questions asked again over TCP after a truncated answer */
    uint64_t timeouts;         /* questions a server left unanswered in time */
    uint64_t cache_hits;       /* questions answered from the cache */
    uint64_t system_lookups;   /* names handed to getaddrinfo() (nsswitch) */
    uint64_t dropped;          /* replies dropped, all reasons (the four below) */
    uint64_t dropped_id;       /* no question in flight with that id on that socket */
    uint64_t dropped_addr;     /* right id, sent from another address or port */
    uint64_t dropped_question; /* right id and sender, another name, type or class */
    uint64_t dropped_malformed;/* too short or not a response */
    uint64_t config_reloads;   /* times a changed configuration file was read again */
    uint64_t udp_sockets;      /* UDP sockets opened */
    uint64_t reserved[7];
};
VIGIL_EXPORT int vigil_resolver_stats_get(vigil_resolver *r, struct vigil_resolver_stats *out);

/* A message for a lookup's status (VIGIL_DNS_E* or a negative errno). */
VIGIL_EXPORT const char *vigil_dns_strerror(int status);

/* ------------------------------------------------- connecting by name (Happy Eyeballs)
 *
 * vigil_dns_connect resolves a name and connects a TCP socket to it as RFC 8305 (Happy
 * Eyeballs v2) says: both families are asked (A and AAAA in parallel, one lookup), the
 * addresses are taken in the resolver's order (RFC 6724: IPv6 first where it is usable)
 * with the families interleaved (the first address's family, then the other, then the
 * first again...), and the next address's attempt is started `delay_ns` (250 ms) after
 * the previous one while that one is still trying -- at once when it fails. The first
 * attempt to connect wins: every other one is cancelled and its socket closed, and the
 * winner is handed over on the caller's vigil_sock, open and connected, as
 * vigil_net_connect leaves it. An overall timeout bounds the whole (lookup included).
 *
 *   vigil_dns_conn c = {0};                // caller-owned, zeroed before first use
 *   vigil_sock s = {0};
 *   vigil_dns_connect(r, &c, &s, "example.org", 443, NULL, on_conn);
 *   ... on_conn(loop, &c, status): status 0: s is connected (c.addr says where to);
 *       else VIGIL_DNS_E* from the lookup or a negative errno, s untouched
 *
 * Differences from RFC 8305: the lookup reports A and AAAA together once both are in
 * (vigil_resolve), so there is no "resolution delay" of 50 ms for a late AAAA; the
 * attempt delay is fixed per call (no RTT history). */

struct vigil_sock; /* <vigil/net.h>'s vigil_sock (not typedef'd here: C99 forbids a second typedef) */
typedef struct vigil_dns_conn vigil_dns_conn;

/* status 0: the socket given to vigil_dns_connect is open (vigil owns its fd, as after
 * vigil_sock_open) and connected to c->addr. status < 0: the lookup's error
 * (VIGIL_DNS_E*, -EINVAL for a bad name...), -ETIMEDOUT when the overall timeout passed,
 * -ECANCELED (vigil_dns_connect_cancel; vigil_resolver_free during the lookup;
 * vigil_loop_free), or, when
 * every address failed, the last attempt's error (-ECONNREFUSED, -ENETUNREACH...); the
 * socket was not opened. Every attempt's socket but the winner's is closed before the
 * callback runs. c may be started again (or freed) from here on. */
typedef void (*vigil_dns_conn_cb)(vigil_loop *loop, vigil_dns_conn *c, int status);
/* Called as each attempt starts (for logs and tests): its address (with the port) and
 * its number (0, 1, ...). */
typedef void (*vigil_dns_attempt_cb)(vigil_loop *loop, vigil_dns_conn *c, const union vigil_dns_addr *addr,
                                     unsigned attempt);

/* A connect by name: the caller's struct, zeroed before first use, reused after its
 * callback. */
struct vigil_dns_conn {
    void *data;                /* the caller's */
    struct vigil_sock *sock;   /* read-only: the socket given to vigil_dns_connect */
    union vigil_dns_addr addr; /* read-only: the address connected to (with the port),
                                  once the callback ran with 0 */
    uint32_t attempts;         /* read-only: attempts started so far */
    uint32_t naddr;            /* read-only: addresses the lookup gave (0 before) */
    uint64_t private_[4];      /* the library's */
};

#define VIGIL_DNS_CONNECT_DELAY_NS 250000000 /* RFC 8305's connection attempt delay */

struct vigil_dns_connect_options {
    uint32_t size;                   /* sizeof(struct vigil_dns_connect_options); set by _init */
    uint32_t flags;                  /* 0 */
    int family;                      /* AF_UNSPEC (default), AF_INET or AF_INET6 only */
    uint32_t resolve_flags;          /* VIGIL_RESOLVE_* for the lookup; default 0 */
    int64_t timeout_ns;              /* overall, from the call; 0 (default): none */
    int64_t delay_ns;                /* between attempts; default VIGIL_DNS_CONNECT_DELAY_NS;
                                        10 ms to 2 s (RFC 8305's bounds are 100 ms to 2 s) */
    vigil_dns_attempt_cb attempt_cb; /* NULL: none */
    uint64_t reserved[4];            /* zero */
};

VIGIL_EXPORT void vigil_dns_connect_options_init(struct vigil_dns_connect_options *opt);

/* Looks name up on r and connects s (zeroed, not open) to port on its addresses (see
 * above); opt may be NULL for the defaults. cb runs once, later, never inside this
 * call. Returns 0 when started, else: -EINVAL for a NULL argument, bad options, port 0;
 * -EBUSY if c is in flight; -ECANCELED once the loop was freed; -ENOMEM. If s is open
 * already when an attempt wins, the callback gets -EBUSY. */
VIGIL_EXPORT int vigil_dns_connect(vigil_resolver *r, vigil_dns_conn *c, struct vigil_sock *s, const char *name,
                                   uint16_t port, const struct vigil_dns_connect_options *opt, vigil_dns_conn_cb cb);

/* Cancels a connect by name in flight: its lookup is cancelled, its attempts' sockets
 * closed, and its callback runs once, later, with -ECANCELED. -ENOENT if c is not in
 * flight (its callback ran, or is running). */
VIGIL_EXPORT int vigil_dns_connect_cancel(vigil_dns_conn *c);

#ifdef __cplusplus
}
#endif
#endif
