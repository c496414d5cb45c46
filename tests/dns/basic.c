/* The resolver against a real dnsmasq with a zone of the test's: A, AAAA, both, a CNAME
 * chain, NXDOMAIN, NODATA, the search list, /etc/hosts first, the cache (and turning it
 * off per lookup), the configuration read again after a change, an address, a bad name. */
#include "dnsenv.h"

static const char *zone = "10.0.0.1 v4only.test\n"
                          "2001:db8::1 v6only.test\n"
                          "10.0.0.2 both.test\n"
                          "2001:db8::2 both.test\n"
                          "10.0.0.3 end.test\n"
                          "2001:db8::3 end.test\n"
                          "10.0.0.9 www.test\n"
                          "10.0.0.7 inhosts.test\n";

static void expect_addr(const struct dnsenv_res *o, int i, const char *want)
{
    CHECK(i < o->naddr);
    if (strcmp(dnsenv_fmt(&o->addr[i]), want) != 0)
        FAIL("address %d is %s, want %s", i, dnsenv_fmt(&o->addr[i]), want);
}

int main(int argc, char **argv)
{
    dnsenv_enter(argc, argv);
    dnsenv_dnsmasq_start(zone, "c1.test,c2.test\nc2.test,end.test");
    dnsenv_write("hosts", "10.99.0.7 inhosts.test alias.test\n127.0.0.1 localhost\n");
    dnsenv_write("nsswitch.conf", "hosts: files dns\n");

    vigil_loop *loop = dnsenv_loop();
    vigil_resolver *r = dnsenv_resolver(loop, "resolv.conf",
                                        "nameserver 127.0.0.1\nsearch test\noptions ndots:1 timeout:5 attempts:1\n", NULL);

    struct dnsenv_res o = dnsenv_resolve(loop, r, "v4only.test", AF_INET, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 1);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_DNS);
    expect_addr(&o, 0, "10.0.0.1");

    o = dnsenv_resolve(loop, r, "v4only.test", AF_INET6, 0);
    CHECK_EQ(o.status, VIGIL_DNS_ENODATA);

    o = dnsenv_resolve(loop, r, "V6ONLY.test.", AF_INET6, 0); /* case and trailing dot */
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 1);
    expect_addr(&o, 0, "2001:db8::1");

    /* Both families: neither is routable in the namespace, so precedence decides
     * (IPv6's 40 over IPv4's 10), as getaddrinfo's RFC 6724 sort does. */
    o = dnsenv_resolve(loop, r, "both.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 2);
    expect_addr(&o, 0, "2001:db8::2");
    expect_addr(&o, 1, "10.0.0.2");

    o = dnsenv_resolve(loop, r, "c1.test", AF_INET, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 1);
    expect_addr(&o, 0, "10.0.0.3");
    if (strcmp(o.canon, "end.test") != 0)
        FAIL("canonical name of c1.test is %s, want end.test (the chain's end)", o.canon);

    o = dnsenv_resolve(loop, r, "nx.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, VIGIL_DNS_ENONAME);

    o = dnsenv_resolve(loop, r, "www", AF_INET, 0); /* no dot: the search list first */
    CHECK_EQ(o.status, 0);
    expect_addr(&o, 0, "10.0.0.9");

    o = dnsenv_resolve(loop, r, "inhosts.test", AF_INET, 0); /* files before dns */
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_HOSTS);
    CHECK_EQ(o.naddr, 1);
    expect_addr(&o, 0, "10.99.0.7");
    o = dnsenv_resolve(loop, r, "alias.test", AF_INET, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_HOSTS);
    if (strcmp(o.canon, "inhosts.test") != 0)
        FAIL("canonical name of a hosts alias is %s, want inhosts.test", o.canon);

    /* The cache: both.test was asked above (TTL 60 from dnsmasq). */
    struct vigil_resolver_stats st;
    o = dnsenv_resolve(loop, r, "both.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_CACHE);
    CHECK_EQ(o.naddr, 2);
    expect_addr(&o, 0, "2001:db8::2");
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.cache_hits, 2);
    uint64_t sent = st.queries_sent;
    o = dnsenv_resolve(loop, r, "both.test", AF_UNSPEC, VIGIL_RESOLVE_NO_CACHE);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_DNS);
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.queries_sent, sent + 2);

    /* A changed hosts file is read again (checked at most once a second). */
    dnsenv_write("hosts", "10.98.0.7 inhosts.test\n");
    struct timespec ts = {1, 100000000};
    nanosleep(&ts, NULL);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0); /* a new turn: a fresh clock */
    o = dnsenv_resolve(loop, r, "inhosts.test", AF_INET, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_HOSTS);
    expect_addr(&o, 0, "10.98.0.7");
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK(st.config_reloads >= 1);

    o = dnsenv_resolve(loop, r, "192.0.2.1", AF_UNSPEC, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.source, VIGIL_DNS_SOURCE_NUMERIC);
    expect_addr(&o, 0, "192.0.2.1");
    o = dnsenv_resolve(loop, r, "bad name!", AF_UNSPEC, 0);
    CHECK_EQ(o.status, -EINVAL);
    o = dnsenv_resolve(loop, r, "a..b", AF_UNSPEC, 0);
    CHECK_EQ(o.status, -EINVAL);

    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.dropped, 0);
    printf("lookups %llu, queries %llu, UDP sockets %llu\n", (unsigned long long)st.lookups,
           (unsigned long long)st.queries_sent, (unsigned long long)st.udp_sockets);
    CHECK_EQ(vigil_resolver_free(r), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0); /* the sockets' closes end */
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("ok\n");
    return 0;
}
