/* vigil: TLS on vigil's sockets (OpenSSL 3).
 *
 * A TLS connection here is a vigil_sock (include/vigil/net.h) with OpenSSL between the
 * program and the socket's receives and sends: OpenSSL reads and writes memory, never
 * the fd, so every byte still goes by vigil's receive stream and send queue (on io_uring
 * in the turn's one system call). Ciphertext received goes into OpenSSL and its pool
 * buffer back to the pool at once; plaintext to send is encrypted at the call and its
 * records queued as one socket send.
 *
 *   vigil_tls_ctx *ctx;                          // one per configuration, shared
 *   struct vigil_tls_options o; vigil_tls_options_init(&o);
 *   o.flags = VIGIL_TLS_SERVER; o.cert_file = "c.pem"; o.key_file = "k.pem";
 *   vigil_tls_ctx_new(&o, &ctx);
 *   vigil_tls t = {0};
 *   vigil_tls_open(loop, &t, ctx, fd, NULL);      // fd: accepted (or connected + host)
 *   vigil_tls_handshake(loop, &t, on_hs);         // on_hs(loop, &t, 0 or an error)
 *   vigil_tls_recv_start(loop, &t, on_data);      // plaintext as it is decrypted
 *   vigil_tls_send(loop, &t, &req, p, len, on_sent);
 *   vigil_tls_shutdown(loop, &t);                 // close_notify after the sends
 *   vigil_tls_close(loop, &t, on_closed);
 *
 * Defaults: TLS 1.2 and 1.3; a client verifies the peer's chain against the system's
 * trust store (or ca_file) and checks the host name given to vigil_tls_open (a DNS name
 * or an IP address), which it also sends as SNI; session tickets on both sides (a
 * client context keeps the last session of each host and offers it on the next
 * connection to that host); renegotiation refused (TLS 1.2: a peer asking for it gets a
 * no_renegotiation alert; OpenSSL's s_client then gives up, and the receive stream ends
 * with VIGIL_TLS_E_PROTOCOL).
 *
 * Ends of stream. A peer's close_notify ends the receive stream with res 0 (the clean
 * end). A peer that closes TCP without close_notify (a truncation attack, or a
 * careless peer) ends it with VIGIL_TLS_E_TRUNCATED, never with 0: a program that takes
 * "0" as "everything arrived" cannot be cut short unnoticed.
 *
 * Errors are negative: an errno value (-ECONNRESET, -EPIPE, -ETIMEDOUT for the
 * handshake's timeout, -ECANCELED for a request ended by a close) or one of the
 * VIGIL_TLS_E* codes below, all under -4095 so that none is an errno value.
 * vigil_tls_strerror names both; after a verification failure
 * vigil_tls_verify_error gives OpenSSL's own reason text.
 *
 * Plaintext buffers. The receive callback's buffer is the connection's own (16 KiB, the
 * largest record's plaintext, allocated by vigil_tls_open), not one of the pool: a
 * record's plaintext exists only once the whole record has arrived, possibly across
 * several pool buffers already handed back, and the pool has no call to take a free
 * buffer out of the kernel's provided-buffer ring. Its bytes are valid until the
 * callback returns (copy what you keep); vigil_buf_put on it is allowed and does
 * nothing, so code written for vigil_sock's receive works unchanged if it copies.
 *
 * Library: the TLS calls are in libvigil itself, which links libssl3 and libcrypto3
 * (Debian's libssl-dev to build): one library, one version script and one ABI check,
 * and libssl3 is on every Debian system (curl, Python, apt itself need it). A separate
 * libvigil-tls would spare programs without TLS one DT_NEEDED (OpenSSL's libraries are
 * loaded, not initialised, until the first vigil_tls_ctx_new) at the cost of a second
 * library, map and package; if that cost proves worth paying, the split is mechanical
 * (src/tls/ uses only public calls of the rest of vigil).
 *
 * Threads: a context may be shared by loops in several threads (OpenSSL's SSL_CTX is
 * thread-safe); a connection belongs to its loop's thread, as a vigil_sock does.
 */
#ifndef VIGIL_TLS_H
#define VIGIL_TLS_H

#include "vigil/loop.h"
#include "vigil/net.h"

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_tls_ctx vigil_tls_ctx;
typedef struct vigil_tls vigil_tls;

