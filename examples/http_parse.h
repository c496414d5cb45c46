/* The request parser of http_hello.c (RFC 9112), apart from the server so it can be
 * read alone. It frames requests -- where each one ends, whether the connection stays
 * open, what is wrong with a bad one -- and skips their bodies. It keeps no pointer into
 * the bytes it is given, so a request may arrive in any number of pieces; only a head
 * (request line and headers) must be handed over whole, which the caller does by keeping
 * an incomplete head and calling again with more bytes after it.
 *
 * Rejected with 400 (and the connection closed by the caller), as RFC 9112 says: a bad
 * request line, a field name followed by white space or without a colon, obs-fold, a
 * bare CR or another control byte in a field, Content-Length values that are not digits
 * or that disagree (section 6.3), Content-Length together with Transfer-Encoding, a
 * Transfer-Encoding whose last coding is not chunked or that comes with HTTP/1.0, more
 * than one Host, bad chunked syntax. 431 for a head over HTTP_HEAD_MAX bytes (or
 * trailers over it), 501 for a transfer coding other than chunked. Chunked bodies are
 * decoded (section 7.1: sizes, extensions, trailers) and their data skipped. */
#ifndef HTTP_PARSE_H
#define HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_HEAD_MAX 8192 /* the longest head (and trailer section) taken */

struct http_parser {
    uint8_t state;    /* where in a request (0: its head, or between requests) */
    bool keep_alive;  /* the request just read leaves the connection open */
    uint16_t line;    /* bytes of the current chunk-size line */
    uint32_t scanned; /* bytes of an incomplete head already searched for its end */
    uint32_t trailer; /* bytes of the trailer section so far */
    uint64_t left;    /* body bytes still to skip: Content-Length's, or the chunk's */
};

enum { HTTP_MORE = 0, HTTP_DONE = 1 };

/* Reads [p, p + len). HTTP_DONE: a request ended; *used is where (the bytes after it
 * belong to the next request) and hp->keep_alive whether the connection stays open.
 * HTTP_MORE: no request ended; *used bytes were taken (a head is taken only whole: call
 * again with the untaken bytes and more after them). Otherwise an HTTP status (400,
 * 431, 501): answer it and close the connection. */
int http_parse(struct http_parser *hp, const char *p, size_t len, size_t *used);

/* True when nothing of a request is pending (a head may still be partly received). */
static inline bool http_between(const struct http_parser *hp)
{
    return hp->state == 0;
}

#endif
