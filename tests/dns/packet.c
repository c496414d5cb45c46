/* The answer parser (src/dns/packet.c) on messages built here byte by byte, for the
 * verdicts of its one name walker: a name equal whatever its case or compression; a name
 * of 253 characters (the most RFC 1035 allows: 255 octets on the wire) read wherever it
 * stands, one of 254 or 255 malformed wherever it stands (the question, an owner
 * compared, a CNAME's target), not merely another name; a pointer loop malformed; a
 * label holding a '.' another name (never a match, never followed). No loop and no
 * network: it runs once. */
#include "check.h"
#include "dns/dns_int.h"

#include <stdint.h>
#include <string.h>

struct msg {
    uint8_t b[4096];
    size_t n;
};

static void put8(struct msg *m, unsigned v)
{
    CHECK(m->n < sizeof m->b);
    m->b[m->n++] = (uint8_t)v;
}

static void put16(struct msg *m, unsigned v)
{
    put8(m, v >> 8);
    put8(m, v & 0xff);
}

static void put_label(struct msg *m, const char *s, size_t l)
{
    put8(m, (unsigned)l);
    for (size_t i = 0; i < l; i++)
        put8(m, (uint8_t)s[i]);
}

/* A dotted name as labels (any length: the parser must judge it, not this). */
static void put_name(struct msg *m, const char *name)
{
    while (*name) {
        const char *dot = strchr(name, '.');
        size_t l = dot ? (size_t)(dot - name) : strlen(name);
        put_label(m, name, l);
        name += l + (dot ? 1 : 0);
    }
    put8(m, 0);
}

/* A response header (QR, RD, RA; NOERROR) for one question and ancount answers. */
static void header(struct msg *m, unsigned ancount)
{
    m->n = 0;
    put16(m, 0x1234);
    put16(m, 0x8180);
    put16(m, 1);
    put16(m, ancount);
    put16(m, 0);
    put16(m, 0);
}

/* The header and the question (qname, A, IN). */
static void start(struct msg *m, const char *qname, unsigned ancount)
{
    header(m, ancount);
    put_name(m, qname);
    put16(m, DNS_T_A);
    put16(m, 1);
}

/* The part of a record after its owner: type, IN, TTL 60, the data's length. */
static void rr_head(struct msg *m, unsigned type, unsigned rdlen)
{
    put16(m, type);
    put16(m, 1);
    put16(m, 0);
    put16(m, 60);
    put16(m, rdlen);
}

static void rr_a(struct msg *m, uint8_t last)
{
    rr_head(m, DNS_T_A, 4);
    put8(m, 10);
    put8(m, 0);
    put8(m, 0);
    put8(m, last);
}

static void rr_cname(struct msg *m, const char *target)
{
    struct msg t = {.n = 0};
    put_name(&t, target);
    rr_head(m, DNS_T_CNAME, (unsigned)t.n);
    for (size_t i = 0; i < t.n; i++)
        put8(m, t.b[i]);
}

/* A dotted name of exactly len characters: labels of 63 'a'..'d', the last shorter. */
static const char *long_name(size_t len)
{
    static char buf[4][512];
    static int k;
    char *s = buf[k++ % 4];
    size_t n = 0;
    for (int label = 0; n < len; label++) {
        if (n)
            s[n++] = '.';
        for (int i = 0; i < 63 && n < len; i++)
            s[n++] = (char)('a' + label);
    }
    s[n] = '\0';
    CHECK_EQ(strlen(s), len);
    return s;
}

static int parse(const struct msg *m, const char *name, struct dns_answer *a)
{
    return vigil__dns_parse(m->b, m->n, name, DNS_T_A, a);
}

int main(void)
{
    struct msg m;
    struct dns_answer a;

    /* The plain case: the owner a pointer to the question's name. */
    start(&m, "a.test", 1);
    put16(&m, 0xc00c);
    rr_a(&m, 1);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_OK);
    CHECK_EQ(a.naddr, 1);
    CHECK_EQ(a.addr[0][3], 1);
    CHECK_EQ(a.ttl, 60);
    CHECK(strcmp(a.canon, "a.test") == 0);
    /* Another name asked: the question does not match. */
    CHECK_EQ(parse(&m, "b.test", &a), DNS_PARSE_QUESTION);
    CHECK_EQ(parse(&m, "a.tes", &a), DNS_PARSE_QUESTION);
    CHECK_EQ(parse(&m, "a.test.x", &a), DNS_PARSE_QUESTION);

    /* Case does not matter, in the question or an owner written out. */
    start(&m, "A.TeSt", 1);
    put_name(&m, "a.TEST");
    rr_a(&m, 2);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_OK);
    CHECK_EQ(a.naddr, 1);

    /* 253 characters: read in the question, an owner and a CNAME's target. */
    const char *n253 = long_name(253), *m253 = long_name(253);
    start(&m, n253, 1);
    put16(&m, 0xc00c);
    rr_a(&m, 3);
    CHECK_EQ(parse(&m, n253, &a), DNS_PARSE_OK);
    CHECK_EQ(a.naddr, 1);
    start(&m, "a.test", 2);
    put16(&m, 0xc00c);
    rr_cname(&m, m253);
    put_name(&m, m253);
    rr_a(&m, 4);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_OK);
    CHECK(strcmp(a.canon, m253) == 0);
    CHECK_EQ(a.naddr, 1);
    CHECK_EQ(a.addr[0][3], 4);

    for (size_t len = 254; len <= 255; len++) {
        const char *over = long_name(len);
        /* Over-long in the question: malformed, not another question. */
        start(&m, over, 0);
        CHECK_EQ(parse(&m, n253, &a), DNS_PARSE_MALFORMED);
        /* Over-long as an owner compared: malformed, not a record to skip. */
        start(&m, "a.test", 2);
        put16(&m, 0xc00c);
        rr_a(&m, 5);
        put_name(&m, over);
        rr_a(&m, 6);
        CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_MALFORMED);
        /* Over-long as a CNAME's target: malformed, not followed. */
        start(&m, "a.test", 1);
        put16(&m, 0xc00c);
        rr_cname(&m, over);
        CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_MALFORMED);
    }

    /* A compression pointer to itself, in the question and in an owner. */
    header(&m, 0);
    put16(&m, 0xc00c);
    put16(&m, DNS_T_A);
    put16(&m, 1);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_MALFORMED);
    start(&m, "a.test", 1);
    size_t self = m.n;
    put16(&m, 0xc000 | (unsigned)self);
    rr_a(&m, 7);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_MALFORMED);

    /* A label holding a '.': another name than the two labels it reads like. As an
     * owner it matches nothing (the record is passed over); as a CNAME's target it
     * names nothing one could ask, and the answer is refused. */
    start(&m, "a.test", 1);
    put_label(&m, "a.test", 6);
    put8(&m, 0);
    rr_a(&m, 8);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_OK);
    CHECK_EQ(a.naddr, 0);
    start(&m, "a.test", 1);
    put16(&m, 0xc00c);
    rr_head(&m, DNS_T_CNAME, 5);
    put_label(&m, "b.c", 3);
    put8(&m, 0);
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_MALFORMED);

    /* A record cut short. */
    start(&m, "a.test", 1);
    put16(&m, 0xc00c);
    rr_a(&m, 9);
    m.n -= 2;
    CHECK_EQ(parse(&m, "a.test", &a), DNS_PARSE_MALFORMED);
    return 0;
}
