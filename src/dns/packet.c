/* src/dns/packet.c: DNS messages (RFC 1035): a question encoded; an answer checked
 * against its question and decoded (the CNAME chain from the name asked, the addresses
 * of its end, the TTLs, the SOA of a negative answer). Every byte read is bounds-checked:
 * the message comes from the network. Calls libc only.
 */
#include "dns/dns_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int vigil__dns_name_norm(const char *in, char out[DNS_NAME_MAX], bool *trailing_dot)
{
    size_t n = strlen(in);
    *trailing_dot = false;
    if (n > 0 && in[n - 1] == '.') {
        *trailing_dot = true;
        n--;
    }
    if (n == 0 || n > 253)
        return -EINVAL;
    size_t label = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)in[i];
        if (ch == '.') {
            if (label == 0)
                return -EINVAL;
            label = 0;
        } else if (isalnum(ch) || ch == '-' || ch == '_') {
            if (++label > 63)
                return -EINVAL;
        } else {
            return -EINVAL;
        }
        out[i] = (char)tolower(ch);
    }
    out[n] = '\0';
    return 0;
}

int vigil__dns_encode_query(uint8_t *buf, size_t cap, uint16_t id, const char *name, uint16_t qtype)
{
    size_t n = strlen(name);
    if (cap < 12 + n + 2 + 4 || n > 253)
        return -EINVAL;
    memset(buf, 0, 12);
    buf[0] = (uint8_t)(id >> 8);
    buf[1] = (uint8_t)id;
    buf[2] = 0x01; /* RD */
    buf[5] = 1;    /* QDCOUNT */
    size_t o = 12;
    const char *p = name;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t l = dot ? (size_t)(dot - p) : strlen(p);
        if (l == 0 || l > 63)
            return -EINVAL;
        buf[o++] = (uint8_t)l;
        memcpy(buf + o, p, l);
        o += l;
        p += l;
        if (*p == '.')
            p++;
    }
    buf[o++] = 0;
    buf[o++] = (uint8_t)(qtype >> 8);
    buf[o++] = (uint8_t)qtype;
    buf[o++] = 0;
    buf[o++] = 1; /* IN */
    return (int)o;
}

/* Skips the name at *off; -1 if it runs past the message. */
static int skip_name(const uint8_t *m, size_t len, size_t *off)
{
    size_t o = *off;
    for (;;) {
        if (o >= len)
            return -1;
        uint8_t l = m[o];
        if ((l & 0xc0) == 0xc0) {
            if (o + 2 > len)
                return -1;
            *off = o + 2;
            return 0;
        }
        if (l & 0xc0)
            return -1;
        o += 1u + l;
        if (l == 0) {
            *off = o;
            return 0;
        }
    }
}

/* The longest name RFC 1035 allows: 255 octets on the wire, 253 characters dotted. */
#define NAME_TEXT_MAX 253

enum { NAME_OK = 0, NAME_MALFORMED = -1, NAME_UNWRITABLE = -2 };

/* The one walker of (compressed) names: decodes the name at off into out (lower case,
 * dotted, no trailing dot). NAME_MALFORMED if it runs past the message, loops, or is
 * longer than NAME_TEXT_MAX (malformed, not merely another name); NAME_UNWRITABLE if a
 * label holds a '.' or a NUL, which the dotted form cannot say (a well-formed name, but
 * never one asked: vigil__dns_name_norm refuses both). */
static int read_name(const uint8_t *m, size_t len, size_t off, char out[DNS_NAME_MAX])
{
    size_t n = 0;
    int jumps = 0, rc = NAME_OK;
    for (;;) {
        if (off >= len)
            return NAME_MALFORMED;
        uint8_t l = m[off];
        if ((l & 0xc0) == 0xc0) {
            if (off + 2 > len || ++jumps > 64)
                return NAME_MALFORMED;
            off = (size_t)((l & 0x3f) << 8 | m[off + 1]);
            continue;
        }
        if (l & 0xc0)
            return NAME_MALFORMED;
        if (l == 0)
            break;
        if (off + 1 + l > len || n + (n ? 1 : 0) + l > NAME_TEXT_MAX)
            return NAME_MALFORMED;
        if (n)
            out[n++] = '.';
        for (size_t i = 0; i < l; i++) {
            uint8_t ch = m[off + 1 + i];
            if (ch == '.' || ch == '\0')
                rc = NAME_UNWRITABLE; /* walk on: a malformed rest still says malformed */
            out[n++] = (char)tolower(ch);
        }
        off += 1u + l;
    }
    out[n] = '\0';
    return rc;
}

/* 1 if the name at off equals s (lower case, dotted), 0 if not, -1 if malformed. */
static int name_eq(const uint8_t *m, size_t len, size_t off, const char *s)
{
    char name[DNS_NAME_MAX];
    int rc = read_name(m, len, off, name);
    if (rc == NAME_MALFORMED)
        return -1;
    return rc == NAME_OK && strcmp(name, s) == 0;
}

