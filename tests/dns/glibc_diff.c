/* A randomized differential test against glibc's getaddrinfo(): a random zone (names
 * with one to three A and AAAA records, some routable in the namespace (127/8, ::1),
 * some not; CNAME chains; names only in /etc/hosts, names in both), served by dnsmasq;
 * resolv.conf, nsswitch.conf ("hosts: files dns"), hosts and an empty gai.conf
 * bind-mounted over /etc's inside the test's own namespaces; then random (name, family)
 * pairs asked of both, vigil with its cache off. Same addresses in the same order where
 * RFC 6724 orders them (ties: the same set; see sig()), same errors (mapped to getaddrinfo()'s codes), or the test fails and prints the seed
 * (VIGIL_DNS_SEED=n replays it). */
#include "dnsenv.h"

#include <netdb.h>

#define NNAMES 48
#define NASK 400

static unsigned seed;
static unsigned rnd(unsigned n)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
}

static char names[NNAMES + 16][64];
static int nnames;

static void addr4(char *b, size_t n)
{
    if (rnd(2))
        snprintf(b, n, "127.%u.%u.%u", rnd(4), rnd(4), 1 + rnd(200));
    else
        snprintf(b, n, "10.%u.%u.%u", rnd(3), rnd(3), 1 + rnd(200));
}

static void addr6(char *b, size_t n)
{
    switch (rnd(3)) {
    case 0:
        snprintf(b, n, "::1");
        break;
    case 1:
        snprintf(b, n, "2001:db8::%x", 1 + rnd(500));
        break;
    default:
        snprintf(b, n, "2002:c000:%x::1", 1 + rnd(50));
        break;
    }
}

/* Where RFC 6724 (as glibc applies it, in this namespace: only lo, 127.0.0.1/8 and ::1)
 * orders two addresses, and where it leaves them to the order received (rule 10): the
 * rules that can tell them apart here, as one word. dnsmasq rotates the records of a
 * name from one answer to the next, so two askers get ties in different orders: the
 * test compares the sequence of these words, and the addresses as sets within each. */
static void sig(const union vigil_dns_addr *a, char *out, size_t n)
{
    int usable, scope, prec, self;
    if (a->sa.sa_family == AF_INET) {
        const uint8_t *b = (const uint8_t *)&a->in.sin_addr;
        usable = b[0] == 127;
        scope = (b[0] == 127 || (b[0] == 169 && b[1] == 254)) ? 2 : 14;
        prec = 10;
        self = b[0] == 127 && b[1] == 0 && b[2] == 0 && b[3] == 1; /* rule 9: the source itself */
    } else {
        const struct in6_addr *x = &a->in6.sin6_addr;
        usable = IN6_IS_ADDR_LOOPBACK(x);
        scope = usable ? 2 : 14;
        prec = usable ? 50 : (x->s6_addr[0] == 0x20 && x->s6_addr[1] == 0x02) ? 30 : 40;
        self = usable;
    }
    snprintf(out, n, "%c%d/%d/%d/%d", a->sa.sa_family == AF_INET ? '4' : '6', usable, scope, prec, self);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp((const char *)x, (const char *)y);
}

/* The list as "signature addresses..." groups: equal when the order glibc's rules define
 * is equal and each tie holds the same addresses. */
static void canon_list(union vigil_dns_addr *a, int n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n;) {
        char s0[32], s1[32];
        sig(&a[i], s0, sizeof s0);
        int j = i;
        char grp[64][48];
        int k = 0;
        for (; j < n; j++) {
            sig(&a[j], s1, sizeof s1);
            if (strcmp(s0, s1) != 0)
                break;
            if (k < 64)
                snprintf(grp[k++], sizeof grp[0], "%s", dnsenv_fmt(&a[j]));
        }
        qsort(grp, (size_t)k, sizeof grp[0], cmp_str);
        o += (size_t)snprintf(out + o, cap - o, " [%s:", s0);
        for (int m = 0; m < k && o < cap; m++)
            o += (size_t)snprintf(out + o, cap - o, " %s", grp[m]);
        if (o < cap)
            o += (size_t)snprintf(out + o, cap - o, "]");
        i = j;
        if (o >= cap)
            break;
    }
}

static int eai_of(int status)
{
    switch (status) {
    case VIGIL_DNS_ENONAME:
        return EAI_NONAME;
    case VIGIL_DNS_ENODATA:
        return EAI_NODATA;
    case VIGIL_DNS_ESERVFAIL:
    case VIGIL_DNS_EREFUSED: /* glibc's res_send: every server refused: TRY_AGAIN */
    case -ETIMEDOUT:
        return EAI_AGAIN;
    case VIGIL_DNS_EBADRESP:
        return EAI_FAIL;
    default:
        return status == 0 ? 0 : 1000 + status;
    }
}

