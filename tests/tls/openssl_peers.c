/* TLS against OpenSSL's own tools, TLS 1.2 and 1.3:
 *   - vigil's client against `openssl s_server -rev` (verification on, host name and
 *     SNI, ALPN h2/http/1.1 against the server's http/1.1): a line goes out, comes back
 *     reversed, then close_notify both ways (the end is 0); a second connection resumes
 *     the first's session (a ticket);
 *   - vigil's server against `openssl s_client`: the client's line echoed, close_notify
 *     from the server (s_client exits 0 having printed the echo), ALPN; s_client
 *     -sess_out then -sess_in: "Reused";
 *   - truncation both ways: the peer killed (SIGKILL: the kernel sends its FIN, no
 *     close_notify) ends vigil's receive stream with VIGIL_TLS_E_TRUNCATED, never 0
 *     (-ECONNRESET where s_client had unread bytes and the kernel reset instead);
 *   - renegotiation refused (TLS 1.2 s_client's "R": no_renegotiation). */
#include "tlsenv.h"

static const char *vername(int v)
{
    return v == VIGIL_TLS_1_3 ? "-tls1_3" : "-tls1_2";
}

static int connect_to(vigil_loop *loop, int port)
{
    return tlsenv_tcp_connect(port);
}

static void client_vs_s_server(int ver)
{
    vigil_loop *loop = tlsenv_loop();
    char *argv[] = {"openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", (char *)tlsenv_path("good.pem"),
                    "-key", (char *)tlsenv_path("good.key"), "-rev", (char *)vername(ver), "-alpn",
                    "http/1.1", NULL};
    unlink(tlsenv_path("s_server.out")); /* the last s_server's ACCEPT line must not be read as this one's */
    pid_t srv = tlsenv_spawn(NULL, tlsenv_path("s_server.out"), argv);
    int port = tlsenv_peer_port(tlsenv_path("s_server.out"), "ACCEPT ", srv);
    vigil_tls_ctx *ctx = tlsenv_ctx(0, NULL, "ca.pem", "h2,http/1.1", 0, 0);
    for (int round = 0; round < 2; round++) {
        struct tconn c;
        tconn_start(loop, &c, ctx, connect_to(loop, port), "localhost", T_ASK);
        c.out = "hello vigil\n";
        c.outlen = strlen(c.out);
        c.want = c.outlen;
        tlsenv_run_until(loop, &c.ended);
        if (c.hs_res != 0)
            FAIL("handshake: %s (%s)", vigil_tls_strerror(c.hs_res), c.verify);
        CHECK_EQ(c.version, ver);
        if (strcmp(c.alpn, "http/1.1") != 0)
            FAIL("ALPN settled on '%s'", c.alpn);
        CHECK_EQ(c.resumed, round == 1);
        if (c.end != 0)
            FAIL("end of stream %zd (%s), want 0 (close_notify)", c.end, vigil_tls_strerror((int)c.end));
        CHECK_EQ(c.inlen, c.outlen);
        if (memcmp(c.in, "ligiv olleh\n", 12) != 0)
            FAIL("got '%.*s'", (int)c.inlen, c.in);
        tconn_close(loop, &c);
    }
    /* Truncation: s_server killed while the client waits for data. */
    struct tconn c;
    tconn_start(loop, &c, ctx, connect_to(loop, port), "localhost", T_ASK);
    c.out = "x\n";
    c.outlen = 2;
    c.want = 1 << 20; /* never: wait for the end */
    while (c.inlen < 2)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    kill(srv, SIGKILL);
    tlsenv_wait(srv);
    tlsenv_run_until(loop, &c.ended);
    if (c.end != VIGIL_TLS_E_TRUNCATED)
        FAIL("end %zd (%s), want VIGIL_TLS_E_TRUNCATED", c.end, vigil_tls_strerror((int)c.end));
    tconn_close(loop, &c);
    vigil_tls_ctx_free(ctx);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("client vs s_server %s: ok\n", vername(ver));
}

