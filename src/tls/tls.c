/* src/tls/tls.c: the front of TLS connections (see tls_int.h for what src/tls/ owns and
 * may call): the API, the socket's receive stream (ciphertext into the record layer,
 * the pool buffer back at once), the send queue (records out as one socket send at a
 * time, the program's sends ended once their records' last byte went out), the
 * handshake and its timeout, close. */
#include "tls/tls_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline struct vigil__tls *st_of(const vigil_tls *t)
{
    return t ? (struct vigil__tls *)t->private_ : NULL;
}

static void on_rx(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf);
static void on_tx(vigil_loop *loop, vigil_net_req *req, ssize_t res);
static void on_sock_closed(vigil_loop *loop, vigil_sock *s);
static void on_kick(vigil_loop *loop, vigil_timer *tm);
static void on_hs_timeout(vigil_loop *loop, vigil_timer *tm);

static void kick(vigil_loop *loop, struct vigil__tls *st)
{
    if (!st->closing && !vigil_timer_active(&st->kick))
        vigil_timer_start(loop, &st->kick, CLOCK_MONOTONIC, 0, 0, 0, on_kick);
}

/* ------------------------------------------------------------------ sending */

/* Ends the program's sends whose records are all sent (every one with res < 0). */
static void end_sends(vigil_loop *loop, struct vigil__tls *st, int err)
{
    while (st->q_head && (err < 0 || st->q_head->end <= st->sent)) {
        struct vigil__tls_req *r = st->q_head;
        st->q_head = r->next;
        if (!st->q_head)
            st->q_tail = NULL;
        r->next = NULL;
        r->magic = 0;
        r->result = err < 0 ? err : (ssize_t)r->len;
        r->cb(loop, (vigil_net_req *)r, r->result);
    }
}

/* Sends what the record layer produced, if no socket send is in flight. */
static void tx_kick(vigil_loop *loop, struct vigil__tls *st)
{
    if (st->tx_busy || st->closing || st->tx_err)
        return;
    if (st->fill_len > 0) {
        char *p = st->sending;
        size_t cap = st->send_cap;
        st->sending = st->fill;
        st->send_cap = st->fill_cap;
        st->send_len = st->fill_len;
        st->fill = p;
        st->fill_cap = cap;
        st->fill_len = 0;
        st->tx_busy = true;
        int r = vigil_sock_send(loop, &st->t->sock, &st->txreq, st->sending, st->send_len, on_tx);
        if (r < 0) {
            st->tx_busy = false;
            st->tx_err = r;
            kick(loop, st); /* the sends waiting end from a callback, not inside this call */
            return;
        }
    }
    if (st->shut_pending && st->fill_len == 0) {
        st->shut_pending = false;
        vigil_sock_shutdown(loop, &st->t->sock, SHUT_WR); /* after the send just started */
    }
}

static void flush(vigil_loop *loop, struct vigil__tls *st)
{
    if (st->rec->drain(st) < 0 && !st->tx_err) {
        st->tx_err = -ENOMEM;
        kick(loop, st);
    }
    tx_kick(loop, st);
}

static void on_tx(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct vigil__tls *st = req->data;
    st->tx_busy = false;
    if (res < 0) {
        if (!st->tx_err)
            st->tx_err = (int)res;
        end_sends(loop, st, (int)res);
        return;
    }
    st->sent += (uint64_t)res;
    end_sends(loop, st, 0);
    tx_kick(loop, st);
}

/* ---------------------------------------------------------------- receiving */

static void hs_end(vigil_loop *loop, struct vigil__tls *st, int res)
{
    vigil_timer_stop(loop, &st->hs_timer);
    st->hs_state = res < 0 ? res : 2;
    if (res < 0 && st->rx_on) {
        vigil_sock_recv_stop(loop, &st->t->sock);
        st->rx_on = false;
    }
    vigil_tls_cb cb = st->hs_cb;
    st->hs_cb = NULL;
    if (cb)
        cb(loop, st->t, res);
}

static void recv_end(vigil_loop *loop, struct vigil__tls *st, ssize_t res)
{
    st->ended = true;
    st->receiving = false;
    if (st->rx_on) {
        vigil_sock_recv_stop(loop, &st->t->sock);
        st->rx_on = false;
    }
    st->recv_cb(loop, st->t, res, NULL);
}

/* Moves the connection on with what has arrived: the handshake, then plaintext to the
 * program while it receives. */
