/* The request parser of http_hello.c: see http_parse.h. */
#include "http_parse.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

enum {
    S_HEAD,       /* a head, or blank lines before one */
    S_BODY,       /* Content-Length bytes to skip */
    S_SIZE,       /* chunk-size: 1*HEXDIG */
    S_EXT_BWS,    /* after the size: white space, then ";" or the line's end */
    S_EXT,        /* chunk-ext after its ";": checked for control bytes, not interpreted */
    S_SIZE_LF,    /* the LF of the size line's CRLF */
    S_DATA,       /* chunk-data */
    S_DATA_CR,    /* the CRLF after chunk-data */
    S_DATA_LF,
    S_TRAILER,    /* the start of a trailer line (an empty one ends the body) */
    S_T_NAME,     /* a trailer field's name */
    S_T_VALUE,    /* its value */
    S_T_VALUE_LF, /* the LF of its CRLF */
    S_END_LF,     /* the LF of the empty line that ends the body */
};

#define LENGTH_MAX ((uint64_t)1 << 62) /* larger Content-Length or chunk sizes: 400 */
#define CHUNK_LINE_MAX 4096            /* a chunk-size line with its extensions */

/* The class of each byte, one load a byte of a head (isalnum and strchr per byte were
 * a fifth of the parser's instructions under wrk, callgrind):
 *   C_TCHAR  tchar (RFC 9110 section 5.6.2): DIGIT, ALPHA and !#$%&'*+-.^_`|~
 *   C_VBYTE  a field value's byte: HTAB, SP, VCHAR, obs-text; never CR, LF, NUL or
 *            another CTL */
enum { C_TCHAR = 1, C_VBYTE = 2 };
static const uint8_t byte_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 3, 2, 3, 3, 3, 3, 3, 2, 2, 3, 3, 2, 3, 3, 2,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2,
    2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 3, 2, 3, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

static inline bool is_tchar(int ch)
{
    return byte_class[ch & 0xff] & C_TCHAR;
}

static inline bool is_vbyte(int ch)
{
    return byte_class[ch & 0xff] & C_VBYTE;
}

/* Whether the token [p, p + n) is lower, a lower-case name of n bytes, in any case:
 * (ch | 0x20) folds ASCII letters, and among tchars only a letter folds to one (the
 * one other byte that folds to '-' is CR, not a tchar). */
static inline bool name_is(const char *p, size_t n, const char *lower, size_t ln)
{
    if (n != ln)
        return false;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)p[i] | 0x20) != (unsigned char)lower[i])
            return false;
    return true;
}


/* The end of the head starting at h, searched from h + from: the byte after its empty
 * line, or NULL. A line ends with CRLF or a bare LF (RFC 9112 section 2.2). */
static const char *head_end(const char *h, const char *end, size_t from)
{
    const char *q = h + (from > 3 ? from - 3 : 0);
    while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL && ++q < end) {
        if (*q == '\n')
            return q + 1;
        if (*q == '\r' && q + 1 < end && q[1] == '\n')
            return q + 2;
    }
    return NULL;
}

/* Whether the comma-separated list [v, v + n) holds the token t (any case). */
static bool has_token(const char *v, size_t n, const char *t)
{
    size_t tl = strlen(t);
    for (size_t i = 0; i < n;) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',' && v[i] != ' ' && v[i] != '\t')
            i++;
        if (i - s == tl && strncasecmp(v + s, t, tl) == 0)
            return true;
    }
    return false;
}

/* Content-Length's value: one or more decimal numbers, comma-separated, all equal
 * (RFC 9110 section 8.6); each agrees with *cl if one was seen before. */
static bool content_length(const char *v, size_t n, uint64_t *cl, bool *seen)
{
    for (size_t i = 0;;) {
        uint64_t x = 0;
        size_t s = i;
        while (i < n && isdigit((unsigned char)v[i])) {
            x = x * 10 + (uint64_t)(v[i++] - '0');
            if (x > LENGTH_MAX)
                return false;
        }
        if (i == s || (*seen && x != *cl))
            return false;
        *cl = x, *seen = true;
        while (i < n && (v[i] == ' ' || v[i] == '\t'))
            i++;
        if (i == n)
            return true;
        if (v[i++] != ',')
            return false;
        while (i < n && (v[i] == ' ' || v[i] == '\t'))
            i++;
    }
}

