/* http_hello's request parser (examples/http_parse.c) against a model, under the
 * sanitizers of the test build. Streams of pipelined requests are generated with what
 * the parser must end (plain, Content-Length bodies, chunked bodies with random chunk
 * sizes, extensions and trailers, HTTP/1.0, Connection: close) or reject (conflicting
 * Content-Length, Content-Length with Transfer-Encoding, bad chunk syntax, oversized
 * heads), and the parser's verdicts, fed the stream whole and in pieces of random
 * sizes the way http_hello feeds it (an incomplete head kept and handed over again),
 * must equal the model's. Then the same streams with random bytes changed: there is no
 * model for those, but whole and in pieces must agree, and nothing may crash.
 *
 * Built with -DLIBFUZZER and -fsanitize=fuzzer it is a libFuzzer harness instead
 * (LLVMFuzzerTestOneInput: the first byte picks the piece size, whole and in pieces
 * must agree). */
#include "http_parse.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IN_SIZE (HTTP_HEAD_MAX + 4096)
#define VERDICTS 256

/* Verdicts: 1 a request ended, keep-alive; 2 ended, close; a status (400...): rejected. */
static int parse(const char *d, size_t n, size_t piece, uint64_t *seed, int *out)
{
    static char in[IN_SIZE];
    struct http_parser hp = {0};
    size_t inlen = 0, fed = 0;
    int k = 0;
    for (;;) {
        size_t take = piece ? piece : n;
        if (seed) { /* random pieces */
            *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
            take = 1 + (*seed >> 33) % (piece ? piece : 1);
        }
        if (take > n - fed)
            take = n - fed;
        if (take > IN_SIZE - inlen)
            take = IN_SIZE - inlen;
        memcpy(in + inlen, d + fed, take);
        inlen += take, fed += take;
        size_t pos = 0;
        for (;;) {
            size_t used = 0;
            int r = http_parse(&hp, in + pos, inlen - pos, &used);
            if (r >= 400) {
                out[k++] = r;
                return k;
            }
            if (used > inlen - pos)
                abort();
            pos += used;
            if (r == HTTP_MORE)
                break;
            out[k++] = hp.keep_alive ? 1 : 2;
            if (k == VERDICTS || out[k - 1] == 2)
                return k; /* http_hello reads nothing after a last request */
        }
        memmove(in, in + pos, inlen - pos);
        inlen -= pos;
        if (fed == n || !take)
            return k;
    }
}

static int compare(const char *d, size_t n, size_t piece, uint64_t seed)
{
    int whole[VERDICTS], parts[VERDICTS];
    int kw = parse(d, n, 0, NULL, whole), kp = parse(d, n, piece, &seed, parts);
    if (kw != kp || memcmp(whole, parts, (size_t)kw * sizeof *whole)) {
        fprintf(stderr, "whole: %d verdicts, in pieces of up to %zu: %d\n", kw, piece, kp);
        abort();
    }
    return kw;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size)
        compare((const char *)data + 1, size - 1, data[0] % 64 + 1, data[0]);
    return 0;
}

#ifndef LIBFUZZER
static uint64_t rng = 26;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static char buf[1 << 20];
static size_t len;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    len += (size_t)vsnprintf(buf + len, sizeof buf - len, fmt, ap);
    va_end(ap);
}

static void data(size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[len++] = "GET /\r\n0;:aZ"[rnd(13)]; /* bytes that look like syntax */
}

/* One request; returns the model's verdict. */
static int request(void)
{
    static const char *const bad[] = {
        "Content-Length: 5\r\nContent-Length: 0\r\n", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: gzip\r\n", "Content-Length: 1x\r\n", "X : y\r\n", "X: a\rb\r\n", " folded\r\n",
    };
    unsigned kind = rnd(20);
    bool http10 = rnd(8) == 0, close = rnd(16) == 0;
    put("%s /%u HTTP/1.%d\r\nHost: h\r\n", rnd(2) ? "GET" : "POST", rnd(1000), http10 ? 0 : 1);
    for (unsigned i = rnd(4); i; i--)
        put("X-%u: %.*s\r\n", rnd(100), (int)rnd(200), "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
                                                          "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
                                                          "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv");
    if (close)
        put("Connection: close\r\n");
    else if (http10)
        put("Connection: keep-alive\r\n");
    if (kind == 0) { /* rejected in its head */
        put("%s\r\n", bad[rnd(7)]);
        return 400;
    }
    if (kind == 1) {
        put("X: %09000d\r\n\r\n", 0);
        return 431;
    }
    if (kind <= 5) { /* Content-Length */
        size_t n = rnd(3000);
        put("Content-Length: %zu\r\n\r\n", n);
        data(n);
    } else if (kind <= 10 && !http10) { /* chunked */
        put("Transfer-Encoding: chunked\r\n\r\n");
        for (unsigned i = rnd(5); i; i--) {
            size_t n = 1 + rnd(2000);
            put(rnd(2) ? "%zx" : "%zX", n);
            if (rnd(3) == 0)
                put("%s;e%u=%s", rnd(2) ? " " : "", rnd(10), rnd(2) ? "tok" : "\"q ;=\"");
            put("\r\n");
            data(n);
            put("\r\n");
        }
        put("0\r\n");
        for (unsigned i = rnd(3); i; i--)
            put("T-%u: t\r\n", rnd(10));
        if (rnd(12) == 0) { /* bad chunked syntax at the end */
            put("%s", rnd(2) ? "\r\r" : "X\r\n");
            return 400;
        }
        put("\r\n");
    } else {
        put("\r\n");
    }
    return close ? 2 : 1;
}

int main(void)
{
    int model[VERDICTS], got[VERDICTS];
    unsigned long streams = 0, verdicts = 0, mutated = 0;
    for (int round = 0; round < 3000; round++) {
        len = 0;
        int k = 0;
        while (k < 40 && len < sizeof buf / 2) {
            model[k] = request();
            if (model[k++] != 1)
                break;
        }
        uint64_t seed = rng;
        int n = parse(buf, len, 1 + rnd(3000), &seed, got);
        if (n != k || memcmp(model, got, (size_t)k * sizeof *got)) {
            fprintf(stderr, "round %d: model %d verdicts (last %d), parser %d (last %d)\n", round, k,
                    model[k - 1], n, n ? got[n - 1] : 0);
            return 1;
        }
        verdicts += (unsigned long)k;
        streams++;
        compare(buf, len, 1 + rnd(64), rng);
        for (unsigned i = 1 + rnd(4); i; i--) /* a few bytes changed: no model, whole == pieces */
            buf[rnd((unsigned)len)] = (char)rnd(256);
        compare(buf, len, 1 + rnd(64), rng);
        mutated++;
    }
    printf("http_parse: %lu streams, %lu verdicts as the model's, %lu mutated streams whole == pieces\n", streams,
           verdicts, mutated);
    return 0;
}
#endif
