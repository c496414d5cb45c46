/* src/dns/sort.c: destination address ordering (RFC 6724 section 6) as glibc's
 * getaddrinfo() applies it with its built-in policy (no /etc/gai.conf): rules 1 (usable:
 * the kernel has a source address for it), 2 (matching scope), 5 (matching label), 6
 * (higher precedence), 8 (smaller scope), 9 (longest matching prefix; for IPv4 only
 * inside the source's subnet, as glibc does), 10 (the order received). Rules 3, 4 and 7
 * (deprecated, home and native addresses) need the kernel's address flags: glibc reads
 * them over netlink; vigil skips them (they only matter with deprecated or tunnelled
 * IPv6 source addresses). The source address of each destination is asked of the kernel
 * by a connect() of a UDP socket (no packet is sent), as glibc does. Calls libc only.
 */
#include "dns/dns_int.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <string.h>
#include <unistd.h>

struct prefix {
    uint8_t p[16];
    int bits;
    int val;
};

/* Most specific first. */
static const struct prefix labels[] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128, 0},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}, 96, 4},
    {{0}, 96, 3},
    {{0x20, 0x01}, 32, 7},
    {{0x20, 0x02}, 16, 2},
    {{0xfe, 0xc0}, 10, 5},
    {{0xfc, 0x00}, 7, 6},
    {{0}, 0, 1},
};

static const struct prefix precedence[] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128, 50},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}, 96, 10},
    {{0}, 96, 20},
    {{0x20, 0x02}, 16, 30},
    {{0}, 0, 40},
};

static void as_v6(const union vigil_dns_addr *a, uint8_t out[16])
{
    if (a->sa.sa_family == AF_INET6) {
        memcpy(out, &a->in6.sin6_addr, 16);
    } else {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &a->in.sin_addr, 4);
    }
}

static int match(const struct prefix *t, size_t n, const union vigil_dns_addr *a)
{
    uint8_t v[16];
    as_v6(a, v);
    for (size_t i = 0; i < n; i++) {
        int bits = t[i].bits, k = 0;
        for (; bits >= 8; bits -= 8, k++)
            if (v[k] != t[i].p[k])
                break;
        if (bits >= 8)
            continue;
        uint8_t mask = (uint8_t)(0xff00 >> bits);
        if (bits == 0 || (v[k] & mask) == (t[i].p[k] & mask))
            return t[i].val;
    }
    return 0;
}

static int scope(const union vigil_dns_addr *a)
{
    if (a->sa.sa_family == AF_INET6) {
        const struct in6_addr *x = &a->in6.sin6_addr;
        if (IN6_IS_ADDR_MULTICAST(x))
            return x->s6_addr[1] & 0xf;
        if (IN6_IS_ADDR_LINKLOCAL(x) || IN6_IS_ADDR_LOOPBACK(x))
            return 2;
        if (IN6_IS_ADDR_SITELOCAL(x))
            return 5;
        return 14;
    }
    const uint8_t *b = (const uint8_t *)&a->in.sin_addr;
    if ((b[0] == 169 && b[1] == 254) || b[0] == 127)
        return 2;
    return 14;
}

/* Leading bits in common, glibc's way (its "fls" counts from the top bit). */
static int lead(uint32_t x)
{
    int n = 0;
    for (uint32_t m = 1u << 31; n < 32 && !(x & m); m >>= 1)
        n++;
    return n;
}

struct ent {
    union vigil_dns_addr dst, src;
    bool usable;
    int prefixlen; /* IPv4 source's subnet */
    int idx;
};

void vigil__dns_sorter_init(struct dns_sorter *s)
{
    memset(s, 0, sizeof *s);
    s->fd[0] = s->fd[1] = -1;
}

void vigil__dns_sorter_fini(struct dns_sorter *s)
{
    for (int i = 0; i < 2; i++)
        if (s->fd[i] >= 0)
            close(s->fd[i]);
    s->fd[0] = s->fd[1] = -1;
}

static void read_ifs(struct dns_sorter *s, int64_t now_ns)
{
    if (s->ifs_ns && now_ns - s->ifs_ns < 1000000000LL)
        return;
    s->ifs_ns = now_ns;
    s->nv4 = 0;
    s->have_v6 = false;
    struct ifaddrs *ifa;
    if (getifaddrs(&ifa) != 0)
        return;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET6 &&
            !IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr))
            s->have_v6 = true;
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask || s->nv4 == 16)
            continue;
        s->v4[s->nv4].addr = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
        s->v4[s->nv4].mask = ((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr.s_addr;
        s->nv4++;
    }
    freeifaddrs(ifa);
}

/* The source's prefix length as glibc knows it: from its netlink address list, which it
 * keeps only on a host with an IPv6 address other than ::1 (check_pf.c); else 0. */
static int prefixlen_of(const struct dns_sorter *s, uint32_t addr)
{
    if (!s->have_v6)
        return 0;
    for (int i = 0; i < s->nv4; i++)
        if (s->v4[i].addr == addr)
            return __builtin_popcount(s->v4[i].mask);
    return 32;
}

