/* What the TLS tests share: certificates made with the openssl tool in a temporary
 * directory (removed at exit), outside peers started as child processes (killed at
 * exit), a loop run until a condition holds (a 20 s guard fails the test instead of
 * hanging), and a scripted connection (struct tconn) either side. */
#ifndef VIGIL_TEST_TLSENV_H
#define VIGIL_TEST_TLSENV_H

#include "check.h"

#include <vigil.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        exit(1);                                                                                   \
    } while (0)

static char tlsenv_dir_[256];
static pid_t tlsenv_kids_[16];
static int tlsenv_nkids_;

static inline void tlsenv_cleanup(void)
{
    for (int i = 0; i < tlsenv_nkids_; i++)
        if (tlsenv_kids_[i] > 0) {
            kill(tlsenv_kids_[i], SIGKILL);
            waitpid(tlsenv_kids_[i], NULL, 0);
        }
    if (tlsenv_dir_[0] && !getenv("VIGIL_TLS_KEEP")) { /* VIGIL_TLS_KEEP=1: keep it to look at */
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tlsenv_dir_);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tlsenv_dir_);
    }
}

static inline const char *tlsenv_path(const char *name)
{
    static char bufs[8][320];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 320, "%s/%s", tlsenv_dir_, name);
    return b;
}

static inline void tlsenv_sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char full[2400];
    snprintf(full, sizeof full, "cd '%s' && (%s) >>log 2>&1", tlsenv_dir_, cmd);
    if (system(full) != 0)
        FAIL("command failed: %s (see %s/log)", cmd, tlsenv_dir_);
}

/* A CA, and certificates signed by it for localhost and 127.0.0.1: good.pem (30 days),
 * expired.pem (ended yesterday); self.pem, self-signed for the same names. EC P-256:
 * quick to make. Keys: *.key. Skips (77) without the openssl tool. */
static inline void tlsenv_init(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (system("openssl version >/dev/null 2>&1") != 0) {
        printf("skip: no openssl tool (Debian: openssl)\n");
        exit(77);
    }
    snprintf(tlsenv_dir_, sizeof tlsenv_dir_, "/tmp/vigil-tls-XXXXXX");
    CHECK(mkdtemp(tlsenv_dir_) != NULL);
    atexit(tlsenv_cleanup);
    const char *ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    tlsenv_sh("printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ext");
    tlsenv_sh("openssl req -x509 %s -keyout ca.key -out ca.pem -days 30 -subj /CN=vigil-test-ca", ec);
    tlsenv_sh("openssl req %s -keyout good.key -out good.csr -subj /CN=localhost", ec);
    tlsenv_sh("openssl x509 -req -in good.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 "
              "-extfile ext -out good.pem");
    tlsenv_sh("cp good.key expired.key && openssl x509 -req -in good.csr -CA ca.pem -CAkey ca.key "
              "-CAcreateserial -days -1 -extfile ext -out expired.pem");
    tlsenv_sh("openssl req -x509 %s -keyout self.key -out self.pem -days 30 -subj /CN=localhost "
              "-addext subjectAltName=DNS:localhost,IP:127.0.0.1", ec);
}

/* Starts argv (stdin from in_file or /dev/null, stdout+stderr to out_file). */
static inline pid_t tlsenv_spawn(const char *in_file, const char *out_file, char *const argv[])
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int in = open(in_file ? in_file : "/dev/null", O_RDONLY);
        int out = open(out_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    CHECK(tlsenv_nkids_ < 16);
    tlsenv_kids_[tlsenv_nkids_++] = pid;
    return pid;
}

