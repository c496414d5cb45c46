/* src/dns/conf.c: the resolver's configuration: /etc/resolv.conf (nameserver, search,
 * domain, options ndots/timeout/attempts/rotate), /etc/hosts and the hosts: line of
 * /etc/nsswitch.conf, read as glibc reads them; and the change check (stat of each file,
 * at most once a second, at a lookup). Owns struct dns_conf. Calls libc only.
 */
#include "dns/dns_int.h"
#include "sys/clock.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_EVERY_NS 1000000000LL

uint32_t vigil__dns_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) {
        h ^= (uint8_t)*s;
        h *= 16777619u;
    }
    return h;
}

static void stamp_of(const char *path, struct dns_stamp *st)
{
    struct stat sb;
    memset(st, 0, sizeof *st);
    if (stat(path, &sb) != 0)
        return;
    st->exists = true;
    st->dev = sb.st_dev;
    st->ino = sb.st_ino;
    st->size = sb.st_size;
    st->mtime_ns = vigil__ts_to_ns(&sb.st_mtim);
}

static bool stamp_same(const struct dns_stamp *a, const struct dns_stamp *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns;
}

static char *skip_ws(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static char *word(char **pp)
{
    char *p = skip_ws(*pp);
    if (!*p || *p == '\n')
        return NULL;
    char *w = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;
    if (*p)
        *p++ = '\0';
    *pp = p;
    return w;
}

static void lower_copy(char *dst, const char *src, size_t cap)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
    if (i > 0 && dst[i - 1] == '.')
        dst[i - 1] = '\0';
}

/* ------------------------------------------------------------ resolv.conf */

static void add_ns(struct dns_conf *c, const char *a, uint16_t port)
{
    if (c->nns >= DNS_MAX_NS)
        return;
    union vigil_dns_addr *ns = &c->ns[c->nns];
    memset(ns, 0, sizeof *ns);
    char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
    snprintf(buf, sizeof buf, "%s", a);
    char *pct = strchr(buf, '%');
    if (pct)
        *pct++ = '\0';
    if (inet_pton(AF_INET, buf, &ns->in.sin_addr) == 1) {
        ns->in.sin_family = AF_INET;
        ns->in.sin_port = htons(port);
    } else if (inet_pton(AF_INET6, buf, &ns->in6.sin6_addr) == 1) {
        ns->in6.sin6_family = AF_INET6;
        ns->in6.sin6_port = htons(port);
        if (pct)
            ns->in6.sin6_scope_id = if_nametoindex(pct);
    } else {
        return;
    }
    c->nns++;
}

static void set_search(struct dns_conf *c, char *rest)
{
    c->nsearch = 0;
    char *w;
    while ((w = word(&rest)) && c->nsearch < DNS_MAX_SEARCH) {
        if (strlen(w) >= DNS_NAME_MAX - 1 || strcmp(w, ".") == 0)
            continue;
        lower_copy(c->search[c->nsearch++], w, DNS_NAME_MAX);
    }
}

static void read_resolv(struct dns_conf *c, const char *path, uint16_t port)
{
    c->nns = 0;
    c->nsearch = 0;
    c->ndots = 1;
    c->timeout_s = 5;
    c->attempts = 2;
    c->rotate = false;
    FILE *f = fopen(path, "re");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '#' || line[0] == ';')
                continue;
            char *p = line;
            char *key = word(&p);
            if (!key)
                continue;
            if (strcmp(key, "nameserver") == 0) {
                char *a = word(&p);
                if (a)
                    add_ns(c, a, port);
            } else if (strcmp(key, "domain") == 0 || strcmp(key, "search") == 0) {
                set_search(c, p);
            } else if (strcmp(key, "options") == 0) {
                char *o;
                while ((o = word(&p))) {
                    if (strncmp(o, "ndots:", 6) == 0) {
                        int v = atoi(o + 6);
                        c->ndots = v < 0 ? 0 : v > 15 ? 15 : v;
                    } else if (strncmp(o, "timeout:", 8) == 0) {
                        int v = atoi(o + 8);
                        c->timeout_s = v < 1 ? 1 : v > 30 ? 30 : v;
                    } else if (strncmp(o, "attempts:", 9) == 0) {
                        int v = atoi(o + 9);
                        c->attempts = v < 1 ? 1 : v > 5 ? 5 : v;
                    } else if (strcmp(o, "rotate") == 0) {
                        c->rotate = true;
                    }
                }
            }
        }
        fclose(f);
    }
    if (c->nns == 0)
        add_ns(c, "127.0.0.1", port); /* glibc's default: a server on this host */
    if (c->nsearch == 0) {
        /* glibc's default search list: the domain of the host's own name */
        const char *dot = strchr(c->hostname, '.');
        if (dot && dot[1]) {
            lower_copy(c->search[0], dot + 1, DNS_NAME_MAX);
            c->nsearch = 1;
        }
    }
}