struct rr {
    uint32_t owner;
    uint16_t type, cls;
    uint32_t ttl;
    uint32_t rd;
    uint16_t rdlen;
};

#define MAX_RR 96

/* Reads count records from *off into rr (those past MAX_RR are skipped). */
static int read_rrs(const uint8_t *m, size_t len, size_t *off, unsigned count, struct rr *rr, int *nrr)
{
    for (unsigned i = 0; i < count; i++) {
        size_t owner = *off;
        if (skip_name(m, len, off) < 0 || *off + 10 > len)
            return -1;
        const uint8_t *p = m + *off;
        uint16_t rdlen = get16(p + 8);
        if (*off + 10 + rdlen > len)
            return -1;
        if (*nrr < MAX_RR) {
            struct rr *r = &rr[(*nrr)++];
            r->owner = (uint32_t)owner;
            r->type = get16(p);
            r->cls = get16(p + 2);
            r->ttl = get32(p + 4) & 0x7fffffffu;
            r->rd = (uint32_t)(*off + 10);
            r->rdlen = rdlen;
        }
        *off += 10u + rdlen;
    }
    return 0;
}

int vigil__dns_parse(const uint8_t *m, size_t len, const char *name, uint16_t qtype, struct dns_answer *out)
{
    out->naddr = 0;
    out->ancount = 0;
    out->has_neg_ttl = false;
    out->neg_ttl = 0;
    out->tc = false;
    if (len < 12)
        return DNS_PARSE_MALFORMED;
    uint16_t flags = get16(m + 2);
    if (!(flags & 0x8000) || ((flags >> 11) & 0xf) != 0)
        return DNS_PARSE_MALFORMED; /* not a response, or not to a standard query */
    if (get16(m + 4) != 1)
        return DNS_PARSE_QUESTION;
    size_t off = 12;
    int eq = name_eq(m, len, off, name);
    if (eq < 0)
        return DNS_PARSE_MALFORMED;
    if (skip_name(m, len, &off) < 0 || off + 4 > len)
        return DNS_PARSE_MALFORMED;
    if (!eq || get16(m + off) != qtype || get16(m + off + 2) != 1)
        return DNS_PARSE_QUESTION;
    off += 4;
    out->rcode = flags & 0xf;
    out->tc = (flags & 0x0200) != 0;
    out->ancount = get16(m + 6);
    if (out->tc)
        return DNS_PARSE_OK; /* asked again over TCP; the rest may be cut */
    struct rr rr[MAX_RR];
    int nans = 0, nall = 0;
    if (read_rrs(m, len, &off, get16(m + 6), rr, &nall) < 0)
        return DNS_PARSE_MALFORMED;
    nans = nall;
    if (read_rrs(m, len, &off, get16(m + 8), rr, &nall) < 0)
        return DNS_PARSE_MALFORMED;
    /* The CNAME chain from the name asked. */
    snprintf(out->canon, sizeof out->canon, "%s", name);
    uint32_t ttl = UINT32_MAX;
    for (int hop = 0; hop < DNS_CNAME_MAX; hop++) {
        int i;
        for (i = 0; i < nans; i++) {
            if (rr[i].type != DNS_T_CNAME || rr[i].cls != 1)
                continue;
            int e = name_eq(m, len, rr[i].owner, out->canon);
            if (e < 0)
                return DNS_PARSE_MALFORMED;
            if (e)
                break;
        }
        if (i == nans)
            break;
        char next[DNS_NAME_MAX];
        if (read_name(m, len, rr[i].rd, next) != NAME_OK)
            return DNS_PARSE_MALFORMED; /* a chain to a name no one could ask is not followed */
        if (rr[i].ttl < ttl)
            ttl = rr[i].ttl;
        memcpy(out->canon, next, sizeof next);
    }
    size_t alen = qtype == DNS_T_A ? 4 : 16;
    for (int i = 0; i < nans; i++) {
        if (rr[i].type != qtype || rr[i].cls != 1 || rr[i].rdlen != alen)
            continue;
        int e = name_eq(m, len, rr[i].owner, out->canon);
        if (e < 0)
            return DNS_PARSE_MALFORMED;
        if (!e || out->naddr == DNS_MAX_ADDR)
            continue;
        memcpy(out->addr[out->naddr++], m + rr[i].rd, alen);
        if (rr[i].ttl < ttl)
            ttl = rr[i].ttl;
    }
    out->ttl = ttl == UINT32_MAX ? 0 : ttl;
    if (out->naddr == 0) {
        for (int i = nans; i < nall; i++) {
            if (rr[i].type != DNS_T_SOA || rr[i].rdlen < 22)
                continue;
            uint32_t min = get32(m + rr[i].rd + rr[i].rdlen - 4);
            out->neg_ttl = min < rr[i].ttl ? min : rr[i].ttl;
            out->has_neg_ttl = true;
            break;
        }
    }
    return DNS_PARSE_OK;
}