static void process(vigil_loop *loop, struct vigil__tls *st)
{
    if (st->closing)
        return;
    if (st->hs_state == 1) {
        int r = st->rec->handshake(st);
        flush(loop, st);
        if (r == 0 && st->eof)
            r = VIGIL_TLS_E_TRUNCATED;
        if (r == 0)
            return;
        hs_end(loop, st, r > 0 ? 0 : r);
        if (r < 0)
            return;
    }
    while (st->hs_state == 2 && st->receiving && !st->closing) {
        ssize_t r = st->rec->read(st, st->pbuf, sizeof st->pbuf);
        flush(loop, st); /* a read may answer (a key update) */
        if (r == -EAGAIN) {
            if (st->eof) /* cannot happen: the BIO reports the end */
                recv_end(loop, st, VIGIL_TLS_E_TRUNCATED);
            break;
        }
        if (r <= 0) {
            recv_end(loop, st, r);
            break;
        }
        st->pbuf_desc.data = st->pbuf;
        st->pbuf_desc.len = (uint32_t)r;
        st->pbuf_desc.private_id = UINT32_MAX; /* not the pool's: vigil_buf_put ignores it */
        st->recv_cb(loop, st->t, r, &st->pbuf_desc);
    }
    /* Handshake done and nobody receiving: leave the ciphertext in the kernel. */
    if (st->hs_state == 2 && !st->receiving && st->rx_on && !st->closing) {
        vigil_sock_recv_stop(loop, &st->t->sock);
        st->rx_on = false;
    }
}

static bool looks_like_http(unsigned char c)
{
    /* A TLS connection opens with a handshake record (22); HTTP with a method in
     * capitals (GET, POST, HEAD, PUT, DELETE, OPTIONS, CONNECT, PATCH, TRACE). */
    return c >= 'A' && c <= 'Z';
}

static void on_rx(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf)
{
    vigil_tls *t = (vigil_tls *)((char *)s - offsetof(vigil_tls, sock));
    struct vigil__tls *st = st_of(t);
    if (res > 0) {
        if (!st->first_byte_seen) {
            st->first_byte_seen = true;
            if (st->server && st->hs_state == 1 && looks_like_http((unsigned char)buf->data[0])) {
                vigil_buf_put(loop, buf);
                hs_end(loop, st, VIGIL_TLS_E_PLAIN_HTTP);
                return;
            }
        }
        int r = st->rec->feed(st, buf->data, (size_t)res);
        vigil_buf_put(loop, buf);
        if (r < 0) {
            if (st->hs_state == 1)
                hs_end(loop, st, r);
            else if (st->receiving)
                recv_end(loop, st, r);
            return;
        }
        process(loop, st);
        return;
    }
    st->rx_on = false; /* the stream stopped: its end or an error */
    if (res == 0) {
        st->eof = true;
        st->rec->feed_eof(st);
        process(loop, st);
        return;
    }
    if (st->hs_state == 1)
        hs_end(loop, st, (int)res);
    else if (st->receiving)
        recv_end(loop, st, res);
    else
        st->tx_err = st->tx_err ? st->tx_err : (int)res;
}

static void on_kick(vigil_loop *loop, vigil_timer *tm)
{
    struct vigil__tls *st = tm->data;
    if (st->closing)
        return;
    if (st->tx_err && !st->tx_busy)
        end_sends(loop, st, st->tx_err);
    process(loop, st);
}

static void on_hs_timeout(vigil_loop *loop, vigil_timer *tm)
{
    struct vigil__tls *st = tm->data;
    if (st->hs_state == 1 && !st->closing)
        hs_end(loop, st, -ETIMEDOUT);
}

/* ---------------------------------------------------------------------- API */

int vigil_tls_open(vigil_loop *loop, vigil_tls *t, vigil_tls_ctx *ctx, int fd, const char *host)
{
    if (!loop || !t || !ctx)
        return -EINVAL;
    if (t->private_)
        return -EBUSY;
    bool server = ctx->flags & VIGIL_TLS_SERVER;
    bool verify = !server && !(ctx->flags & VIGIL_TLS_NO_VERIFY);
    if (server ? host != NULL : (verify && (!host || !*host)))
        return -EINVAL;
    struct vigil__tls *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    st->t = t;
    st->ctx = ctx;
    st->rec = &vigil__tls_rec_ossl;
    st->server = server;
    st->txreq.data = st;
    st->kick.data = st;
    st->hs_timer.data = st;
    int r = -ENOMEM;
    if (host && !(st->host = strdup(host)))
        goto fail;
    ERR_clear_error();
    st->ssl = SSL_new(ctx->ssl_ctx);
    st->rbio = BIO_new(BIO_s_mem());
    st->wbio = BIO_new(BIO_s_mem());
    if (!st->ssl || !st->rbio || !st->wbio)
        goto fail;
    BIO_set_mem_eof_return(st->rbio, -1); /* empty: "retry", until the peer's FIN */
    SSL_set_bio(st->ssl, st->rbio, st->wbio); /* the SSL owns both from here */
    SSL_set_app_data(st->ssl, st);
    if (server) {
        SSL_set_accept_state(st->ssl);
    } else {
        SSL_set_connect_state(st->ssl);
        if (host) {
            unsigned char ip[16];
            bool is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
            r = -EINVAL;
            if (!is_ip && SSL_set_tlsext_host_name(st->ssl, host) != 1)
                goto fail; /* SNI carries names, never addresses (RFC 6066) */
            if (verify && (is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(st->ssl), host) != 1
                                 : SSL_set1_host(st->ssl, host) != 1))
                goto fail;
        }
        if (!(ctx->flags & VIGIL_TLS_NO_TICKETS)) {
            SSL_SESSION *sess = vigil__tls_sess_get(ctx, host);
            if (sess) {
                SSL_set_session(st->ssl, sess);
                SSL_SESSION_free(sess);
            }
        }
    }
    memset(&t->sock, 0, sizeof t->sock);
    if ((r = vigil_sock_open(loop, &t->sock, fd)) < 0)
        goto fail;
    vigil_sock_set_close_cb(&t->sock, on_sock_closed);
    vigil__tls_ctx_ref(ctx);
    t->private_ = st;
    return 0;
