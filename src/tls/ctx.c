/* src/tls/ctx.c: TLS contexts (see tls_int.h for what src/tls/ owns and may call).
 * A context wraps one SSL_CTX: versions, trust, certificate and key, ALPN, tickets,
 * renegotiation refused; a client context also keeps the last session of each host
 * (OpenSSL's new-session callback) and offers it on the next connection there. */
#include "tls/tls_int.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

static int ctx_index = -1; /* SSL_CTX ex_data slot: the vigil_tls_ctx */
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void ctx_index_init(void)
{
    ctx_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

void vigil_tls_options_init(struct vigil_tls_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
    opt->min_version = VIGIL_TLS_1_2;
    opt->max_version = VIGIL_TLS_1_3;
    opt->handshake_timeout_ns = 10000000000LL;
}

/* "h2,http/1.1" -> "\x02h2\x08http/1.1" */
static int alpn_wire(const char *list, unsigned char **out, unsigned *outlen)
{
    size_t n = strlen(list);
    if (n == 0 || n > 4096)
        return -EINVAL;
    unsigned char *w = malloc(n + 1);
    if (!w)
        return -ENOMEM;
    size_t wl = 0;
    const char *p = list;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == 0 || l > 255) {
            free(w);
            return -EINVAL;
        }
        w[wl++] = (unsigned char)l;
        memcpy(w + wl, p, l);
        wl += l;
        if (!c)
            break;
        p = c + 1;
    }
    *out = w;
    *outlen = (unsigned)wl;
    return 0;
}