/* Parses the head [h, end) (its empty line included) and sets up the body's states:
 * 0, or the status to answer. */
static int parse_head(struct http_parser *hp, const char *h, const char *end)
{
    const char *p = h;
    while (p < end && is_tchar((unsigned char)*p)) /* method SP */
        p++;
    if (p == h || *p++ != ' ')
        return 400;
    const char *target = p; /* request-target SP */
    while (p < end && (unsigned char)*p > 0x20 && *p != 0x7f)
        p++;
    if (p == target || *p++ != ' ')
        return 400;
    if (end - p < 9 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
        return 400;
    bool http11 = p[7] == '1';
    p += 8;
    if (*p == '\r')
        p++;
    if (*p++ != '\n')
        return 400;

    bool keep = http11, cl_seen = false, te_chunked_last = false;
    uint64_t cl = 0;
    unsigned hosts = 0, te_codings = 0, te_chunked = 0;
    while (*p != '\r' && *p != '\n') { /* field lines: name ":" OWS value OWS CRLF */
        const char *name = p;
        while (is_tchar((unsigned char)*p))
            p++;
        size_t nlen = (size_t)(p - name);
        if (!nlen || *p++ != ':') /* also obs-fold, and white space before the colon */
            return 400;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *val = p;
        while (is_vbyte((unsigned char)*p))
            p++;
        size_t vlen = (size_t)(p - val);
        while (vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\t'))
            vlen--;
        if (*p == '\r')
            p++;
        if (*p++ != '\n') /* a bare CR, NUL or another control byte */
            return 400;
        if (name_is(name, nlen, "connection", 10)) {
            if (has_token(val, vlen, "close"))
                keep = false;
            else if (has_token(val, vlen, "keep-alive"))
                keep = true;
        } else if (name_is(name, nlen, "content-length", 14)) {
            if (!content_length(val, vlen, &cl, &cl_seen))
                return 400;
        } else if (name_is(name, nlen, "transfer-encoding", 17)) {
            for (size_t i = 0; i < vlen;) { /* a list of codings; chunked must be last */
                while (i < vlen && (val[i] == ' ' || val[i] == '\t' || val[i] == ','))
                    i++;
                size_t s = i;
                while (i < vlen && val[i] != ',')
                    i++;
                size_t e = i;
                while (e > s && (val[e - 1] == ' ' || val[e - 1] == '\t'))
                    e--;
                if (e == s)
                    continue;
                te_codings++;
                te_chunked_last = e - s == 7 && strncasecmp(val + s, "chunked", 7) == 0;
                te_chunked += te_chunked_last;
            }
            if (!te_codings)
                return 400;
        } else if (name_is(name, nlen, "host", 4)) {
            hosts++;
        }
    }
    if (*p == '\r') /* the empty line ends the head: nothing may follow it */
        p++;
    if (*p != '\n' || p + 1 != end)
        return 400;
    if (hosts > 1)
        return 400;
    hp->keep_alive = keep;
    hp->left = cl;
    if (te_codings) {
        /* RFC 9112 section 6.3: with Content-Length it is an attempt to smuggle; without
         * chunked last the body's length cannot be known; HTTP/1.0 has no such framing. */
        if (cl_seen || !te_chunked_last || te_chunked > 1 || !http11)
            return 400;
        if (te_codings > 1) /* gzip, chunked: a coding this server does not decode */
            return 501;
        hp->state = S_SIZE;
        hp->left = 0;
        hp->line = 0;
    } else {
        hp->state = cl ? S_BODY : S_HEAD;
    }
    return 0;
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch |= 0x20;
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

int http_parse(struct http_parser *hp, const char *buf, size_t len, size_t *used)
{
    const char *p = buf, *end = buf + len;
    for (;;) {
        if (hp->state == S_HEAD) {
            /* blank lines before a request are ignored (section 2.2); a head never
             * starts with CR or LF, so this skips nothing of one partly received */
            const char *start = p;
            while (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')))
                p += *p == '\r' ? 2 : 1;
            if (p != start) /* a lone CR was kept last time: nothing scanned counts */
                hp->scanned = 0;
            const char *e = p < end ? head_end(p, end, hp->scanned) : NULL;
            if (!e) {
                hp->scanned = (uint32_t)(end - p < HTTP_HEAD_MAX ? end - p : HTTP_HEAD_MAX);
                *used = (size_t)(p - buf);
                return end - p >= HTTP_HEAD_MAX ? 431 : HTTP_MORE;
            }
            hp->scanned = 0;
            if (e - p > HTTP_HEAD_MAX)
                return 431;
            int st = parse_head(hp, p, e);
            if (st)
                return st;
            p = e;
            if (hp->state == S_HEAD) { /* no body */
                *used = (size_t)(p - buf);
                return HTTP_DONE;
            }
            continue;
        }
        if (p == end)
            break;
        int ch = (unsigned char)*p;
        switch (hp->state) {
        case S_BODY:
        case S_DATA: {
            size_t k = (size_t)(end - p) < hp->left ? (size_t)(end - p) : (size_t)hp->left;
            p += k;
            hp->left -= k;
            if (hp->left)
                continue;
            if (hp->state == S_DATA) {
                hp->state = S_DATA_CR;
                continue;
            }
            hp->state = S_HEAD;
            *used = (size_t)(p - buf);
            return HTTP_DONE;
        }
        case S_SIZE:
        case S_EXT_BWS:
        case S_EXT:
            if (++hp->line > CHUNK_LINE_MAX)
                return 400;
            p++;
            if (hp->state == S_SIZE && hexval(ch) >= 0) {
                if (hp->left >= LENGTH_MAX >> 4)
                    return 400;
                hp->left = hp->left * 16 + (uint64_t)hexval(ch);
            } else if (hp->state == S_SIZE && hp->line == 1) {
                return 400; /* no digit */
            } else if (ch == '\r' && hp->state != S_EXT_BWS) {
                hp->state = S_SIZE_LF;
            } else if (ch == '\n' && hp->state != S_EXT_BWS) {
                hp->state = hp->left ? S_DATA : S_TRAILER;
                hp->trailer = 0;
            } else if (ch == ';' && hp->state != S_EXT) {
                hp->state = S_EXT;
            } else if ((ch == ' ' || ch == '\t') && hp->state != S_EXT) {
                hp->state = S_EXT_BWS; /* BWS before ";" */
            } else if (hp->state != S_EXT || !is_vbyte(ch)) {
                return 400;
            }
            continue;
        case S_SIZE_LF:
            if (ch != '\n')
                return 400;
            p++;
            hp->state = hp->left ? S_DATA : S_TRAILER;
            hp->trailer = 0;
            continue;
        case S_DATA_CR:
        case S_DATA_LF:
            p++;
            if (ch == '\r' && hp->state == S_DATA_CR) {
                hp->state = S_DATA_LF;
            } else if (ch == '\n') {
                hp->state = S_SIZE;
                hp->line = 0;
            } else {
                return 400;
            }
            continue;
        default: /* the trailer section: field lines, then an empty line */
            if (++hp->trailer > HTTP_HEAD_MAX)
                return 431;
            p++;
            if (hp->state == S_TRAILER && ch == '\r') {
                hp->state = S_END_LF;
            } else if ((hp->state == S_TRAILER || hp->state == S_END_LF) && ch == '\n') {
                hp->state = S_HEAD; /* the request ends here */
                *used = (size_t)(p - buf);
                return HTTP_DONE;
            } else if ((hp->state == S_TRAILER || hp->state == S_T_NAME) && is_tchar(ch)) {
                hp->state = S_T_NAME;
            } else if (hp->state == S_T_NAME && ch == ':') {
                hp->state = S_T_VALUE;
            } else if (hp->state == S_T_VALUE && ch == '\r') {
                hp->state = S_T_VALUE_LF;
            } else if ((hp->state == S_T_VALUE || hp->state == S_T_VALUE_LF) && ch == '\n') {
                hp->state = S_TRAILER;
            } else if (hp->state != S_T_VALUE || !is_vbyte(ch)) {
                return 400;
            }
            continue;
        }
    }
    *used = (size_t)(p - buf);
    return HTTP_MORE;
}