fail:
    ERR_clear_error();
    if (st->ssl)
        SSL_free(st->ssl); /* and the BIOs */
    else {
        BIO_free(st->rbio);
        BIO_free(st->wbio);
    }
    free(st->host);
    free(st);
    return r;
}

int vigil_tls_handshake(vigil_loop *loop, vigil_tls *t, vigil_tls_cb cb)
{
    struct vigil__tls *st = st_of(t);
    if (!st || st->closing)
        return -EBADF;
    if (!cb)
        return -EINVAL;
    if (st->hs_state != 0)
        return -EBUSY;
    int r = vigil_sock_recv_start(loop, &t->sock, on_rx);
    if (r < 0)
        return r;
    st->rx_on = true;
    if (st->ctx->hs_timeout_ns > 0 &&
        (r = vigil_timer_start(loop, &st->hs_timer, CLOCK_MONOTONIC, st->ctx->hs_timeout_ns, 0, 0,
                               on_hs_timeout)) < 0) {
        vigil_sock_recv_stop(loop, &t->sock);
        st->rx_on = false;
        return r;
    }
    st->hs_cb = cb;
    st->hs_state = 1;
    if (!st->server)
        kick(loop, st); /* the ClientHello goes out from the kick: no callback in this call */
    return 0;
}

int vigil_tls_recv_start(vigil_loop *loop, vigil_tls *t, vigil_tls_recv_cb cb)
{
    struct vigil__tls *st = st_of(t);
    if (!st || st->closing)
        return -EBADF;
    if (!cb)
        return -EINVAL;
    if (st->hs_state != 2)
        return -ENOTCONN;
    if (st->receiving)
        return -EBUSY;
    if (st->ended)
        return -EPIPE;
    if (!st->rx_on && !st->eof) {
        int r = vigil_sock_recv_start(loop, &t->sock, on_rx);
        if (r < 0)
            return r;
        st->rx_on = true;
    }
    st->recv_cb = cb;
    st->receiving = true;
    /* Plaintext or a close already inside OpenSSL comes out from the kick. */
    if (SSL_pending(st->ssl) > 0 || BIO_ctrl_pending(st->rbio) > 0 || st->eof)
        kick(loop, st);
    return 0;
}

int vigil_tls_recv_stop(vigil_loop *loop, vigil_tls *t)
{
    struct vigil__tls *st = st_of(t);
    if (!st)
        return -EBADF;
    st->receiving = false;
    if (st->rx_on && st->hs_state == 2) {
        vigil_sock_recv_stop(loop, &t->sock);
        st->rx_on = false;
    }
    return 0;
}

int vigil_tls_send(vigil_loop *loop, vigil_tls *t, vigil_net_req *req, const void *buf, size_t len,
                   vigil_net_cb cb)
{
    struct vigil__tls *st = st_of(t);
    struct vigil__tls_req *r = (struct vigil__tls_req *)req;
    if (!st || st->closing)
        return -EBADF;
    if (!req || !cb || !buf || len == 0)
        return -EINVAL;
    if (r->magic == VIGIL__TLS_REQ_BUSY)
        return -EBUSY;
    if (st->hs_state != 2)
        return -ENOTCONN;
    if (st->shut || st->tx_err)
        return -EPIPE;
    int e = st->rec->write(st, buf, len);
    if (e < 0)
        return e;
    if (st->rec->drain(st) < 0)
        return -ENOMEM; /* the records stay in the BIO; the next send takes them */
    r->sock = &t->sock;
    r->cb = cb;
    r->len = len;
    r->end = st->produced;
    r->next = NULL;
    r->result = 0;
    r->magic = VIGIL__TLS_REQ_BUSY;
    if (st->q_tail)
        st->q_tail->next = r;
    else
        st->q_head = r;
    st->q_tail = r;
    tx_kick(loop, st);
    return 0;
}

