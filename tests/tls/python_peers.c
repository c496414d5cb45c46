/* TLS against Python's ssl module (peer.py), TLS 1.2 and 1.3, as server and as client:
 * 1 MiB each way in one vigil_tls_send against reads and writes of random sizes (records
 * split at every kind of boundary, across the pool's 4 KiB buffers); a peer whose every
 * byte (handshake, data, close_notify) arrives in a segment of its own; close_notify
 * both ways (the end is 0); a peer that closes TCP without close_notify
 * (VIGIL_TLS_E_TRUNCATED, after the bytes it did send). */
#include "tlsenv.h"

#define MIB (1 << 20)

static const char *vers(int v)
{
    return v == VIGIL_TLS_1_3 ? "1.3" : "1.2";
}

static pid_t spawn_peer(const char *mode, int port, const char *a1, const char *a2, int ver)
{
    char ports[16];
    snprintf(ports, sizeof ports, "%d", port);
    char *argv[] = {"python3", (char *)tlsenv_path("peer.py"), (char *)mode, ports, (char *)a1, (char *)a2,
                    (char *)vers(ver), NULL};
    if (!a2) {
        argv[5] = (char *)vers(ver);
        argv[6] = NULL;
    }
    unlink(tlsenv_path("peer.out")); /* the last peer's "ready" must not be read as this one's */
    return tlsenv_spawn(NULL, tlsenv_path("peer.out"), argv);
}

static void check_pattern(const char *p, size_t n, unsigned seed)
{
    char *want = malloc(n);
    CHECK(want != NULL);
    fill_pattern(want, n, seed);
    for (size_t i = 0; i < n; i++)
        if (p[i] != want[i])
            FAIL("byte %zu of %zu differs", i, n);
    free(want);
}

static void client_vs_python(int ver)
{
    vigil_loop *loop = tlsenv_loop();
    pid_t py = spawn_peer("server", 0, tlsenv_path("good.pem"), tlsenv_path("good.key"), ver);
    int port = tlsenv_peer_port(tlsenv_path("peer.out"), "ready port ", py);
    vigil_tls_ctx *ctx = tlsenv_ctx(0, NULL, "ca.pem", NULL, ver, ver);
    char *mib = malloc(MIB);
    fill_pattern(mib, MIB, 7);

    struct tconn c;
    tconn_start(loop, &c, ctx, tlsenv_tcp_connect(port), "localhost", T_ASK);
    c.out = mib;
    c.outlen = MIB;
    c.want = MIB;
    tlsenv_run_until(loop, &c.ended);
    if (c.hs_res != 0)
        FAIL("handshake: %s", vigil_tls_strerror(c.hs_res));
    CHECK_EQ(c.version, ver);
    CHECK_EQ(c.nsend_done, 1); /* the 1 MiB send ended before the echo was complete */
    if (c.end != 0)
        FAIL("end %zd (%s)", c.end, vigil_tls_strerror((int)c.end));
    CHECK_EQ(c.inlen, MIB);
    check_pattern(c.in, MIB, 7);
    tconn_close(loop, &c);

    tconn_start(loop, &c, ctx, tlsenv_tcp_connect(port), "localhost", T_ASK);
    c.out = "ok";
    c.outlen = 2;
    c.want = 3000;
    tlsenv_run_until(loop, &c.ended);
    CHECK_EQ(c.hs_res, 0);
    if (c.end != 0)
        FAIL("bytewise: end %zd (%s)", c.end, vigil_tls_strerror((int)c.end));
    CHECK_EQ(c.inlen, 3000);
    check_pattern(c.in, 3000, 7);
    tconn_close(loop, &c);

    tconn_start(loop, &c, ctx, tlsenv_tcp_connect(port), "localhost", T_ASK);
    c.out = "x";
    c.outlen = 1;
    c.want = MIB; /* never reached: wait for the end */
    tlsenv_run_until(loop, &c.ended);
    if (c.end != VIGIL_TLS_E_TRUNCATED)
        FAIL("end %zd (%s), want VIGIL_TLS_E_TRUNCATED", c.end, vigil_tls_strerror((int)c.end));
    CHECK_EQ(c.inlen, 3);
    CHECK(memcmp(c.in, "bye", 3) == 0);
    tconn_close(loop, &c);

    int st = tlsenv_wait(py);
    if (st != 0)
        FAIL("peer.py server exited %d:\n%s", st, tlsenv_read(tlsenv_path("peer.out")));
    free(mib);
    vigil_tls_ctx_free(ctx);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("client vs Python TLS %s: ok\n", vers(ver));
}

static bool ls_closed;
static void on_ls_closed(vigil_loop *loop, vigil_sock *s)
{
    ls_closed = true;
}

static void server_vs_python(int ver)
{
    vigil_loop *loop = tlsenv_loop();
    static struct tsrv s;
    memset(&s, 0, sizeof s);
    struct vigil_tls_options o;
    vigil_tls_options_init(&o);
    o.flags = VIGIL_TLS_SERVER;
    o.cert_file = tlsenv_path("good.pem");
    o.key_file = tlsenv_path("good.key");
    o.min_version = o.max_version = ver;
    CHECK_EQ(vigil_tls_ctx_new(&o, &s.ctx), 0);
    int port = tsrv_start(loop, &s, 3, -1);
    pid_t py = spawn_peer("client", port, tlsenv_path("ca.pem"), NULL, ver);

    for (int i = 0; i < 3; i++) {
        while (s.n <= i)
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        struct tconn *c = &s.c[i];
        tlsenv_run_until(loop, &c->ended);
        CHECK_EQ(c->hs_res, 0);
        CHECK_EQ(c->version, ver);
        size_t want = i == 0 ? MIB : i == 1 ? 5000 : 3;
        CHECK_EQ(c->inlen, want);
        if (i < 2)
            check_pattern(c->in, want, i == 0 ? 7 : 3);
        if (c->end != (i < 2 ? 0 : VIGIL_TLS_E_TRUNCATED))
            FAIL("connection %d: end %zd (%s)", i, c->end, vigil_tls_strerror((int)c->end));
        while (c->nsend_done < c->nsent) /* the echo and close_notify are out */
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        tconn_close(loop, c);
    }
    int st = tlsenv_wait(py);
    if (st != 0)
        FAIL("peer.py client exited %d:\n%s", st, tlsenv_read(tlsenv_path("peer.out")));
    ls_closed = false;
    vigil_sock_close(loop, &s.ls, on_ls_closed);
    tlsenv_run_until(loop, &ls_closed);
    vigil_tls_ctx_free(s.ctx);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("server vs Python TLS %s: ok\n", vers(ver));
}

int main(void)
{
    tlsenv_init();
    tlsenv_sh("cp '%s' peer.py", PEER_PY);
    client_vs_python(VIGIL_TLS_1_3);
    client_vs_python(VIGIL_TLS_1_2);
    server_vs_python(VIGIL_TLS_1_3);
    server_vs_python(VIGIL_TLS_1_2);
    return 0;
}