/* ------------------------------------------------------------------ hosts */

static int names_add(struct dns_conf *c, const char *s, uint32_t *off)
{
    size_t n = strlen(s) + 1;
    if (c->hosts_names_len + n > c->hosts_names_cap) {
        size_t cap = c->hosts_names_cap ? c->hosts_names_cap * 2 : 4096;
        while (cap < c->hosts_names_len + n)
            cap *= 2;
        char *p = realloc(c->hosts_names, cap);
        if (!p)
            return -ENOMEM;
        c->hosts_names = p;
        c->hosts_names_cap = cap;
    }
    memcpy(c->hosts_names + c->hosts_names_len, s, n);
    *off = (uint32_t)c->hosts_names_len;
    c->hosts_names_len += n;
    return 0;
}

static int host_add(struct dns_conf *c, const char *name, uint32_t canon_off, int family, const uint8_t *addr)
{
    if (c->nhosts == c->hosts_cap) {
        uint32_t cap = c->hosts_cap ? c->hosts_cap * 2 : 64;
        struct dns_host *h = realloc(c->hosts, cap * sizeof *h);
        if (!h)
            return -ENOMEM;
        c->hosts = h;
        c->hosts_cap = cap;
    }
    char low[DNS_NAME_MAX];
    lower_copy(low, name, sizeof low);
    struct dns_host *h = &c->hosts[c->nhosts];
    memset(h, 0, sizeof *h);
    if (names_add(c, low, &h->name_off) < 0)
        return -ENOMEM;
    h->canon_off = canon_off;
    h->hash = vigil__dns_hash(low);
    h->family = family;
    memcpy(h->addr, addr, family == AF_INET ? 4 : 16);
    c->nhosts++;
    return 0;
}

static int read_hosts(struct dns_conf *c, const char *path)
{
    c->nhosts = 0;
    c->hosts_names_len = 0;
    FILE *f = fopen(path, "re");
    int r = 0;
    if (f) {
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            char *hash = strchr(line, '#');
            if (hash)
                *hash = '\0';
            char *p = line;
            char *a = word(&p);
            if (!a)
                continue;
            uint8_t addr[16];
            int family;
            if (inet_pton(AF_INET, a, addr) == 1)
                family = AF_INET;
            else if (inet_pton(AF_INET6, a, addr) == 1)
                family = AF_INET6;
            else
                continue;
            char *n = word(&p);
            if (!n || strlen(n) >= DNS_NAME_MAX - 1)
                continue;
            uint32_t canon_off;
            if ((r = names_add(c, n, &canon_off)) < 0)
                break;
            do {
                if (strlen(n) < DNS_NAME_MAX - 1 && (r = host_add(c, n, canon_off, family, addr)) < 0)
                    break;
            } while ((n = word(&p)));
            if (r < 0)
                break;
        }
        fclose(f);
    }
    if (r < 0)
        return r;
    /* The index: a power of two at least twice the entries. */
    uint32_t nb = 16;
    while (nb < 2 * c->nhosts)
        nb *= 2;
    if (nb != c->hosts_nbucket) {
        uint32_t *b = realloc(c->hosts_bucket, nb * sizeof *b);
        if (!b)
            return -ENOMEM;
        c->hosts_bucket = b;
        c->hosts_nbucket = nb;
    }
    memset(c->hosts_bucket, 0, nb * sizeof *c->hosts_bucket);
    /* Chains keep file order: insert backwards, each at the head. */
    for (uint32_t i = c->nhosts; i-- > 0;) {
        struct dns_host *h = &c->hosts[i];
        uint32_t b = h->hash & (nb - 1);
        h->next = c->hosts_bucket[b];
        c->hosts_bucket[b] = i + 1;
    }
    return 0;
}