/* Errors of their own (negative, under -4095: no errno value is one of them). */
#define VIGIL_TLS_E_TRUNCATED (-5001)     /* the peer closed TCP without close_notify */
#define VIGIL_TLS_E_PROTOCOL (-5002)      /* a TLS protocol error or a fatal alert from the peer */
#define VIGIL_TLS_E_PLAIN_HTTP (-5003)    /* server: the peer spoke plain HTTP, not TLS */
#define VIGIL_TLS_E_VERIFY (-5010)        /* the peer's certificate failed verification (other reason) */
#define VIGIL_TLS_E_CERT_EXPIRED (-5011)  /* ... it has expired */
#define VIGIL_TLS_E_CERT_NOT_YET_VALID (-5012) /* ... it is not valid yet */
#define VIGIL_TLS_E_CERT_HOSTNAME (-5013) /* ... it does not name the host asked for */
#define VIGIL_TLS_E_CERT_UNTRUSTED (-5014) /* ... unknown issuer, self-signed: no chain to a trusted root */
#define VIGIL_TLS_E_CERT_REVOKED (-5015)  /* ... it was revoked (with a CRL the program set) */
#define VIGIL_TLS_E_CONFIG (-5020)        /* vigil_tls_ctx_new: a certificate, key or CA file OpenSSL refused */

#define VIGIL_TLS_SERVER 0x1u      /* the server's side (else a client's) */
#define VIGIL_TLS_NO_VERIFY 0x2u   /* client: do not verify the peer (tests, pinned setups) */
#define VIGIL_TLS_NO_TICKETS 0x4u  /* no session tickets, no resumption */
#define VIGIL_TLS_VERIFY_PEER 0x8u /* server: ask for a client certificate and verify it */

#define VIGIL_TLS_1_2 0x0303
#define VIGIL_TLS_1_3 0x0304

struct vigil_tls_options {
    uint32_t size;             /* sizeof(struct vigil_tls_options); set by _init */
    uint32_t flags;            /* VIGIL_TLS_* */
    const char *cert_file;     /* PEM: the certificate and its chain (server; client: optional) */
    const char *key_file;      /* PEM: its private key */
    const char *ca_file;       /* PEM: the roots to trust; NULL: the system's (OpenSSL's default paths) */
    const char *alpn;          /* protocols, most preferred first, comma-separated ("h2,http/1.1"); NULL: no ALPN */
    int min_version;           /* VIGIL_TLS_1_2 (default) or VIGIL_TLS_1_3 */
    int max_version;           /* VIGIL_TLS_1_3 (default) or VIGIL_TLS_1_2 */
    int64_t handshake_timeout_ns; /* default 10 s; < 0: none */
    uint64_t reserved[4];
};

struct vigil_tls {
    void *data;          /* the caller's */
    vigil_sock sock;     /* the TCP socket (read its fd; the library's otherwise) */
    void *private_;      /* the library's */
};

/* res: 0 (handshake done), or a negative error. */
typedef void (*vigil_tls_cb)(vigil_loop *loop, vigil_tls *t, int res);
/* res > 0: buf->data holds res plaintext bytes, valid until the callback returns.
 * res == 0: the peer's close_notify (the clean end). res < 0: VIGIL_TLS_E_TRUNCATED,
 * VIGIL_TLS_E_PROTOCOL, -ECONNRESET... After 0 or an error the stream has stopped. */
typedef void (*vigil_tls_recv_cb)(vigil_loop *loop, vigil_tls *t, ssize_t res, vigil_buf *buf);
typedef void (*vigil_tls_close_cb)(vigil_loop *loop, vigil_tls *t);

VIGIL_EXPORT void vigil_tls_options_init(struct vigil_tls_options *opt);
/* A context: certificates, trust, versions, ALPN, ticket keys and (client) the session
 * of each host. 0 and *out, or -EINVAL (bad options: a server without cert_file and
 * key_file, a bad ALPN list, versions out of order), VIGIL_TLS_E_CONFIG (a file
 * OpenSSL could not load, or a key that does not match its certificate), -ENOMEM. */
VIGIL_EXPORT int vigil_tls_ctx_new(const struct vigil_tls_options *opt, vigil_tls_ctx **out);
/* Frees ctx once every connection made with it was closed (they hold a reference). */
VIGIL_EXPORT void vigil_tls_ctx_free(vigil_tls_ctx *ctx);
/* OpenSSL's SSL_CTX behind ctx, for settings this header does not cover (cipher
 * lists, curves, a CRL store). */
VIGIL_EXPORT void *vigil_tls_ctx_native(vigil_tls_ctx *ctx);

