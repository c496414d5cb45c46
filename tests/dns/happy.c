/* Connecting by name with Happy Eyeballs (vigil_dns_connect), in the DNS tests' private
 * namespaces (dnsenv.h) against a real dnsmasq whose zone gives he.test both ::1 and
 * 127.0.0.1, on every backend:
 *   - IPv6 does not answer a SYN (a listener on [::1] with backlog 0 and one connection
 *     parked in its accept queue: the kernel drops later SYNs, so the attempt hangs as
 *     to a black hole), IPv4 accepts: IPv6 is tried first, IPv4's attempt starts no
 *     sooner than the 250 ms attempt delay after it, IPv4 wins, the IPv6 attempt's socket
 *     is closed (no fd left over, no SYN_SENT socket left in the namespace);
 *   - nothing listens on either: both tried, the last error (-ECONNREFUSED);
 *   - both hang: the overall timeout (-ETIMEDOUT), both attempts closed;
 *   - a cancel: -ECANCELED, later, nothing left open;
 *   - a name that does not exist: the lookup's error;
 *   - the loop freed while an attempt hangs: -ECANCELED inside vigil_loop_free.
 * Only orderings and a lower bound of the delay are asserted (timers are never early).
 */
#include "dnsenv.h"

#include <dirent.h>

#define P_WIN 7001    /* [::1] hangs, 127.0.0.1 accepts */
#define P_NONE 7002   /* nothing listens */
#define P_HANG 7003   /* both hang */

struct rec {
    int done, status;
    unsigned nattempt;
    union vigil_dns_addr att[8];
    int64_t att_ns[8];
    int cancel_at_attempt; /* cancel from the test once this many attempts started */
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void on_attempt(vigil_loop *loop, vigil_dns_conn *c, const union vigil_dns_addr *a, unsigned n)
{
    (void)loop;
    struct rec *r = c->data;
    CHECK_EQ(n, r->nattempt);
    if (n < 8) {
        r->att[n] = *a;
        r->att_ns[n] = now_ns();
    }
    r->nattempt++;
}

static void on_conn(vigil_loop *loop, vigil_dns_conn *c, int status)
{
    (void)loop;
    struct rec *r = c->data;
    r->done++;
    r->status = status;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the DIR's own */
}

/* Sockets of the namespace in SYN_SENT (state 02) towards port. */
static int syn_sent(const char *file, int port)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char rem[128];
        unsigned st;
        if (sscanf(line, " %*d: %*s %127s %x", rem, &st) != 2)
            continue;
        char *colon = strrchr(rem, ':');
        if (colon && (int)strtol(colon + 1, NULL, 16) == port && st == 2)
            n++;
    }
    fclose(f);
    return n;
}

/* A listener on ip:port; hang: backlog 0 and one connection parked in its accept queue,
 * so the kernel drops every later SYN (*parked gets the client end). */
static int listener(int family, const char *ip, int port, int hang, int *parked)
{
    int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(s >= 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        CHECK(inet_pton(AF_INET6, ip, &a->sin6_addr) == 1);
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        CHECK(inet_pton(AF_INET, ip, &a->sin_addr) == 1);
        len = sizeof *a;
    }
    if (bind(s, (struct sockaddr *)&ss, len) != 0) {
        if (family == AF_INET6) {
            printf("SKIP: bind [%s]:%d: %s (no IPv6 on the namespace's loopback)\n", ip, port, strerror(errno));
            exit(77);
        }
        FAIL("bind %s:%d: %s", ip, port, strerror(errno));
    }
    CHECK(listen(s, hang ? 0 : 16) == 0);
    if (hang) {
        int c = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(c >= 0);
        CHECK(connect(c, (struct sockaddr *)&ss, len) == 0); /* into the accept queue */
        *parked = c;
        /* The queue is full now: a probe's SYN is dropped (it would connect within
         * 100 ms otherwise: loopback). */
        int p = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        CHECK(p >= 0);
        CHECK(connect(p, (struct sockaddr *)&ss, len) < 0 && errno == EINPROGRESS);
        struct pollfd pf = {.fd = p, .events = POLLOUT};
        int r = poll(&pf, 1, 100);
        if (r != 0)
            FAIL("a listener with backlog 0 and a parked connection still answered a SYN: "
                 "the test cannot make an address that hangs");
        close(p);
    }
    return s;
}

static void run_until(vigil_loop *loop, struct rec *r)
{
    while (!r->done)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(r->done, 1);
}

/* A connect that is to fail (no socket is left open), run to its end: its record. */
static struct rec connect_wait(vigil_loop *loop, vigil_resolver *res, const char *name, int port,
                               const struct vigil_dns_connect_options *o)
{
    struct rec r;
    memset(&r, 0, sizeof r);
    vigil_dns_conn c = {.data = &r};
    vigil_sock s = {0};
    CHECK_EQ(vigil_dns_connect(res, &c, &s, name, port, o, on_conn), 0);
    run_until(loop, &r);
    return r;
}