static void server_vs_s_client(int ver)
{
    vigil_loop *loop = tlsenv_loop();
    struct tsrv s = {0};
    s.ctx = tlsenv_ctx(VIGIL_TLS_SERVER, "good.pem", NULL, NULL, 0, 0);
    /* ALPN on the server's context: set through the options (a second context). */
    struct vigil_tls_options o;
    vigil_tls_options_init(&o);
    o.flags = VIGIL_TLS_SERVER;
    o.cert_file = tlsenv_path("good.pem");
    o.key_file = tlsenv_path("good.key");
    o.alpn = "http/1.1,h2";
    vigil_tls_ctx_free(s.ctx);
    CHECK_EQ(vigil_tls_ctx_new(&o, &s.ctx), 0);
    char hostport[32];
    snprintf(hostport, sizeof hostport, "127.0.0.1:%d", tsrv_start(loop, &s, 4, 2));
    tlsenv_write(tlsenv_path("ping"), "ping from s_client\n");

    for (int round = 0; round < 2; round++) {
        char *argv[] = {"openssl", "s_client", "-connect", hostport, "-servername", "localhost",
                        "-CAfile", (char *)tlsenv_path("ca.pem"), "-verify_return_error", "-ign_eof",
                        (char *)vername(ver), "-alpn", "h2", round == 0 ? "-sess_out" : "-sess_in",
                        (char *)tlsenv_path("sess"), NULL};
        pid_t cl = tlsenv_spawn(tlsenv_path("ping"), tlsenv_path("s_client.out"), argv);
        struct tconn *c = &s.c[round];
        while (s.n <= round || c->inlen < strlen("ping from s_client\n"))
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        CHECK_EQ(c->hs_res, 0);
        CHECK_EQ(c->version, ver);
        if (strcmp(c->alpn, "h2") != 0)
            FAIL("server ALPN '%s'", c->alpn);
        CHECK_EQ(c->resumed, round == 1);
        /* Everything echoed: now the server's close_notify; s_client exits on it. */
        while (c->nsend_done < c->nsent)
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        CHECK_EQ(vigil_tls_shutdown(loop, &c->t), 0);
        tlsenv_run_until(loop, &c->ended); /* s_client's close_notify, or its FIN */
        int st = tlsenv_wait(cl);
        const char *out = tlsenv_read(tlsenv_path("s_client.out"));
        if (st != 0 || !strstr(out, "ping from s_client"))
            FAIL("s_client exited %d, said:\n%s", st, out);
        if (round == 1 && !strstr(out, "Reused"))
            FAIL("s_client did not resume:\n%s", out);
        tconn_close(loop, c);
    }
    /* Truncation: s_client killed after its line arrived. */
    char *argv[] = {"openssl", "s_client", "-connect", hostport, "-CAfile", (char *)tlsenv_path("ca.pem"),
                    "-ign_eof", (char *)vername(ver), NULL};
    pid_t cl = tlsenv_spawn(tlsenv_path("ping"), tlsenv_path("s_client.out"), argv);
    struct tconn *c = &s.c[2];
    while (s.n <= 2 || c->inlen < strlen("ping from s_client\n"))
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    kill(cl, SIGKILL);
    tlsenv_wait(cl);
    tlsenv_run_until(loop, &c->ended);
    /* The kernel sends a FIN, or a reset if s_client left bytes unread (the TLS 1.3
     * tickets sent at the handshake's end may still be in its socket): either way an
     * error, never 0. The client side above, and tls_python, see the FIN for sure. */
    if (c->end != VIGIL_TLS_E_TRUNCATED && c->end != -ECONNRESET)
        FAIL("end %zd (%s), want VIGIL_TLS_E_TRUNCATED", c->end, vigil_tls_strerror((int)c->end));
    tconn_close(loop, c);
    if (ver == VIGIL_TLS_1_2) {
        /* Renegotiation refused: s_client's "R" asks for it, the server answers
         * no_renegotiation (s_client reports the error and gives up). */
        tlsenv_write(tlsenv_path("reneg"), "R\n");
        char *rargv[] = {"openssl", "s_client", "-connect", hostport, "-CAfile", (char *)tlsenv_path("ca.pem"),
                         "-tls1_2", NULL};
        cl = tlsenv_spawn(tlsenv_path("reneg"), tlsenv_path("s_client.out"), rargv);
        c = &s.c[3];
        while (s.n <= 3)
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        tlsenv_run_until(loop, &c->ended);
        CHECK_EQ(c->hs_res, 0);
        CHECK(c->end != 0 || c->inlen == 0);
        tlsenv_wait(cl);
        const char *out = tlsenv_read(tlsenv_path("s_client.out"));
        if (!strstr(out, "RENEGOTIATING") || !strstr(out, "no renegotiation"))
            FAIL("renegotiation not refused? s_client said:\n%s", out);
        printf("renegotiation refused (s_client: no renegotiation), stream end %zd\n", c->end);
        tconn_close(loop, c);
    }
    vigil_sock_close(loop, &s.ls, NULL);
    vigil_tls_ctx_free(s.ctx);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("server vs s_client %s: ok\n", vername(ver));
}

int main(void)
{
    tlsenv_init();
    client_vs_s_server(VIGIL_TLS_1_3);
    client_vs_s_server(VIGIL_TLS_1_2);
    server_vs_s_client(VIGIL_TLS_1_3);
    server_vs_s_client(VIGIL_TLS_1_2);
    return 0;
}