/* Adopts fd, a connected TCP socket (vigil_sock_open on t->sock: vigil owns fd from
 * here on, vigil_tls_close closes it). host: the client's name for the server (SNI, and
 * the name or IP address the certificate must hold); NULL on a server, or on a client
 * with VIGIL_TLS_NO_VERIFY. 0, or -EINVAL, -EBUSY (t open), -ENOMEM, vigil_sock_open's
 * errors (fd is not closed then). */
VIGIL_EXPORT int vigil_tls_open(vigil_loop *loop, vigil_tls *t, vigil_tls_ctx *ctx, int fd, const char *host);
/* Runs the handshake; cb gets 0 or an error: a VIGIL_TLS_E_CERT_* or
 * VIGIL_TLS_E_VERIFY (client: the server's certificate; vigil_tls_verify_error says
 * why), VIGIL_TLS_E_PLAIN_HTTP, VIGIL_TLS_E_PROTOCOL (an alert, no common version or
 * cipher), VIGIL_TLS_E_TRUNCATED (the peer closed), -ETIMEDOUT (the context's
 * handshake timeout), -ECANCELED (closed first). After an error only vigil_tls_close
 * is left to call. -EBUSY if it ran already, -EBADF if t is not open. */
VIGIL_EXPORT int vigil_tls_handshake(vigil_loop *loop, vigil_tls *t, vigil_tls_cb cb);
/* Plaintext as it is decrypted (after the handshake; -ENOTCONN before, -EBUSY if
 * receiving). Stopping is immediate: no callback after vigil_tls_recv_stop returns;
 * ciphertext waits in OpenSSL or the kernel until the next start. */
VIGIL_EXPORT int vigil_tls_recv_start(vigil_loop *loop, vigil_tls *t, vigil_tls_recv_cb cb);
VIGIL_EXPORT int vigil_tls_recv_stop(vigil_loop *loop, vigil_tls *t);
/* Encrypts len bytes now (buf may change once this returns) and sends them; cb gets
 * len once every byte of their records went to the kernel, or a negative errno. Sends
 * complete in the order they were made. req is the caller's, as for vigil_sock_send
 * (not for vigil_net_cancel: vigil_tls_close ends it). -ENOTCONN before the handshake,
 * -EPIPE after vigil_tls_shutdown or an error, -EINVAL for len 0, -EBUSY if req is in
 * flight. */
VIGIL_EXPORT int vigil_tls_send(vigil_loop *loop, vigil_tls *t, vigil_net_req *req, const void *buf, size_t len,
                                vigil_net_cb cb);
/* Sends close_notify after the sends made before it, then shuts TCP down for writing.
 * The receive stream goes on until the peer's close_notify (res 0). -ENOTCONN before
 * the handshake, -EPIPE if shut down already. */
VIGIL_EXPORT int vigil_tls_shutdown(vigil_loop *loop, vigil_tls *t);
/* Closes t as vigil_sock_close closes a socket: the handshake's and the sends'
 * callbacks run with -ECANCELED (or their result if it came first), the fd is closed,
 * OpenSSL's state freed, then cb (may be NULL) runs; t may be freed from there. No
 * close_notify is sent (vigil_tls_shutdown first for a clean end). -EBADF if t is not
 * open. */
VIGIL_EXPORT int vigil_tls_close(vigil_loop *loop, vigil_tls *t, vigil_tls_close_cb cb);

/* A message for err (a VIGIL_TLS_E* code or a negative errno). Static. */
VIGIL_EXPORT const char *vigil_tls_strerror(int err);
/* OpenSSL's reason text for a failed verification ("certificate has expired",
 * "hostname mismatch", "self-signed certificate"...), NULL when the peer's certificate
 * was not refused. Valid until vigil_tls_close. */
VIGIL_EXPORT const char *vigil_tls_verify_error(const vigil_tls *t);
/* The protocol ALPN settled on (NUL-terminated, valid until close), NULL if none. */
VIGIL_EXPORT const char *vigil_tls_alpn(const vigil_tls *t);
/* 1 if the handshake resumed a session (a ticket), else 0. */
VIGIL_EXPORT int vigil_tls_resumed(const vigil_tls *t);
/* The version settled on: VIGIL_TLS_1_2, VIGIL_TLS_1_3, or 0 before the handshake. */
VIGIL_EXPORT int vigil_tls_version(const vigil_tls *t);

#ifdef __cplusplus
}
#endif
#endif