int vigil__dns_hosts_find(const struct dns_conf *c, const char *name, int family, union vigil_dns_addr *out,
                          int max, const char **canon)
{
    if (!c->hosts_nbucket)
        return 0;
    uint32_t h = vigil__dns_hash(name);
    int n = 0;
    *canon = NULL;
    for (uint32_t i = c->hosts_bucket[h & (c->hosts_nbucket - 1)]; i; i = c->hosts[i - 1].next) {
        const struct dns_host *e = &c->hosts[i - 1];
        if (e->hash != h || strcmp(c->hosts_names + e->name_off, name) != 0)
            continue;
        int fam = e->family;
        uint8_t v4[4];
        if (family == AF_INET && fam == AF_INET6) {
            /* glibc's files source, asked for IPv4, takes ::1 as 127.0.0.1 and a
             * v4-mapped address as its IPv4 address (nss_files' line parser). */
            static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
            static const uint8_t loop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
            if (memcmp(e->addr, loop6, 16) == 0)
                memcpy(v4, (const uint8_t[4]){127, 0, 0, 1}, 4);
            else if (memcmp(e->addr, mapped, 12) == 0)
                memcpy(v4, e->addr + 12, 4);
            else
                continue;
            fam = AF_INET;
        } else if (family != AF_UNSPEC && family != fam) {
            continue;
        } else if (fam == AF_INET) {
            memcpy(v4, e->addr, 4);
        }
        if (n == max)
            break;
        union vigil_dns_addr *a = &out[n++];
        memset(a, 0, sizeof *a);
        if (fam == AF_INET) {
            a->in.sin_family = AF_INET;
            memcpy(&a->in.sin_addr, v4, 4);
        } else {
            a->in6.sin6_family = AF_INET6;
            memcpy(&a->in6.sin6_addr, e->addr, 16);
        }
        if (!*canon)
            *canon = c->hosts_names + e->canon_off;
    }
    return n;
}

/* --------------------------------------------------------------- nsswitch */

static int nss_kind(const char *s)
{
    if (strcmp(s, "files") == 0)
        return NSS_FILES;
    if (strcmp(s, "dns") == 0)
        return NSS_DNS;
    if (strncmp(s, "mdns", 4) == 0)
        return NSS_MDNS; /* mdns, mdns4, mdns6, and their _minimal forms */
    if (strcmp(s, "myhostname") == 0)
        return NSS_MYHOSTNAME;
    return NSS_OTHER;
}

static int nss_status(const char *s, size_t n)
{
    static const char *const names[NSS_NSTATUS] = {"success", "notfound", "unavail", "tryagain"};
    for (int i = 0; i < NSS_NSTATUS; i++)
        if (strlen(names[i]) == n && strncasecmp(s, names[i], n) == 0)
            return i;
    return -1;
}

static void nss_default(struct dns_conf *c)
{
    c->nnss = 2;
    memset(c->nss, 0, sizeof c->nss);
    c->nss[0].kind = NSS_FILES;
    c->nss[1].kind = NSS_DNS;
    c->nss[0].ret[NSS_SUCCESS] = c->nss[1].ret[NSS_SUCCESS] = 1;
    c->nss_foreign = false;
}