int vigil_tls_shutdown(vigil_loop *loop, vigil_tls *t)
{
    struct vigil__tls *st = st_of(t);
    if (!st || st->closing)
        return -EBADF;
    if (st->hs_state != 2)
        return -ENOTCONN;
    if (st->shut)
        return -EPIPE;
    st->shut = true;
    st->rec->close_notify(st);
    st->shut_pending = true;
    flush(loop, st);
    return 0;
}

int vigil_tls_close(vigil_loop *loop, vigil_tls *t, vigil_tls_close_cb cb)
{
    struct vigil__tls *st = st_of(t);
    if (!st || st->closing)
        return -EBADF;
    st->closing = true;
    st->close_cb = cb;
    st->receiving = false;
    vigil_timer_stop(loop, &st->kick);
    vigil_timer_stop(loop, &st->hs_timer);
    return vigil_sock_close(loop, &t->sock, NULL); /* on_sock_closed ends it */
}

/* The socket's close is over (vigil_tls_close's, or vigil_loop_free's): every socket
 * request has ended; what is left of the program's ends here, then OpenSSL's state. */
static void on_sock_closed(vigil_loop *loop, vigil_sock *s)
{
    vigil_tls *t = (vigil_tls *)((char *)s - offsetof(vigil_tls, sock));
    struct vigil__tls *st = st_of(t);
    st->closing = true;
    vigil_timer_stop(loop, &st->kick);
    vigil_timer_stop(loop, &st->hs_timer);
    if (st->hs_cb) {
        vigil_tls_cb cb = st->hs_cb;
        st->hs_cb = NULL;
        cb(loop, t, -ECANCELED);
    }
    end_sends(loop, st, -ECANCELED);
    vigil_tls_close_cb cb = st->close_cb;
    SSL_free(st->ssl);
    vigil__tls_ctx_unref(st->ctx);
    free(st->fill);
    free(st->sending);
    free(st->host);
    free(st);
    t->private_ = NULL;
    if (cb)
        cb(loop, t);
}

/* ----------------------------------------------------------------- queries */

const char *vigil_tls_verify_error(const vigil_tls *t)
{
    struct vigil__tls *st = st_of(t);
    if (!st || st->verify_err == 0)
        return NULL;
    return X509_verify_cert_error_string(st->verify_err);
}

const char *vigil_tls_alpn(const vigil_tls *t)
{
    struct vigil__tls *st = st_of(t);
    if (!st || st->hs_state != 2)
        return NULL;
    const unsigned char *p;
    unsigned n;
    SSL_get0_alpn_selected(st->ssl, &p, &n);
    if (!p || n == 0 || n >= sizeof st->alpn)
        return NULL;
    memcpy(st->alpn, p, n);
    st->alpn[n] = 0;
    return st->alpn;
}

int vigil_tls_resumed(const vigil_tls *t)
{
    struct vigil__tls *st = st_of(t);
    return st && st->hs_state == 2 && SSL_session_reused(st->ssl) ? 1 : 0;
}

int vigil_tls_version(const vigil_tls *t)
{
    struct vigil__tls *st = st_of(t);
    return st && st->hs_state == 2 ? SSL_version(st->ssl) : 0;
}

const char *vigil_tls_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case VIGIL_TLS_E_TRUNCATED:
        return "TLS: the peer closed the connection without close_notify (truncated)";
    case VIGIL_TLS_E_PROTOCOL:
        return "TLS: protocol error or fatal alert";
    case VIGIL_TLS_E_PLAIN_HTTP:
        return "TLS: the peer spoke plain HTTP to a TLS port";
    case VIGIL_TLS_E_VERIFY:
        return "TLS: certificate verification failed";
    case VIGIL_TLS_E_CERT_EXPIRED:
        return "TLS: certificate has expired";
    case VIGIL_TLS_E_CERT_NOT_YET_VALID:
        return "TLS: certificate is not yet valid";
    case VIGIL_TLS_E_CERT_HOSTNAME:
        return "TLS: certificate does not match the host name";
    case VIGIL_TLS_E_CERT_UNTRUSTED:
        return "TLS: certificate issuer unknown or self-signed (no chain to a trusted root)";
    case VIGIL_TLS_E_CERT_REVOKED:
        return "TLS: certificate revoked";
    case VIGIL_TLS_E_CONFIG:
        return "TLS: certificate, key or CA file refused";
    default:
        return err < 0 && err > -4096 ? strerror(-err) : "unknown error";
    }
}