int main(int argc, char **argv)
{
    dnsenv_enter(argc, argv);
    const char *env = getenv("VIGIL_DNS_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
    unsigned seed0 = seed;
    printf("seed %u\n", seed0);

    static char zone[65536], hosts[16384], cn[8192];
    size_t zl = 0, hl = 0, cl = 0;
    hl += (size_t)snprintf(hosts + hl, sizeof hosts - hl, "127.0.0.1 localhost\n::1 localhost ip6-localhost\n");
    for (int i = 0; i < NNAMES; i++) {
        snprintf(names[nnames++], sizeof names[0], "n%d.test", i);
        int kind = (int)rnd(10);
        char *buf = kind == 9 ? hosts : zone;
        size_t *len = kind == 9 ? &hl : &zl;
        size_t cap = kind == 9 ? sizeof hosts : sizeof zone;
        int na = kind == 8 ? 0 : (int)rnd(4), n6 = kind == 7 ? 0 : (int)rnd(3);
        if (na + n6 == 0)
            na = 1;
        for (int k = 0; k < na; k++) {
            char a[64];
            addr4(a, sizeof a);
            *len += (size_t)snprintf(buf + *len, cap - *len, "%s n%d.test\n", a, i);
        }
        for (int k = 0; k < n6; k++) {
            char a[64];
            addr6(a, sizeof a);
            *len += (size_t)snprintf(buf + *len, cap - *len, "%s n%d.test\n", a, i);
        }
        if (rnd(6) == 0) { /* also in hosts, with other addresses: hosts wins */
            char a[64];
            addr4(a, sizeof a);
            hl += (size_t)snprintf(hosts + hl, sizeof hosts - hl, "%s n%d.test\n", a, i);
        }
    }
    /* CNAME chains to names of the zone (dnsmasq wants targets it knows). */
    for (int i = 0; i < 6; i++) {
        int t = (int)rnd(NNAMES);
        cl += (size_t)snprintf(cn + cl, sizeof cn - cl, "c%d.test,n%d.test\n", i, t);
        snprintf(names[nnames++], sizeof names[0], "c%d.test", i);
    }
    cl += (size_t)snprintf(cn + cl, sizeof cn - cl, "cc.test,c0.test\n");
    snprintf(names[nnames++], sizeof names[0], "cc.test");
    snprintf(names[nnames++], sizeof names[0], "nothere.test");
    snprintf(names[nnames++], sizeof names[0], "n1");           /* the search list */
    snprintf(names[nnames++], sizeof names[0], "n2.test.");     /* a trailing dot */
    snprintf(names[nnames++], sizeof names[0], "localhost");
    if (cl)
        cn[cl - 1] = '\0';
    dnsenv_dnsmasq_start(zone, cn);

    dnsenv_write("resolv.conf", "nameserver 127.0.0.1\nsearch test\noptions timeout:2 attempts:1\n");
    dnsenv_write("nsswitch.conf", "hosts: files dns\n");
    dnsenv_write("hosts", hosts);
    dnsenv_write("gai.conf", "");
    dnsenv_bind_etc("resolv.conf", "/etc/resolv.conf");
    dnsenv_bind_etc("nsswitch.conf", "/etc/nsswitch.conf");
    dnsenv_bind_etc("hosts", "/etc/hosts");
    if (access("/etc/gai.conf", F_OK) == 0)
        dnsenv_bind_etc("gai.conf", "/etc/gai.conf");

    vigil_loop *loop = dnsenv_loop();
    struct vigil_resolver_options opt;
    vigil_resolver_options_init(&opt);
    opt.flags = VIGIL_RESOLVER_NO_CACHE; /* every answer from the server, as glibc's */
    vigil_resolver *r;
    CHECK_EQ(vigil_resolver_new(loop, &r, &opt), 0);

    int bad = 0, compared_addrs = 0, errors = 0;
    static const int fams[3] = {AF_UNSPEC, AF_INET, AF_INET6};
    for (int i = 0; i < NASK; i++) {
        const char *name = names[rnd((unsigned)nnames)];
        int fam = fams[rnd(3)];
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = fam;
        hints.ai_socktype = SOCK_STREAM;
        int ge = getaddrinfo(name, NULL, &hints, &res);
        struct dnsenv_res o = dnsenv_resolve(loop, r, name, fam, 0);
        int ve = eai_of(o.status);
        char gs[2048] = "", vs[2048] = "";
        union vigil_dns_addr ga[64];
        int gn = 0;
        for (struct addrinfo *a = ge ? NULL : res; a && gn < 64; a = a->ai_next) {
            memset(&ga[gn], 0, sizeof ga[gn]);
            memcpy(&ga[gn++], a->ai_addr, a->ai_addrlen);
        }
        canon_list(ga, gn, gs, sizeof gs);
        canon_list(o.addr, o.status ? 0 : o.naddr, vs, sizeof vs);
        if (res)
            freeaddrinfo(res);
        if (ge != ve || strcmp(gs, vs) != 0) {
            printf("DIFF %s family %d: glibc %d (%s)%s | vigil %d (%s)%s\n", name, fam, ge,
                   ge ? gai_strerror(ge) : "ok", gs, o.status, vigil_dns_strerror(o.status), vs);
            bad++;
        } else if (ge) {
            errors++;
        } else {
            compared_addrs++;
        }
    }
    printf("%d lookups: %d with the same addresses in the same order, %d with the same error, %d differ (seed %u)\n",
           NASK, compared_addrs, errors, bad, seed0);
    CHECK_EQ(vigil_resolver_free(r), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    if (bad)
        FAIL("%d answers differ from glibc's (replay: VIGIL_DNS_SEED=%u)", bad, seed0);
    printf("ok\n");
    return 0;
}
