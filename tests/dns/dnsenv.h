/* The DNS tests' world: a private user, mount and network namespace (the test re-executes
 * itself under `unshare -rmnu`, so it never touches the machine's network, files or name
 * servers; exit 77 if namespaces are not permitted), loopback up, a real dnsmasq on
 * 127.0.0.1:53 serving a zone the test writes, and the test's own small DNS server
 * (a forked child) for what dnsmasq will not do:
 *   127.0.0.2:53  UDP: reads and drops every question (a server that never answers)
 *   127.0.0.3:53  UDP: answers each question four times: with the wrong id, from the
 *                 wrong address (127.0.0.4:53), for another name, and then rightly
 *                 (A 10.3.3.3)
 *   127.0.0.5:53  UDP: a truncated empty answer (TC); TCP: the full answer (A 10.5.5.5)
 *   127.0.0.6:53  UDP: SERVFAIL
 */
#ifndef VIGIL_TEST_DNSENV_H
#define VIGIL_TEST_DNSENV_H

#include "check.h"
#include "vigil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);                                      \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

static char dnsenv_dir[256];
static pid_t dnsenv_dnsmasq = -1, dnsenv_responder = -1;

static inline void dnsenv_stop(void)
{
    if (dnsenv_dnsmasq > 0) {
        kill(dnsenv_dnsmasq, SIGTERM);
        waitpid(dnsenv_dnsmasq, NULL, 0);
        dnsenv_dnsmasq = -1;
    }
    if (dnsenv_responder > 0) {
        kill(dnsenv_responder, SIGKILL);
        waitpid(dnsenv_responder, NULL, 0);
        dnsenv_responder = -1;
    }
}

static inline void dnsenv_write(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dnsenv_dir, name);
    char tmp[520];
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    CHECK(rename(tmp, p) == 0); /* a new inode: the change check sees it at once */
}

static inline const char *dnsenv_path(const char *name)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", dnsenv_dir, name);
    return p[i];
}

