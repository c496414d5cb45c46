/* Errors a program can act on, vigil's client and server in one loop: a certificate
 * expired, for another name (a DNS name, an IP address), self-signed (unknown issuer)
 * each give their own code and OpenSSL's reason text, while the good certificate passes
 * for its name and its address; plain HTTP to the TLS port; the handshake's timeout
 * against a silent client; a handshake cut by a close; calls made too early; bad
 * options. */
#include "tlsenv.h"

struct pair {
    vigil_sock ls;
    vigil_tls_ctx *sctx;
    struct tconn srv;
    bool accepted;
    int port;
};

static void on_accept(vigil_loop *loop, vigil_sock *ls, int fd)
{
    struct pair *p = ls->data;
    CHECK(fd >= 0 && !p->accepted);
    p->accepted = true;
    tconn_start(loop, &p->srv, p->sctx, fd, NULL, T_ECHO);
}

static void listen_with(vigil_loop *loop, struct pair *p, vigil_tls_ctx *sctx)
{
    memset(p, 0, sizeof *p);
    p->sctx = sctx;
    int lfd = vigil_net_listen("127.0.0.1:0", 16, 0);
    CHECK(lfd >= 0);
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    CHECK_SYS(getsockname(lfd, (struct sockaddr *)&a, &al));
    p->port = ntohs(a.sin_port);
    p->ls.data = p;
    CHECK_EQ(vigil_sock_open(loop, &p->ls, lfd), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &p->ls, on_accept), 0);
}

static bool ls_closed;
static void on_ls_closed(vigil_loop *loop, vigil_sock *s)
{
    ls_closed = true;
}

static void unlisten(vigil_loop *loop, struct pair *p)
{
    if (p->accepted)
        tconn_close(loop, &p->srv);
    ls_closed = false;
    vigil_sock_close(loop, &p->ls, on_ls_closed);
    tlsenv_run_until(loop, &ls_closed);
}

/* A client for host against a server with cert: the client's handshake result. */
static int try_cert(vigil_loop *loop, const char *cert, const char *host, const char *want_reason)
{
    vigil_tls_ctx *sctx = tlsenv_ctx(VIGIL_TLS_SERVER, cert, NULL, NULL, 0, 0);
    vigil_tls_ctx *cctx = tlsenv_ctx(0, NULL, "ca.pem", NULL, 0, 0);
    struct pair p;
    listen_with(loop, &p, sctx);
    struct tconn c;
    tconn_start(loop, &c, cctx, tlsenv_tcp_connect(p.port), host, T_ASK);
    c.out = "abc";
    c.outlen = 3;
    c.want = 3;
    tlsenv_run_until(loop, &c.hs_done);
    int r = c.hs_res;
    if (r == 0) {
        tlsenv_run_until(loop, &c.ended); /* echoed, then close_notify both ways */
        CHECK_EQ(c.end, 0);
        CHECK_EQ(c.inlen, 3);
        CHECK(memcmp(c.in, "abc", 3) == 0);
        CHECK(vigil_tls_verify_error(&c.t) == NULL);
    } else {
        if (!strstr(c.verify, want_reason))
            FAIL("%s for %s: reason '%s', want '%s'", cert, host, c.verify, want_reason);
        tlsenv_run_until(loop, &p.accepted);
        tlsenv_run_until(loop, &p.srv.hs_done); /* the server hears the client's alert */
        CHECK(p.srv.hs_res < 0);
    }
    printf("%s as %s: %s (%s)\n", cert, host, vigil_tls_strerror(r), c.verify);
    tconn_close(loop, &c);
    unlisten(loop, &p);
    vigil_tls_ctx_free(sctx);
    vigil_tls_ctx_free(cctx);
    return r;
}

static int server_error(vigil_loop *loop, int64_t timeout_ns, const char *send_first, bool close_early)
{
    struct vigil_tls_options o;
    vigil_tls_options_init(&o);
    o.flags = VIGIL_TLS_SERVER;
    o.cert_file = tlsenv_path("good.pem");
    o.key_file = tlsenv_path("good.key");
    o.handshake_timeout_ns = timeout_ns;
    vigil_tls_ctx *sctx;
    CHECK_EQ(vigil_tls_ctx_new(&o, &sctx), 0);
    struct pair p;
    listen_with(loop, &p, sctx);
    int fd = tlsenv_tcp_connect(p.port);
    if (send_first)
        CHECK_EQ(write(fd, send_first, strlen(send_first)), (ssize_t)strlen(send_first));
    tlsenv_run_until(loop, &p.accepted);
    if (close_early) {
        /* Calls made before the handshake ended are refused. */
        vigil_net_req req = {0};
        CHECK_EQ(vigil_tls_send(loop, &p.srv.t, &req, "x", 1, NULL), -EINVAL);
        CHECK_EQ(vigil_tls_send(loop, &p.srv.t, &req, "x", 1, (vigil_net_cb)1), -ENOTCONN);
        CHECK_EQ(vigil_tls_recv_start(loop, &p.srv.t, tconn_recv), -ENOTCONN);
        CHECK_EQ(vigil_tls_shutdown(loop, &p.srv.t), -ENOTCONN);
        CHECK_EQ(vigil_tls_handshake(loop, &p.srv.t, tconn_hs), -EBUSY);
        CHECK_EQ(vigil_tls_close(loop, &p.srv.t, tconn_closed), 0);
        CHECK_EQ(vigil_tls_close(loop, &p.srv.t, tconn_closed), -EBADF);
        CHECK(!p.srv.hs_done); /* its callback runs later, not inside the close */
        tlsenv_run_until(loop, &p.srv.closed);
        p.accepted = false; /* closed already */
        free(p.srv.in);
        free(p.srv.req);
    } else {
        tlsenv_run_until(loop, &p.srv.hs_done);
    }
    int r = p.srv.hs_res;
    close(fd);
    unlisten(loop, &p);
    vigil_tls_ctx_free(sctx);
    return r;
}