static void read_nsswitch(struct dns_conf *c, const char *path)
{
    nss_default(c);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = skip_ws(line);
        if (strncmp(p, "hosts:", 6) != 0)
            continue;
        p += 6;
        c->nnss = 0;
        c->nss_foreign = false;
        memset(c->nss, 0, sizeof c->nss);
        while (*(p = skip_ws(p)) && *p != '\n') {
            if (*p == '[') {
                /* [!]STATUS=ACTION ... ] for the source before it */
                char *end = strchr(p, ']');
                if (!end)
                    break;
                *end = '\0';
                char *q = p + 1;
                char *w;
                while ((w = word(&q))) {
                    bool neg = *w == '!';
                    if (neg)
                        w++;
                    char *eq = strchr(w, '=');
                    if (!eq || c->nnss == 0)
                        continue;
                    int st = nss_status(w, (size_t)(eq - w));
                    int ret = strcasecmp(eq + 1, "return") == 0 ? 1 : 0; /* continue, merge: go on */
                    if (st < 0)
                        continue;
                    for (int i = 0; i < NSS_NSTATUS; i++)
                        if (neg ? i != st : i == st)
                            c->nss[c->nnss - 1].ret[i] = (uint8_t)ret;
                }
                p = end + 1;
                continue;
            }
            char *w = word(&p);
            if (!w || c->nnss == DNS_MAX_NSS)
                break;
            struct dns_nss_src *s = &c->nss[c->nnss++];
            s->kind = (uint8_t)nss_kind(w);
            s->ret[NSS_SUCCESS] = 1;
            if (s->kind != NSS_FILES && s->kind != NSS_DNS)
                c->nss_foreign = true;
        }
        if (c->nnss == 0)
            nss_default(c);
    }
    fclose(f);
}

static bool ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && name[n - s - 1] == '.' && strcmp(name + n - s, suffix) == 0;
}

bool vigil__dns_nss_claims(const struct dns_conf *c, int kind, const char *name)
{
    switch (kind) {
    case NSS_MDNS:
        return strcmp(name, "local") == 0 || ends_with(name, "local");
    case NSS_MYHOSTNAME:
        return strcmp(name, "localhost") == 0 || strcmp(name, "localhost.localdomain") == 0 ||
               ends_with(name, "localhost") || ends_with(name, "localhost.localdomain") ||
               strcmp(name, c->hostname) == 0 || strcmp(name, "_gateway") == 0 ||
               strcmp(name, "_outbound") == 0 || strcmp(name, "_localdnsstub") == 0 ||
               strcmp(name, "_localdnsproxy") == 0;
    case NSS_OTHER:
        return true; /* "resolve" and sources vigil knows nothing of: every name */
    default:
        return false;
    }
}

/* ------------------------------------------------------------ the check */

int vigil__dns_conf_check(struct dns_conf *c, const struct dns_paths *p, int64_t now_ns)
{
    if (c->loaded && now_ns - c->checked_ns < CHECK_EVERY_NS)
        return 0;
    c->checked_ns = now_ns;
    struct dns_stamp st[3];
    bool changed = !c->loaded;
    for (int i = 0; i < 3; i++) {
        stamp_of(p->file[i], &st[i]);
        if (!stamp_same(&st[i], &c->st[i]))
            changed = true;
    }
    if (!changed)
        return 0;
    char hn[DNS_NAME_MAX];
    if (gethostname(hn, sizeof hn) != 0)
        hn[0] = '\0';
    hn[sizeof hn - 1] = '\0';
    lower_copy(c->hostname, hn, sizeof c->hostname);
    if (!c->loaded || !stamp_same(&st[0], &c->st[0]))
        read_resolv(c, p->file[0], p->port);
    if (!c->loaded || !stamp_same(&st[1], &c->st[1])) {
        int r = read_hosts(c, p->file[1]);
        if (r < 0)
            return r;
    }
    if (!c->loaded || !stamp_same(&st[2], &c->st[2]))
        read_nsswitch(c, p->file[2]);
    memcpy(c->st, st, sizeof st);
    c->loaded = true;
    return 1;
}

void vigil__dns_conf_free(struct dns_conf *c)
{
    free(c->hosts);
    free(c->hosts_bucket);
    free(c->hosts_names);
    memset(c, 0, sizeof *c);
}