/* Lets closes finish (io_uring closes in the next turns). */
static void settle(vigil_loop *loop)
{
    for (int i = 0; i < 20; i++)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
}

static void close_out(vigil_loop *loop, vigil_sock *s)
{
    CHECK_EQ(vigil_sock_close(loop, s, NULL), 0);
    settle(loop);
    memset(s, 0, sizeof *s);
}

int main(int argc, char **argv)
{
    dnsenv_enter(argc, argv);
    dnsenv_dnsmasq_start("::1 he.test\n127.0.0.1 he.test\n", NULL);
    dnsenv_write("resolv.conf", "nameserver 127.0.0.1\noptions timeout:5 attempts:1\n");
    dnsenv_write("hosts", "\n");
    dnsenv_write("nsswitch.conf", "hosts: files dns\n");

    int fds_pre = count_fds(); /* before the loop and the test's listeners */
    vigil_loop *loop = dnsenv_loop();
    struct vigil_resolver_options ro;
    vigil_resolver_options_init(&ro);
    ro.resolv_conf = dnsenv_path("resolv.conf");
    ro.hosts = dnsenv_path("hosts");
    ro.nsswitch = dnsenv_path("nsswitch.conf");
    vigil_resolver *res;
    CHECK_EQ(vigil_resolver_new(loop, &res, &ro), 0);

    /* Both families, IPv6 first (::1's precedence over IPv4's). */
    struct dnsenv_res o = dnsenv_resolve(loop, res, "he.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 2);
    CHECK(strcmp(dnsenv_fmt(&o.addr[0]), "::1") == 0);
    CHECK(strcmp(dnsenv_fmt(&o.addr[1]), "127.0.0.1") == 0);

    int parked6 = -1, parked6b = -1, parked4b = -1;
    int l6 = listener(AF_INET6, "::1", P_WIN, 1, &parked6);
    int l4 = listener(AF_INET, "127.0.0.1", P_WIN, 0, NULL);
    int h6 = listener(AF_INET6, "::1", P_HANG, 1, &parked6b);
    int h4 = listener(AF_INET, "127.0.0.1", P_HANG, 1, &parked4b);

    struct vigil_dns_connect_options opt;
    vigil_dns_connect_options_init(&opt);
    CHECK_EQ(opt.delay_ns, VIGIL_DNS_CONNECT_DELAY_NS);
    CHECK_EQ(opt.family, AF_UNSPEC);
    opt.attempt_cb = on_attempt;
    opt.timeout_ns = 5000000000LL;
    int fds0 = count_fds();

    /* 1. IPv6 hangs, IPv4 accepts. */
    {
        struct rec r;
        memset(&r, 0, sizeof r);
        vigil_dns_conn c = {.data = &r};
        vigil_sock s = {0};
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_WIN, &opt, on_conn), 0);
        CHECK_EQ(r.done, 0); /* never inside the call */
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_WIN, &opt, on_conn), -EBUSY);
        run_until(loop, &r);
        if (r.status != 0)
            FAIL("connect to he.test:%d: %d (%s)", P_WIN, r.status, vigil_dns_strerror(r.status));
        CHECK_EQ(r.nattempt, 2);
        CHECK_EQ(c.attempts, 2);
        CHECK_EQ(c.naddr, 2);
        CHECK_EQ(r.att[0].sa.sa_family, AF_INET6); /* IPv6 tried first */
        CHECK_EQ(ntohs(r.att[0].in6.sin6_port), P_WIN);
        CHECK_EQ(r.att[1].sa.sa_family, AF_INET);
        CHECK_EQ(c.addr.sa.sa_family, AF_INET); /* IPv4 won */
        CHECK_EQ(ntohs(c.addr.in.sin_port), P_WIN);
        int64_t gap = r.att_ns[1] - r.att_ns[0];
        if (gap < 240000000)
            FAIL("IPv4's attempt started %lld ns after IPv6's, before the 250 ms attempt delay",
                 (long long)gap);
        printf("IPv4 attempt %.1f ms after IPv6's (delay 250 ms)\n", gap / 1e6);
        /* The socket is the connection the IPv4 listener accepts. */
        int a = accept4(l4, NULL, NULL, SOCK_CLOEXEC);
        CHECK(a >= 0);
        struct sockaddr_storage peer, mine;
        socklen_t pl = sizeof peer, ml = sizeof mine;
        CHECK(getpeername(a, (struct sockaddr *)&peer, &pl) == 0);
        CHECK(getsockname(s.fd, (struct sockaddr *)&mine, &ml) == 0);
        CHECK_EQ(((struct sockaddr_in *)&peer)->sin_port, ((struct sockaddr_in *)&mine)->sin_port);
        close(a);
        settle(loop);
        /* The IPv6 attempt is gone: only the winner's socket is left beside the start. */
        CHECK_EQ(count_fds(), fds0 + 1);
        CHECK_EQ(syn_sent("/proc/self/net/tcp6", P_WIN), 0);
        close_out(loop, &s);
        CHECK_EQ(count_fds(), fds0);
    }

    /* 2. Nothing listens: both addresses tried (the second at once after the first's
     * refusal), the last error. */
    {
        struct rec r = connect_wait(loop, res, "he.test", P_NONE, &opt);
        CHECK_EQ(r.status, -ECONNREFUSED);
        CHECK_EQ(r.nattempt, 2);
        CHECK_EQ(r.att[0].sa.sa_family, AF_INET6);
        CHECK_EQ(r.att[1].sa.sa_family, AF_INET);
        settle(loop);
        CHECK_EQ(count_fds(), fds0);
    }

    /* 3. Both hang: the overall timeout, both attempts closed. */
    {
        struct vigil_dns_connect_options o3 = opt;
        o3.timeout_ns = 700000000;
        struct rec r = connect_wait(loop, res, "he.test", P_HANG, &o3);
        CHECK_EQ(r.status, -ETIMEDOUT);
        CHECK_EQ(r.nattempt, 2);
        settle(loop);
        CHECK_EQ(count_fds(), fds0);
        CHECK_EQ(syn_sent("/proc/self/net/tcp6", P_HANG), 0);
        CHECK_EQ(syn_sent("/proc/self/net/tcp", P_HANG), 0);
    }

    /* 4. Cancel while the first attempt hangs: -ECANCELED, later; nothing left. */
    {
        struct rec r;
        memset(&r, 0, sizeof r);
        vigil_dns_conn c = {.data = &r};
        vigil_sock s = {0};
        CHECK_EQ(vigil_dns_connect_cancel(&c), -ENOENT);
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_HANG, &opt, on_conn), 0);
        while (r.nattempt < 1)
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        CHECK_EQ(vigil_dns_connect_cancel(&c), 0);
        CHECK_EQ(r.done, 0); /* later */
        CHECK_EQ(vigil_dns_connect_cancel(&c), -ENOENT);
        run_until(loop, &r);
        CHECK_EQ(r.status, -ECANCELED);
        CHECK_EQ(r.nattempt, 1);
        settle(loop);
        CHECK_EQ(count_fds(), fds0);
        CHECK_EQ(syn_sent("/proc/self/net/tcp6", P_HANG), 0);
        /* Cancelled during the lookup. */
        memset(&r, 0, sizeof r);
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "other.test", P_HANG, &opt, on_conn), 0);
        CHECK_EQ(vigil_dns_connect_cancel(&c), 0);
        run_until(loop, &r);
        CHECK_EQ(r.status, -ECANCELED);
        CHECK_EQ(r.nattempt, 0);
        settle(loop);
        CHECK_EQ(count_fds(), fds0);
    }

    /* 5. A name that does not exist; bad arguments. */
    {
        struct rec r = connect_wait(loop, res, "nx.test", P_WIN, &opt);
        CHECK_EQ(r.status, VIGIL_DNS_ENONAME);
        CHECK_EQ(r.nattempt, 0);
        vigil_dns_conn c = {.data = &r};
        vigil_sock s = {0};
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", 0, &opt, on_conn), -EINVAL);
        struct vigil_dns_connect_options bad = opt;
        bad.delay_ns = 1;
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_WIN, &bad, on_conn), -EINVAL);
        bad = opt;
        bad.family = AF_UNIX;
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_WIN, &bad, on_conn), -EINVAL);
    }

    /* 6. The loop freed while an attempt hangs: the callback runs inside
     * vigil_loop_free with -ECANCELED and nothing is left (ASan's leak check). */
    {
        struct rec r;
        memset(&r, 0, sizeof r);
        vigil_dns_conn c = {.data = &r};
        vigil_sock s = {0};
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_HANG, &opt, on_conn), 0);
        while (r.nattempt < 1)
            CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
        CHECK_EQ(vigil_loop_free(loop), 0);
        CHECK_EQ(r.done, 1);
        CHECK_EQ(r.status, -ECANCELED);
        CHECK_EQ(vigil_dns_connect(res, &c, &s, "he.test", P_WIN, &opt, on_conn), -ECANCELED);
    }
    CHECK_EQ(vigil_resolver_free(res), 0);
    /* Nothing of the loop's, the resolver's or an attempt's is left: the listeners and
     * their parked connections only. */
    CHECK_EQ(count_fds(), fds_pre + 7);
    close(l6);
    close(l4);
    close(h6);
    close(h4);
    close(parked6);
    close(parked6b);
    close(parked4b);
    printf("ok\n");
    return 0;
}
