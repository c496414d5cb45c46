/* nsswitch.conf's hosts: line as these machines have it, plus myhostname: names that a
 * source vigil does not speak answers (.local for mdns4_minimal, the host's own name for
 * myhostname) go to getaddrinfo() on the resolver's thread and say so (source SYSTEM),
 * with glibc's own answer; every other name is answered by vigil (files, then dns). The
 * files are bind-mounted over /etc's in the test's namespaces, so glibc reads the same. */
#include "dnsenv.h"

#include <netdb.h>

static int eai_status(const char *name)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int e = getaddrinfo(name, NULL, &hints, &res);
    if (res)
        freeaddrinfo(res);
    return e;
}

int main(int argc, char **argv)
{
    dnsenv_enter(argc, argv);
    dnsenv_dnsmasq_start("10.0.0.1 a.test\n", NULL);
    dnsenv_write("resolv.conf", "nameserver 127.0.0.1\noptions timeout:2 attempts:1\n");
    dnsenv_write("nsswitch.conf", "hosts: files mdns4_minimal [NOTFOUND=return] myhostname dns\n");
    dnsenv_write("hosts", "127.0.0.1 localhost\n10.7.7.7 inhosts.test\n");
    dnsenv_bind_etc("resolv.conf", "/etc/resolv.conf");
    dnsenv_bind_etc("nsswitch.conf", "/etc/nsswitch.conf");
    dnsenv_bind_etc("hosts", "/etc/hosts");

    vigil_loop *loop = dnsenv_loop();
    vigil_resolver *r;
    CHECK_EQ(vigil_resolver_new(loop, &r, NULL), 0);

    struct dnsenv_res o = dnsenv_resolve(loop, r, "a.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_DNS);
    o = dnsenv_resolve(loop, r, "inhosts.test", AF_UNSPEC, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_HOSTS);
    o = dnsenv_resolve(loop, r, "nothere.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, VIGIL_DNS_ENONAME);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_DNS);
    struct vigil_resolver_stats st;
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.system_lookups, 0);

    /* The host's own name (myhostname) and a .local name (mdns4_minimal): glibc's. */
    const char *sys_names[2] = {"vigil-dns-test", "printer.local"};
    for (int i = 0; i < 2; i++) {
        o = dnsenv_resolve(loop, r, sys_names[i], AF_UNSPEC, 0);
        CHECK_EQ(o.source, VIGIL_DNS_SOURCE_SYSTEM);
        int ge = eai_status(sys_names[i]);
        printf("%s: vigil %d (%s) through getaddrinfo, which says %d (%s)\n", sys_names[i], o.status,
               vigil_dns_strerror(o.status), ge, ge ? gai_strerror(ge) : "ok");
        CHECK_EQ(ge == 0, o.status == 0);
    }
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.system_lookups, 2);

    /* A fallback lookup cancelled: its answer is dropped, the callback says -ECANCELED. */
    struct dnsenv_res c;
    memset(&c, 0, sizeof c);
    vigil_lookup lk = {.data = &c};
    CHECK_EQ(vigil_resolve(r, &lk, "other.local", AF_INET, 0, dnsenv_cb), 0);
    CHECK_EQ(vigil_resolve_cancel(r, &lk), 0);
    while (!c.done)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(c.status, -ECANCELED);

    CHECK_EQ(vigil_resolver_free(r), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("ok\n");
    return 0;
}