/* Re-executes the test inside its own namespaces; returns there. */
static inline void dnsenv_enter(int argc, char **argv)
{
    (void)argc;
    if (!getenv("VIGIL_DNS_NETNS")) {
        pid_t p = fork();
        CHECK(p >= 0);
        if (p == 0) {
            int dn = open("/dev/null", O_WRONLY);
            dup2(dn, 2);
            execlp("unshare", "unshare", "-rmnu", "true", (char *)NULL);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            printf("SKIP: `unshare -rmn` (user, mount and network namespaces) is not permitted here "
                   "(exit %d); the DNS tests need a private network and /etc\n",
                   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            exit(77);
        }
        setenv("VIGIL_DNS_NETNS", "1", 1);
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        CHECK(n > 0);
        self[n] = '\0';
        char *args[64];
        int k = 0;
        args[k++] = "unshare";
        args[k++] = "-rmnu";
        args[k++] = "--";
        args[k++] = self;
        for (int i = 1; i < argc && k < 63; i++)
            args[k++] = argv[i];
        args[k] = NULL;
        fflush(stdout);
        execvp("unshare", args);
        perror("execvp unshare");
        exit(1);
    }
    /* Inside: a host name without a domain (glibc and vigil would search it). */
    CHECK(sethostname("vigil-dns-test", 14) == 0);
    /* Loopback up. */
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(s >= 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    CHECK(ioctl(s, SIOCGIFFLAGS, &ifr) == 0);
    ifr.ifr_flags |= IFF_UP;
    CHECK(ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
    close(s);
    /* Mounts made here stay here. */
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    snprintf(dnsenv_dir, sizeof dnsenv_dir, "/tmp/vigil-dns-XXXXXX");
    CHECK(mkdtemp(dnsenv_dir) != NULL);
    /* A tmpfs over it: nothing written reaches the machine's /tmp, all goes at exit. */
    CHECK(mount("tmpfs", dnsenv_dir, "tmpfs", 0, "size=16m") == 0);
    atexit(dnsenv_stop);
}

/* Binds a file of the test over one of /etc's (inside the namespace only). */
static inline void dnsenv_bind_etc(const char *name, const char *etc)
{
    if (mount(dnsenv_path(name), etc, NULL, MS_BIND, NULL) != 0) {
        printf("SKIP: bind mount over %s: %s\n", etc, strerror(errno));
        exit(77);
    }
}

static inline const char *dnsenv_dnsmasq_bin(void)
{
    static const char *const c[] = {"/usr/sbin/dnsmasq", "/usr/bin/dnsmasq", "/sbin/dnsmasq"};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (access(c[i], X_OK) == 0)
            return c[i];
    return NULL;
}

/* Sends one A question for name to ip:53 over UDP; 1 if an answer came within 200 ms. */
static inline int dnsenv_probe(const char *ip, const char *name)
{
    uint8_t q[300];
    size_t o = 12;
    memset(q, 0, 12);
    q[0] = 0x12;
    q[1] = 0x34;
    q[2] = 1;
    q[5] = 1;
    const char *p = name;
    while (*p) {
        const char *d = strchr(p, '.');
        size_t l = d ? (size_t)(d - p) : strlen(p);
        q[o++] = (uint8_t)l;
        memcpy(q + o, p, l);
        o += l;
        p += l + (d ? 1 : 0);
    }
    q[o++] = 0;
    q[o++] = 0;
    q[o++] = 1;
    q[o++] = 0;
    q[o++] = 1;
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(53)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    sendto(s, q, o, 0, (struct sockaddr *)&a, sizeof a);
    struct pollfd pf = {.fd = s, .events = POLLIN};
    int r = poll(&pf, 1, 200);
    close(s);
    return r > 0;
}

/* Starts dnsmasq on 127.0.0.1:53 with the zone: zone_hosts (hosts format) and cnames
 * ("alias,target" lines, may be NULL). Exits 77 if dnsmasq is not installed. */
static inline void dnsenv_dnsmasq_start(const char *zone_hosts, const char *cnames)
{
    const char *bin = dnsenv_dnsmasq_bin();
    if (!bin) {
        printf("SKIP: dnsmasq is not installed (Debian's dnsmasq-base; scripts/deps.sh)\n");
        exit(77);
    }
    dnsenv_write("zone.hosts", zone_hosts);
    char conf[4096];
    int n = snprintf(conf, sizeof conf,
                     "port=53\nlisten-address=127.0.0.1\nbind-interfaces\nno-resolv\nno-hosts\nno-poll\n"
                     "addn-hosts=%s\nlocal=/test/\nlocal-ttl=60\npid-file=\n"
                     "log-facility=%s\ncache-size=0\n",
                     dnsenv_path("zone.hosts"), dnsenv_path("dnsmasq.log"));
    if (cnames) {
        const char *p = cnames;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            n += snprintf(conf + n, sizeof conf - (size_t)n, "cname=%.*s\n", (int)l, p);
            p += l + (e ? 1 : 0);
        }
    }
    dnsenv_write("dnsmasq.conf", conf);
    dnsenv_dnsmasq = fork();
    CHECK(dnsenv_dnsmasq >= 0);
    if (dnsenv_dnsmasq == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the test */
        int out = open(dnsenv_path("dnsmasq.out"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out >= 0) {
            dup2(out, 1);
            dup2(out, 2);
        }
        /* -d: in the foreground and without changing user or group (which a user
         * namespace does not allow: setgroups is denied there). */
        execl(bin, bin, "-d", "-C", dnsenv_path("dnsmasq.conf"), (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100; i++) {
        if (dnsenv_probe("127.0.0.1", "probe.test"))
            return;
        int st;
        if (waitpid(dnsenv_dnsmasq, &st, WNOHANG) == dnsenv_dnsmasq) {
            dnsenv_dnsmasq = -1;
            FAIL("dnsmasq exited (%d) before answering", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        }
    }
    FAIL("dnsmasq did not answer within 20 s");
}

/* ---------------------------------------------------------- the responder */

static inline int rsp_bind(int type, const char *ip)
{
    int s = socket(AF_INET, type, 0);
    CHECK(s >= 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(53)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    CHECK(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
    if (type == SOCK_STREAM)
        CHECK(listen(s, 8) == 0);
    return s;
}

/* The answer to question q (n bytes): flags, and one A record (addr) if addr != 0. */
static inline size_t rsp_answer(const uint8_t *q, size_t n, uint8_t *out, uint16_t flags, uint32_t addr)
{
    /* The question ends after its name + 4. */
    size_t o = 12;
    while (o < n && q[o])
        o += 1u + q[o];
    o += 5;
    if (o > n)
        return 0;
    memcpy(out, q, o);
    out[2] = (uint8_t)(0x80 | (q[2] & 0x01) | (flags >> 8));
    out[3] = (uint8_t)(0x80 | (flags & 0xff));
    out[6] = out[7] = out[8] = out[9] = out[10] = out[11] = 0;
    uint16_t qtype = (uint16_t)(q[o - 4] << 8 | q[o - 3]);
    if (addr && qtype == 1) {
        out[7] = 1;
        uint8_t rr[] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4,
                        (uint8_t)(addr >> 24), (uint8_t)(addr >> 16), (uint8_t)(addr >> 8), (uint8_t)addr};
        memcpy(out + o, rr, sizeof rr);
        o += sizeof rr;
    }
    return o;
}

/* Answers one UDP question waiting on fd as rsp_answer makes it (flags, address). */
static inline void rsp_reply(int fd, uint16_t flags, uint32_t addr)
{
    uint8_t q[600], a[700];
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(fd, q, sizeof q, 0, (struct sockaddr *)&from, &fl);
    if (n >= 12)
        sendto(fd, a, rsp_answer(q, (size_t)n, a, flags, addr), 0, (struct sockaddr *)&from, fl);
}

static inline void rsp_main(void)
{
    int drop = rsp_bind(SOCK_DGRAM, "127.0.0.2");
    int spoof = rsp_bind(SOCK_DGRAM, "127.0.0.3");
    int other = rsp_bind(SOCK_DGRAM, "127.0.0.4");
    int tc = rsp_bind(SOCK_DGRAM, "127.0.0.5");
    int tcl = rsp_bind(SOCK_STREAM, "127.0.0.5");
    int sf = rsp_bind(SOCK_DGRAM, "127.0.0.6");
    struct pollfd pf[5] = {{drop, POLLIN, 0}, {spoof, POLLIN, 0}, {tc, POLLIN, 0}, {tcl, POLLIN, 0}, {sf, POLLIN, 0}};
    for (;;) {
        if (poll(pf, 5, -1) < 0)
            continue;
        uint8_t q[600], a[700];
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        if (pf[0].revents)
            (void)recv(drop, q, sizeof q, 0);
        if (pf[1].revents) {
            ssize_t n = recvfrom(spoof, q, sizeof q, 0, (struct sockaddr *)&from, &fl);
            if (n >= 12) {
                size_t m = rsp_answer(q, (size_t)n, a, 0, 0x0a030303);
                a[1] ^= 1; /* wrong id */
                sendto(spoof, a, m, 0, (struct sockaddr *)&from, fl);
                a[1] ^= 1;
                sendto(other, a, m, 0, (struct sockaddr *)&from, fl); /* wrong address */
                uint8_t b[700];
                memcpy(b, a, m);
                b[13] ^= 0x01; /* another name: first letter changed */
                sendto(spoof, b, m, 0, (struct sockaddr *)&from, fl);
                sendto(spoof, a, m, 0, (struct sockaddr *)&from, fl);
            }
        }
        if (pf[2].revents)
            rsp_reply(tc, 0x0200, 0); /* TC: truncated */
        if (pf[3].revents) {
            int c = accept(tcl, NULL, NULL);
            if (c >= 0) {
                uint8_t hdr[2];
                size_t got = 0;
                ssize_t k;
                while (got < 2 && (k = recv(c, hdr + got, 2 - got, 0)) > 0)
                    got += (size_t)k;
                size_t len = (size_t)(hdr[0] << 8 | hdr[1]);
                got = 0;
                while (len <= sizeof q && got < len && (k = recv(c, q + got, len - got, 0)) > 0)
                    got += (size_t)k;
                if (got == len && len >= 12) {
                    size_t m = rsp_answer(q, len, a + 2, 0, 0x0a050505);
                    a[0] = (uint8_t)(m >> 8);
                    a[1] = (uint8_t)m;
                    /* One byte at a time: the reader must put the message together. */
                    for (size_t i = 0; i < m + 2; i++)
                        (void)send(c, a + i, 1, MSG_NOSIGNAL);
                }
                close(c);
            }
        }
        if (pf[4].revents)
            rsp_reply(sf, 2, 0); /* SERVFAIL */
    }
}

static inline void dnsenv_responder_start(void)
{
    dnsenv_responder = fork();
    CHECK(dnsenv_responder >= 0);
    if (dnsenv_responder == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        rsp_main();
        _exit(0);
    }
    for (int i = 0; i < 100 && !dnsenv_probe("127.0.0.6", "probe.test"); i++)
        ;
}

/* ---------------------------------------------------------- one lookup, waited for */

struct dnsenv_res {
    int done;
    int status;
    int source;
    int naddr;
    union vigil_dns_addr addr[64];
    char canon[256];
};

static inline void dnsenv_cb(vigil_loop *loop, vigil_lookup *lk, int status, const struct vigil_dns_result *res)
{
    (void)loop;
    struct dnsenv_res *o = lk->data;
    o->done++;
    o->status = status;
    o->source = res->source;
    o->naddr = (int)res->naddr;
    for (uint32_t i = 0; i < res->naddr && i < 64; i++)
        o->addr[i] = res->addr[i];
    snprintf(o->canon, sizeof o->canon, "%s", res->canonname);
}

static inline struct dnsenv_res dnsenv_resolve(vigil_loop *loop, vigil_resolver *r, const char *name, int family,
                                        uint32_t flags)
{
    struct dnsenv_res o;
    memset(&o, 0, sizeof o);
    vigil_lookup lk = {.data = &o};
    int e = vigil_resolve(r, &lk, name, family, flags, dnsenv_cb);
    CHECK_EQ(e, 0);
    CHECK_EQ(o.done, 0); /* never inside the call */
    while (!o.done)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(o.done, 1);
    return o;
}

static inline const char *dnsenv_fmt(const union vigil_dns_addr *a)
{
    static char b[4][INET6_ADDRSTRLEN];
    static int i;
    i = (i + 1) % 4;
    if (a->sa.sa_family == AF_INET)
        inet_ntop(AF_INET, &a->in.sin_addr, b[i], sizeof b[i]);
    else
        inet_ntop(AF_INET6, &a->in6.sin6_addr, b[i], sizeof b[i]);
    return b[i];
}

/* A resolver on loop over the test's own files: conf written to conf_name and read as
 * its resolv.conf, with the "hosts" and "nsswitch.conf" the test wrote. base, when not
 * NULL, gives the options' other fields (else the defaults). */
static inline vigil_resolver *dnsenv_resolver(vigil_loop *loop, const char *conf_name, const char *conf,
                                              const struct vigil_resolver_options *base)
{
    dnsenv_write(conf_name, conf);
    struct vigil_resolver_options opt;
    if (base)
        opt = *base;
    else
        vigil_resolver_options_init(&opt);
    opt.resolv_conf = dnsenv_path(conf_name);
    opt.hosts = dnsenv_path("hosts");
    opt.nsswitch = dnsenv_path("nsswitch.conf");
    vigil_resolver *r;
    CHECK_EQ(vigil_resolver_new(loop, &r, &opt), 0);
    return r;
}

static inline vigil_loop *dnsenv_loop(void)
{
    vigil_loop *loop;
    CHECK_EQ(vigil_loop_new(&loop, NULL), 0);
    return loop;
}

#endif
