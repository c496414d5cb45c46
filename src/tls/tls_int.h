/* src/tls/: TLS on vigil's sockets (include/vigil/tls.h). One job per file:
 *   ctx.c   contexts: OpenSSL's SSL_CTX, its settings, ALPN, the client's session of
 *           each host;
 *   ossl.c  the record layer on OpenSSL through memory BIOs (struct vigil__tls_rec): the
 *           only file that moves bytes in and out of OpenSSL;
 *   tls.c   the front: the API, the socket's receive stream and send queue, the
 *           handshake's timeout, the requests' ends, close.
 * The front reaches the record layer only through struct vigil__tls_rec, so that a
 * kernel TLS layer (keys handed to the socket after OpenSSL's handshake) can be added
 * where it can be tested (these machines have no CONFIG_TLS). May call: the public API
 * of <vigil/net.h> and <vigil/loop.h> (timers), OpenSSL. Not installed.
 */
#ifndef VIGIL_TLS_INT_H
#define VIGIL_TLS_INT_H

#include "vigil/tls.h"

#include <openssl/ssl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define VIGIL__TLS_PLAIN_MAX 16384 /* a record's plaintext at most (SSL3_RT_MAX_PLAIN_LENGTH) */
#define VIGIL__TLS_SESS_MAX 64     /* client: hosts whose last session a context keeps */

struct vigil__tls_sess {
    char *host;
    SSL_SESSION *sess;
};

struct vigil_tls_ctx {
    SSL_CTX *ssl_ctx;
    uint32_t flags;
    int64_t hs_timeout_ns;
    unsigned char *alpn; /* wire format: length-prefixed names */
    unsigned alpn_len;
    pthread_mutex_t lock; /* refs and sessions: a context may serve loops in several threads */
    unsigned refs;        /* 1 for the program (until _free) + 1 per open connection */
    bool freed;
    unsigned nsess, sess_next;
    struct vigil__tls_sess sess[VIGIL__TLS_SESS_MAX];
};

struct vigil__tls;

/* The record layer: ciphertext in, plaintext out, plaintext in, ciphertext out. */
struct vigil__tls_rec {
    int (*feed)(struct vigil__tls *st, const char *p, size_t n); /* ciphertext received */
    void (*feed_eof)(struct vigil__tls *st);                     /* the peer's FIN */
    int (*handshake)(struct vigil__tls *st);          /* 1 done, 0 needs more, < 0 error */
    ssize_t (*read)(struct vigil__tls *st, char *p, size_t n); /* > 0, 0 close_notify, -EAGAIN, < 0 */
    int (*write)(struct vigil__tls *st, const void *p, size_t n); /* encrypts all of it: 0 or < 0 */
    int (*close_notify)(struct vigil__tls *st);
    int (*drain)(struct vigil__tls *st); /* ciphertext produced -> st's fill buffer: 0 or -ENOMEM */
};
extern const struct vigil__tls_rec vigil__tls_rec_ossl;

/* A request of vigil_tls_send as the library sees the caller's vigil_net_req (it never
 * reaches the socket layer: the socket's sends are the connection's own txreq). */
struct vigil__tls_req {
    void *data;
    vigil_sock *sock;
    ssize_t result;
    vigil_net_cb cb;
    struct vigil__tls_req *next;
    uint64_t end;     /* the connection's ciphertext count at which its records are sent */
    size_t len;
    uint32_t magic;   /* VIGIL__TLS_REQ_BUSY while queued */
};
#define VIGIL__TLS_REQ_BUSY 0x746c7372u
_Static_assert(sizeof(struct vigil__tls_req) <= sizeof(vigil_net_req), "vigil_net_req too small");

struct vigil__tls {
    vigil_tls *t;
    vigil_tls_ctx *ctx;
    const struct vigil__tls_rec *rec;
    SSL *ssl;
    BIO *rbio, *wbio;
    vigil_tls_cb hs_cb;
    vigil_tls_recv_cb recv_cb;
    vigil_tls_close_cb close_cb;
    int hs_state;      /* 0 not started, 1 running, 2 done, < 0 failed (the error) */
    int tx_err;        /* sends fail with this once set */
    int verify_err;    /* X509_V_ERR_* of a refused certificate, 0 */
    bool server, receiving, rx_on, eof, ended, closing, shut, shut_pending, tx_busy, first_byte_seen;
    /* ciphertext out: filled by the record layer, sent as one socket send at a time */
    char *fill, *sending;
    size_t fill_len, fill_cap, send_len, send_cap;
    uint64_t produced, sent;
    struct vigil__tls_req *q_head, *q_tail; /* sends whose records are not all sent */
    vigil_net_req txreq;
    vigil_timer hs_timer, kick;
    char *host;
    char alpn[256];    /* vigil_tls_alpn's answer */
    vigil_buf pbuf_desc;
    char pbuf[VIGIL__TLS_PLAIN_MAX];
};

/* ctx.c */
void vigil__tls_ctx_ref(vigil_tls_ctx *ctx);
void vigil__tls_ctx_unref(vigil_tls_ctx *ctx);
SSL_SESSION *vigil__tls_sess_get(vigil_tls_ctx *ctx, const char *host); /* a reference, or NULL */
int vigil__tls_map_verify(long x509_err);

#endif