/* Waits for pid; its exit status (128 + signal if killed). */
static inline int tlsenv_wait(pid_t pid)
{
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    for (int i = 0; i < tlsenv_nkids_; i++)
        if (tlsenv_kids_[i] == pid)
            tlsenv_kids_[i] = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Waits (up to 20 s) until file holds text; fails if pid exited first. */
static inline void tlsenv_wait_file(const char *file, const char *text, pid_t pid);

static inline char *tlsenv_read(const char *file)
{
    static char buf[1 << 16];
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

static inline void tlsenv_wait_file(const char *file, const char *text, pid_t pid)
{
    for (int i = 0; i < 2000; i++) {
        if (strstr(tlsenv_read(file), text))
            return;
        if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid)
            FAIL("the peer exited before saying '%s': %s", text, tlsenv_read(file));
        usleep(10000);
    }
    FAIL("no '%s' in %s", text, file);
}

static inline void tlsenv_write(const char *file, const char *text)
{
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* The port a peer bound to port 0 says it listens on: the number after the last ':' or
 * "port " of the line holding `text` in its output (s_server: "ACCEPT 127.0.0.1:41234",
 * peer.py: "ready port 41234."). A peer never binds a port picked beforehand, so no other
 * program can take it in between (the pick-then-bind race). */
static inline int tlsenv_peer_port(const char *file, const char *text, pid_t pid)
{
    tlsenv_wait_file(file, text, pid);
    for (int i = 0; i < 200; i++) {
        const char *l = strstr(tlsenv_read(file), text);
        const char *eol = l ? strchr(l, '\n') : NULL;
        if (eol) { /* the whole line is out */
            const char *n = eol;
            while (n > l && n[-1] != ':' && n[-1] != ' ')
                n--;
            int port = atoi(n);
            if (port > 0 && port < 65536)
                return port;
            FAIL("no port in the peer's line '%.*s'", (int)(eol - l), l);
        }
        usleep(10000);
    }
    FAIL("the peer's '%s' line did not end", text);
    return -1;
}

/* A connected blocking TCP socket to 127.0.0.1:port. */
static inline int tlsenv_tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_SYS(connect(fd, (struct sockaddr *)&a, sizeof a));
    return fd;
}

static inline vigil_loop *tlsenv_loop(void)
{
    vigil_loop *loop;
    CHECK_EQ(vigil_loop_new(&loop, NULL), 0);
    return loop;
}

/* A hang guard, not a timing check: generous, for a machine shared with other builds. */
#define TLSENV_GUARD_NS 60000000000LL
static int tlsenv_guard_line_;
static const char *tlsenv_guard_file_ = "?";
static inline void tlsenv_guard(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    (void)t;
    FAIL("the loop ran 60 s without reaching the condition of the wait at %s:%d", tlsenv_guard_file_,
         tlsenv_guard_line_);
}

/* Runs loop turns until *flag turns true (the caller's line named if it hangs). */
#define tlsenv_run_until(loop, flag) \
    (tlsenv_guard_file_ = __FILE__, tlsenv_guard_line_ = __LINE__, tlsenv_run_until_((loop), (flag)))
static inline void tlsenv_run_until_(vigil_loop *loop, const bool *flag)
{
    vigil_timer guard = {0};
    CHECK_EQ(vigil_timer_start(loop, &guard, CLOCK_MONOTONIC, TLSENV_GUARD_NS, 0, 0, tlsenv_guard), 0);
    while (!*flag)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    vigil_timer_stop(loop, &guard);
}

static inline vigil_tls_ctx *tlsenv_ctx(uint32_t flags, const char *cert, const char *ca, const char *alpn, int minv,
                                 int maxv)
{
    struct vigil_tls_options o;
    vigil_tls_options_init(&o);
    o.flags = flags;
    if (cert) {
        char key[300];
        snprintf(key, sizeof key, "%s", tlsenv_path(cert));
        *strrchr(key, '.') = 0;
        strcat(key, ".key");
        o.cert_file = tlsenv_path(cert);
        o.key_file = key;
        vigil_tls_ctx *c;
        int r = vigil_tls_ctx_new(&o, &c);
        if (r < 0)
            FAIL("vigil_tls_ctx_new: %s", vigil_tls_strerror(r));
        return c;
    }
    o.ca_file = ca ? tlsenv_path(ca) : NULL;
    o.alpn = alpn;
    if (minv)
        o.min_version = minv;
    if (maxv)
        o.max_version = maxv;
    vigil_tls_ctx *c;
    int r = vigil_tls_ctx_new(&o, &c);
    if (r < 0)
        FAIL("vigil_tls_ctx_new: %s", vigil_tls_strerror(r));
    return c;
}

/* ---------------------------------------------------------- a scripted connection */

enum { T_ECHO = 1,  /* server: sends every byte it receives back; shuts down at the peer's end */
       T_ASK,       /* client: sends `out`, receives until `want` bytes (or the end), shuts down */
       T_HOLD };    /* receives and keeps everything until the end */

#define TCONN_REQS 1024
struct tconn {
    vigil_tls t;
    vigil_net_req *req; /* TCONN_REQS, a ring */
    int mode;
    int hs_res;              /* 1 while running */
    ssize_t end;             /* the receive stream's end: 0, an error; 1 while running */
    bool hs_done, ended, closed, sent_all;
    char *in;
    size_t inlen, incap, want;
    const char *out;
    size_t outlen;
    unsigned nsent, nsend_done, echo_next;
    char alpn[64];
    int version, resumed;
    char verify[128];
};

static inline void tconn_closed(vigil_loop *loop, vigil_tls *t)
{
    struct tconn *c = t->data;
    c->closed = true;
}

static inline void tconn_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct tconn *c = req->data;
    if (res < 0 && res != -ECANCELED && res != -EPIPE && res != -ECONNRESET)
        FAIL("send ended with %zd (%s)", res, vigil_tls_strerror((int)res));
    c->nsend_done++;
}

static inline void tconn_send(vigil_loop *loop, struct tconn *c, const void *p, size_t n)
{
    vigil_net_req *r = &c->req[c->nsent++ % TCONN_REQS];
    CHECK(c->nsent - c->nsend_done <= TCONN_REQS);
    r->data = c;
    int e = vigil_tls_send(loop, &c->t, r, p, n, tconn_sent);
    if (e < 0)
        FAIL("vigil_tls_send: %s", vigil_tls_strerror(e));
}