int main(void)
{
    tlsenv_init();
    vigil_loop *loop = tlsenv_loop();

    CHECK_EQ(try_cert(loop, "good.pem", "localhost", ""), 0);
    CHECK_EQ(try_cert(loop, "good.pem", "127.0.0.1", ""), 0);
    CHECK_EQ(try_cert(loop, "expired.pem", "localhost", "expired"), VIGIL_TLS_E_CERT_EXPIRED);
    CHECK_EQ(try_cert(loop, "good.pem", "wrong.test", "hostname mismatch"), VIGIL_TLS_E_CERT_HOSTNAME);
    CHECK_EQ(try_cert(loop, "good.pem", "10.9.8.7", "IP address mismatch"), VIGIL_TLS_E_CERT_HOSTNAME);
    CHECK_EQ(try_cert(loop, "self.pem", "localhost", "self-signed"), VIGIL_TLS_E_CERT_UNTRUSTED);

    int r = server_error(loop, 0, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", false);
    CHECK_EQ(r, VIGIL_TLS_E_PLAIN_HTTP);
    printf("plain HTTP: %s\n", vigil_tls_strerror(r));
    r = server_error(loop, 200000000, NULL, false); /* a client that says nothing */
    CHECK_EQ(r, -ETIMEDOUT);
    printf("silent client: %s\n", vigil_tls_strerror(r));
    r = server_error(loop, 0, NULL, true);
    CHECK_EQ(r, -ECANCELED);
    printf("closed during the handshake: %s\n", vigil_tls_strerror(r));

    /* Options refused. */
    struct vigil_tls_options o;
    vigil_tls_ctx *c;
    vigil_tls_options_init(&o);
    o.flags = VIGIL_TLS_SERVER;
    CHECK_EQ(vigil_tls_ctx_new(&o, &c), -EINVAL); /* a server needs a certificate */
    o.cert_file = tlsenv_path("ca.key");           /* a key is no certificate */
    o.key_file = tlsenv_path("good.key");
    CHECK_EQ(vigil_tls_ctx_new(&o, &c), VIGIL_TLS_E_CONFIG);
    o.cert_file = tlsenv_path("good.pem");
    o.key_file = tlsenv_path("self.key"); /* not its key */
    CHECK_EQ(vigil_tls_ctx_new(&o, &c), VIGIL_TLS_E_CONFIG);
    vigil_tls_options_init(&o);
    o.alpn = "h2,,http/1.1";
    CHECK_EQ(vigil_tls_ctx_new(&o, &c), -EINVAL);
    o.alpn = NULL;
    o.min_version = VIGIL_TLS_1_3;
    o.max_version = VIGIL_TLS_1_2;
    CHECK_EQ(vigil_tls_ctx_new(&o, &c), -EINVAL);
    vigil_tls_options_init(&o);
    CHECK_EQ(vigil_tls_ctx_new(&o, &c), 0);
    vigil_tls t = {0};
    int sv[2];
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    CHECK_EQ(vigil_tls_open(loop, &t, c, sv[0], NULL), -EINVAL); /* verifying needs a host */
    vigil_tls_ctx_free(c);
    close(sv[0]);
    close(sv[1]);
    CHECK(strstr(vigil_tls_strerror(VIGIL_TLS_E_TRUNCATED), "close_notify") != NULL);
    CHECK(strcmp(vigil_tls_strerror(-EPIPE), strerror(EPIPE)) == 0);

    CHECK_EQ(vigil_loop_free(loop), 0);

    /* A loop freed with TLS connections open (one mid-handshake, one established with a
     * send queued): their handshake and send callbacks end with -ECANCELED inside
     * vigil_loop_free, OpenSSL's state goes with them (the sanitizer's leak check). */
    loop = tlsenv_loop();
    vigil_tls_ctx *sctx = tlsenv_ctx(VIGIL_TLS_SERVER, "good.pem", NULL, NULL, 0, 0);
    vigil_tls_ctx *cctx = tlsenv_ctx(0, NULL, "ca.pem", NULL, 0, 0);
    struct pair *p = calloc(1, sizeof *p);
    listen_with(loop, p, sctx);
    struct tconn *cl = malloc(sizeof *cl), *late = malloc(sizeof *late);
    tconn_start(loop, cl, cctx, tlsenv_tcp_connect(p->port), "localhost", T_HOLD);
    tlsenv_run_until(loop, &cl->hs_done);
    CHECK_EQ(cl->hs_res, 0);
    tconn_send(loop, cl, "queued", 6);
    tconn_start(loop, late, cctx, tlsenv_tcp_connect(p->port), "localhost", T_HOLD);
    vigil_tls_ctx_free(sctx); /* the connections hold the contexts until they close */
    vigil_tls_ctx_free(cctx);
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK(late->hs_done && late->hs_res == -ECANCELED);
    CHECK_EQ(cl->nsend_done, 1);
    free(cl->in);
    free(cl->req);
    free(late->in);
    free(late->req);
    free(p->srv.in);
    free(p->srv.req);
    free(cl);
    free(late);
    free(p);
    printf("loop freed with connections open: ok\n");
    return 0;
}