static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned inlen, void *arg)
{
    vigil_tls_ctx *c = arg;
    unsigned char *sel = NULL;
    /* The server's order of preference wins (as nginx's): its list first. */
    if (SSL_select_next_proto(&sel, outlen, c->alpn, c->alpn_len, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; /* no common protocol: go on without ALPN */
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

/* A client's new session (a ticket): kept as its host's last. */
static int new_session(SSL *ssl, SSL_SESSION *sess)
{
    vigil_tls_ctx *c = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_index);
    struct vigil__tls *st = SSL_get_app_data(ssl);
    if (!c || !st)
        return 0;
    const char *host = st->host ? st->host : "";
    pthread_mutex_lock(&c->lock);
    struct vigil__tls_sess *e = NULL;
    for (unsigned i = 0; i < c->nsess; i++)
        if (strcmp(c->sess[i].host, host) == 0)
            e = &c->sess[i];
    if (!e) {
        char *h = strdup(host);
        if (!h) {
            pthread_mutex_unlock(&c->lock);
            return 0;
        }
        if (c->nsess < VIGIL__TLS_SESS_MAX) {
            e = &c->sess[c->nsess++];
        } else { /* full: the slots are reused in turn */
            e = &c->sess[c->sess_next];
            c->sess_next = (c->sess_next + 1) % VIGIL__TLS_SESS_MAX;
            free(e->host);
            SSL_SESSION_free(e->sess);
        }
        e->host = h;
        e->sess = NULL;
    }
    if (e->sess)
        SSL_SESSION_free(e->sess);
    e->sess = sess; /* returning 1 keeps OpenSSL's reference for us */
    pthread_mutex_unlock(&c->lock);
    return 1;
}

SSL_SESSION *vigil__tls_sess_get(vigil_tls_ctx *c, const char *host)
{
    SSL_SESSION *s = NULL;
    if (!host)
        host = "";
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < c->nsess; i++) {
        if (strcmp(c->sess[i].host, host) == 0 && c->sess[i].sess) {
            s = c->sess[i].sess;
            SSL_SESSION_up_ref(s);
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return s;
}

static void ctx_destroy(vigil_tls_ctx *c)
{
    for (unsigned i = 0; i < c->nsess; i++) {
        free(c->sess[i].host);
        SSL_SESSION_free(c->sess[i].sess);
    }
    SSL_CTX_free(c->ssl_ctx);
    free(c->alpn);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void vigil__tls_ctx_ref(vigil_tls_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    c->refs++;
    pthread_mutex_unlock(&c->lock);
}

void vigil__tls_ctx_unref(vigil_tls_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&c->lock);
    if (last)
        ctx_destroy(c);
}

void vigil_tls_ctx_free(vigil_tls_ctx *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    bool twice = c->freed;
    c->freed = true;
    pthread_mutex_unlock(&c->lock);
    if (!twice)
        vigil__tls_ctx_unref(c);
}

void *vigil_tls_ctx_native(vigil_tls_ctx *c)
{
    return c ? c->ssl_ctx : NULL;
}

int vigil_tls_ctx_new(const struct vigil_tls_options *opt, vigil_tls_ctx **out)
{
    if (!opt || !out || opt->size < sizeof *opt)
        return -EINVAL;
    uint32_t known = VIGIL_TLS_SERVER | VIGIL_TLS_NO_VERIFY | VIGIL_TLS_NO_TICKETS | VIGIL_TLS_VERIFY_PEER;
    bool server = opt->flags & VIGIL_TLS_SERVER;
    int minv = opt->min_version ? opt->min_version : VIGIL_TLS_1_2;
    int maxv = opt->max_version ? opt->max_version : VIGIL_TLS_1_3;
    if ((opt->flags & ~known) || (server && (!opt->cert_file || !opt->key_file)) ||
        (!opt->cert_file != !opt->key_file) || (minv != VIGIL_TLS_1_2 && minv != VIGIL_TLS_1_3) ||
        (maxv != VIGIL_TLS_1_2 && maxv != VIGIL_TLS_1_3) || minv > maxv)
        return -EINVAL;
    pthread_once(&ctx_once, ctx_index_init);
    if (ctx_index < 0)
        return -ENOMEM;
    vigil_tls_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    pthread_mutex_init(&c->lock, NULL);
    c->refs = 1;
    c->flags = opt->flags;
    c->hs_timeout_ns = opt->handshake_timeout_ns == 0 ? 10000000000LL : opt->handshake_timeout_ns;
    int r = -ENOMEM;
    if (opt->alpn && (r = alpn_wire(opt->alpn, &c->alpn, &c->alpn_len)) < 0)
        goto fail;
    r = -ENOMEM;
    ERR_clear_error();
    c->ssl_ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!c->ssl_ctx)
        goto fail;
    SSL_CTX *s = c->ssl_ctx;
    SSL_CTX_set_ex_data(s, ctx_index, c);
    SSL_CTX_set_min_proto_version(s, minv);
    SSL_CTX_set_max_proto_version(s, maxv);
    /* Renegotiation refused both ways; no compression (CRIME). Unexpected EOF stays an
     * error (no SSL_OP_IGNORE_UNEXPECTED_EOF): that is the truncation check. */
    SSL_CTX_set_options(s, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                               (opt->flags & VIGIL_TLS_NO_TICKETS ? SSL_OP_NO_TICKET : 0));
    SSL_CTX_set_mode(s, SSL_MODE_AUTO_RETRY);
    r = VIGIL_TLS_E_CONFIG;
    if (opt->cert_file && (SSL_CTX_use_certificate_chain_file(s, opt->cert_file) != 1 ||
                           SSL_CTX_use_PrivateKey_file(s, opt->key_file, SSL_FILETYPE_PEM) != 1 ||
                           SSL_CTX_check_private_key(s) != 1))
        goto fail;
    bool verify = server ? (opt->flags & VIGIL_TLS_VERIFY_PEER) : !(opt->flags & VIGIL_TLS_NO_VERIFY);
    if (verify) {
        if (opt->ca_file ? SSL_CTX_load_verify_locations(s, opt->ca_file, NULL) != 1
                         : SSL_CTX_set_default_verify_paths(s) != 1)
            goto fail;
        SSL_CTX_set_verify(s, SSL_VERIFY_PEER | (server ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0), NULL);
    } else {
        SSL_CTX_set_verify(s, SSL_VERIFY_NONE, NULL);
    }
    if (server) {
        static const unsigned char sid_ctx[] = "vigil";
        SSL_CTX_set_session_id_context(s, sid_ctx, sizeof sid_ctx - 1);
        if (c->alpn)
            SSL_CTX_set_alpn_select_cb(s, alpn_select, c);
    } else {
        if (c->alpn && SSL_CTX_set_alpn_protos(s, c->alpn, c->alpn_len) != 0)
            goto fail;
        if (!(opt->flags & VIGIL_TLS_NO_TICKETS)) {
            SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
            SSL_CTX_sess_set_new_cb(s, new_session);
        }
    }
    ERR_clear_error();
    *out = c;
    return 0;
fail:
    ERR_clear_error();
    ctx_destroy(c);
    return r;
}

int vigil__tls_map_verify(long e)
{
    switch (e) {
    case X509_V_OK:
        return 0;
    case X509_V_ERR_CERT_HAS_EXPIRED:
        return VIGIL_TLS_E_CERT_EXPIRED;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return VIGIL_TLS_E_CERT_NOT_YET_VALID;
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return VIGIL_TLS_E_CERT_HOSTNAME;
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED:
        return VIGIL_TLS_E_CERT_UNTRUSTED;
    case X509_V_ERR_CERT_REVOKED:
        return VIGIL_TLS_E_CERT_REVOKED;
    default:
        return VIGIL_TLS_E_VERIFY;
    }
}