static int cmp(const struct ent *a1, const struct ent *a2)
{
    /* Rule 1 */
    if (a1->usable != a2->usable)
        return a1->usable ? -1 : 1;
    int d1 = scope(&a1->dst), d2 = scope(&a2->dst);
    if (a1->usable) {
        /* Rule 2 */
        int s1 = scope(&a1->src), s2 = scope(&a2->src);
        if ((d1 == s1) != (d2 == s2))
            return d1 == s1 ? -1 : 1;
        /* Rule 5 */
        bool l1 = match(labels, sizeof labels / sizeof labels[0], &a1->dst) ==
                  match(labels, sizeof labels / sizeof labels[0], &a1->src);
        bool l2 = match(labels, sizeof labels / sizeof labels[0], &a2->dst) ==
                  match(labels, sizeof labels / sizeof labels[0], &a2->src);
        if (l1 != l2)
            return l1 ? -1 : 1;
    }
    /* Rule 6 */
    int p1 = match(precedence, sizeof precedence / sizeof precedence[0], &a1->dst);
    int p2 = match(precedence, sizeof precedence / sizeof precedence[0], &a2->dst);
    if (p1 != p2)
        return p1 > p2 ? -1 : 1;
    /* Rule 8 */
    if (d1 != d2)
        return d1 < d2 ? -1 : 1;
    /* Rule 9 */
    if (a1->usable && a1->dst.sa.sa_family == a2->dst.sa.sa_family) { /* (a2 usable too: rule 1) */
        int b1 = 0, b2 = 0;
        if (a1->dst.sa.sa_family == AF_INET) {
            uint32_t x1 = ntohl(a1->dst.in.sin_addr.s_addr), y1 = ntohl(a1->src.in.sin_addr.s_addr);
            uint32_t x2 = ntohl(a2->dst.in.sin_addr.s_addr), y2 = ntohl(a2->src.in.sin_addr.s_addr);
            /* glibc shifts by 32 - prefixlen: by 32 for an unknown length (0), which x86
             * takes as a shift by 0 (a full mask): only the source itself matches. */
            uint32_t m1 = a1->prefixlen ? 0xffffffffu << (32 - a1->prefixlen) : 0xffffffffu;
            uint32_t m2 = a2->prefixlen ? 0xffffffffu << (32 - a2->prefixlen) : 0xffffffffu;
            if ((x1 & m1) == (y1 & m1))
                b1 = lead(x1 ^ y1);
            if ((x2 & m2) == (y2 & m2))
                b2 = lead(x2 ^ y2);
        } else {
            const uint8_t *x1 = a1->dst.in6.sin6_addr.s6_addr, *y1 = a1->src.in6.sin6_addr.s6_addr;
            const uint8_t *x2 = a2->dst.in6.sin6_addr.s6_addr, *y2 = a2->src.in6.sin6_addr.s6_addr;
            int i;
            for (i = 0; i < 4; i++)
                if (memcmp(x1 + 4 * i, y1 + 4 * i, 4) != 0 || memcmp(x2 + 4 * i, y2 + 4 * i, 4) != 0)
                    break;
            if (i < 4) {
                uint32_t w[4];
                memcpy(&w[0], x1 + 4 * i, 4);
                memcpy(&w[1], y1 + 4 * i, 4);
                memcpy(&w[2], x2 + 4 * i, 4);
                memcpy(&w[3], y2 + 4 * i, 4);
                b1 = lead(ntohl(w[0] ^ w[1]));
                b2 = lead(ntohl(w[2] ^ w[3]));
            }
        }
        if (b1 != b2)
            return b1 > b2 ? -1 : 1;
    }
    /* Rule 10 */
    return a1->idx < a2->idx ? -1 : 1;
}

static void source_of(struct dns_sorter *s, struct ent *e, int64_t now_ns)
{
    int fam = e->dst.sa.sa_family;
    int k = fam == AF_INET ? 0 : 1;
    e->usable = false;
    if (s->fd[k] < 0)
        s->fd[k] = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_IP);
    if (s->fd[k] < 0)
        return;
    union vigil_dns_addr d = e->dst;
    socklen_t dl = fam == AF_INET ? sizeof d.in : sizeof d.in6;
    if (fam == AF_INET)
        d.in.sin_port = htons(53); /* any port: connect() only routes */
    else
        d.in6.sin6_port = htons(53);
    if (connect(s->fd[k], &d.sa, dl) != 0)
        return;
    socklen_t sl = sizeof e->src;
    if (getsockname(s->fd[k], &e->src.sa, &sl) != 0 || e->src.sa.sa_family != fam)
        return;
    e->usable = true;
    if (fam == AF_INET) {
        read_ifs(s, now_ns);
        e->prefixlen = prefixlen_of(s, e->src.in.sin_addr.s_addr);
    }
}

void vigil__dns_sort(struct dns_sorter *s, union vigil_dns_addr *a, int n, int64_t now_ns)
{
    if (n < 2)
        return;
    struct ent e[2 * DNS_MAX_ADDR];
    if (n > 2 * DNS_MAX_ADDR)
        n = 2 * DNS_MAX_ADDR;
    for (int i = 0; i < n; i++) {
        memset(&e[i], 0, sizeof e[i]);
        e[i].dst = a[i];
        e[i].idx = i;
        source_of(s, &e[i], now_ns);
    }
    /* Insertion sort: n is small, and ties keep their order (rule 10 decides anyway). */
    for (int i = 1; i < n; i++) {
        struct ent x = e[i];
        int j = i;
        while (j > 0 && cmp(&x, &e[j - 1]) < 0) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
    for (int i = 0; i < n; i++)
        a[i] = e[i].dst;
}
