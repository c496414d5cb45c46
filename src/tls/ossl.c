/* src/tls/ossl.c: the record layer on OpenSSL through memory BIOs (see tls_int.h for
 * what src/tls/ owns and may call). OpenSSL reads ciphertext from a memory BIO the
 * front fills from the socket's receive stream, and writes ciphertext to a memory BIO
 * drained into the connection's fill buffer, which the front sends: OpenSSL never
 * touches the fd. */
#include "tls/tls_int.h"

#include <errno.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>

/* The error of a failed OpenSSL call on st->ssl (ret its return value). */
static int ossl_error(struct vigil__tls *st, int ret)
{
    int e = SSL_get_error(st->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return -EAGAIN;
    if (e == SSL_ERROR_ZERO_RETURN)
        return 0;
    unsigned long err = ERR_peek_error();
    int r = VIGIL_TLS_E_PROTOCOL;
    if (ERR_GET_LIB(err) == ERR_LIB_SSL && ERR_GET_REASON(err) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        long v = SSL_get_verify_result(st->ssl);
        st->verify_err = (int)v;
        r = v != X509_V_OK ? vigil__tls_map_verify(v) : VIGIL_TLS_E_VERIFY;
    } else if (ERR_GET_LIB(err) == ERR_LIB_SSL && ERR_GET_REASON(err) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        r = VIGIL_TLS_E_TRUNCATED;
    } else if (e == SSL_ERROR_SYSCALL && st->eof) {
        r = VIGIL_TLS_E_TRUNCATED;
    } else if (err && ERR_GET_LIB(err) == ERR_LIB_SSL && ERR_GET_REASON(err) == ERR_R_MALLOC_FAILURE) {
        r = -ENOMEM;
    }
    ERR_clear_error();
    return r;
}

static int ossl_feed(struct vigil__tls *st, const char *p, size_t n)
{
    return BIO_write(st->rbio, p, (int)n) == (int)n ? 0 : -ENOMEM;
}

static void ossl_feed_eof(struct vigil__tls *st)
{
    BIO_set_mem_eof_return(st->rbio, 0); /* once the BIO is empty, reads see the end */
}

static int ossl_handshake(struct vigil__tls *st)
{
    ERR_clear_error();
    int r = SSL_do_handshake(st->ssl);
    if (r == 1)
        return 1;
    r = ossl_error(st, r);
    if (r == -EAGAIN)
        return 0;
    return r == 0 ? VIGIL_TLS_E_PROTOCOL : r;
}

static ssize_t ossl_read(struct vigil__tls *st, char *p, size_t n)
{
    ERR_clear_error();
    int r = SSL_read(st->ssl, p, (int)n);
    if (r > 0)
        return r;
    return ossl_error(st, r);
}

static int ossl_write(struct vigil__tls *st, const void *p, size_t n)
{
    /* Memory BIOs take everything: SSL_write encrypts all n bytes into records (no
     * partial writes: SSL_MODE_ENABLE_PARTIAL_WRITE is not set). */
    while (n > 0) {
        int chunk = n > (1u << 30) ? 1 << 30 : (int)n;
        ERR_clear_error();
        int r = SSL_write(st->ssl, p, chunk);
        if (r <= 0) {
            r = ossl_error(st, r);
            return r == 0 || r == -EAGAIN ? -EPIPE : r;
        }
        p = (const char *)p + r;
        n -= (size_t)r;
    }
    return 0;
}

static int ossl_close_notify(struct vigil__tls *st)
{
    ERR_clear_error();
    int r = SSL_shutdown(st->ssl); /* 0: sent, the peer's not yet seen; 1: both */
    ERR_clear_error();
    return r < 0 ? -EPIPE : 0;
}

static int ossl_drain(struct vigil__tls *st)
{
    size_t n = BIO_ctrl_pending(st->wbio);
    if (n == 0)
        return 0;
    if (st->fill_len + n > st->fill_cap) {
        size_t cap = st->fill_cap ? st->fill_cap : 4096;
        while (cap < st->fill_len + n)
            cap *= 2;
        char *p = realloc(st->fill, cap);
        if (!p)
            return -ENOMEM;
        st->fill = p;
        st->fill_cap = cap;
    }
    int r = BIO_read(st->wbio, st->fill + st->fill_len, (int)n);
    if (r > 0) {
        st->fill_len += (size_t)r;
        st->produced += (uint64_t)r;
    }
    return 0;
}

const struct vigil__tls_rec vigil__tls_rec_ossl = {
    .feed = ossl_feed,
    .feed_eof = ossl_feed_eof,
    .handshake = ossl_handshake,
    .read = ossl_read,
    .write = ossl_write,
    .close_notify = ossl_close_notify,
    .drain = ossl_drain,
};