static inline void tconn_recv(vigil_loop *loop, vigil_tls *t, ssize_t res, vigil_buf *buf)
{
    struct tconn *c = t->data;
    if (res <= 0) {
        c->end = res;
        c->ended = true;
        if (c->mode == T_ECHO && res == 0)
            vigil_tls_shutdown(loop, t);
        return;
    }
    if (c->inlen + (size_t)res > c->incap) {
        c->incap = (c->inlen + (size_t)res) * 2;
        c->in = realloc(c->in, c->incap);
        CHECK(c->in != NULL);
    }
    memcpy(c->in + c->inlen, buf->data, (size_t)res);
    c->inlen += (size_t)res;
    vigil_buf_put(loop, buf); /* allowed, and nothing to do */
    if (c->mode == T_ECHO)
        tconn_send(loop, c, c->in + c->inlen - res, (size_t)res); /* in[] does not move (tconn_start) */
    if (c->mode == T_ASK && c->want && c->inlen >= c->want && !c->sent_all) {
        c->sent_all = true;
        CHECK_EQ(vigil_tls_shutdown(loop, t), 0);
    }
}

static inline void tconn_hs(vigil_loop *loop, vigil_tls *t, int res)
{
    struct tconn *c = t->data;
    c->hs_res = res;
    c->hs_done = true;
    if (res < 0) {
        const char *v = vigil_tls_verify_error(t);
        snprintf(c->verify, sizeof c->verify, "%s", v ? v : "");
        return;
    }
    const char *a = vigil_tls_alpn(t);
    snprintf(c->alpn, sizeof c->alpn, "%s", a ? a : "");
    c->version = vigil_tls_version(t);
    c->resumed = vigil_tls_resumed(t);
    CHECK_EQ(vigil_tls_recv_start(loop, t, tconn_recv), 0);
    if (c->mode == T_ASK && c->outlen)
        tconn_send(loop, c, c->out, c->outlen);
}

/* Opens fd as c (client if host or ctx is a client's), starts the handshake. */
static inline void tconn_start(vigil_loop *loop, struct tconn *c, vigil_tls_ctx *ctx, int fd, const char *host, int mode)
{
    memset(c, 0, sizeof *c);
    c->t.data = c;
    c->mode = mode;
    c->hs_res = 1;
    c->end = 1;
    c->req = calloc(TCONN_REQS, sizeof *c->req);
    CHECK(c->req != NULL);
    if (mode == T_ECHO) { /* echoed bytes are sent from in[]: keep it from moving */
        c->incap = 4 << 20;
        c->in = malloc(c->incap);
        CHECK(c->in != NULL);
    }
    int r = vigil_tls_open(loop, &c->t, ctx, fd, host);
    if (r < 0)
        FAIL("vigil_tls_open: %s", vigil_tls_strerror(r));
    CHECK_EQ(vigil_tls_handshake(loop, &c->t, tconn_hs), 0);
}

static inline void tconn_close(vigil_loop *loop, struct tconn *c)
{
    CHECK_EQ(vigil_tls_close(loop, &c->t, tconn_closed), 0);
    tlsenv_run_until(loop, &c->closed);
    free(c->in);
    free(c->req);
    c->in = NULL;
    c->req = NULL;
}

/* A server for the tests against outside clients: a vigil listener on 127.0.0.1, each
 * connection it accepts the next of c[] (at most max, hold's scripted T_HOLD, the others
 * T_ECHO). */
#define TSRV_MAX 4
struct tsrv {
    vigil_sock ls;
    vigil_tls_ctx *ctx;
    struct tconn c[TSRV_MAX];
    int n, max, hold;
};

static inline void tsrv_accept_(vigil_loop *loop, vigil_sock *ls, int fd)
{
    struct tsrv *s = ls->data;
    CHECK(fd >= 0 && s->n < s->max);
    tconn_start(loop, &s->c[s->n], s->ctx, fd, NULL, s->n != s->hold ? T_ECHO : T_HOLD);
    s->n++;
}

/* Listens on a port the kernel picks (no pick-then-bind race) and accepts; returns it. */
static inline int tsrv_start(vigil_loop *loop, struct tsrv *s, int max, int hold)
{
    CHECK(max <= TSRV_MAX);
    int lfd = vigil_net_listen("127.0.0.1:0", 16, 0);
    CHECK(lfd >= 0);
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    CHECK_SYS(getsockname(lfd, (struct sockaddr *)&a, &al));
    s->max = max;
    s->hold = hold;
    s->ls.data = s;
    CHECK_EQ(vigil_sock_open(loop, &s->ls, lfd), 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &s->ls, tsrv_accept_), 0);
    return ntohs(a.sin_port);
}

static inline void fill_pattern(char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)((i * 131 + seed + (i >> 9)) & 0xff);
}

#endif
