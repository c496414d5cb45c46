/* The resolver against servers that misbehave (the test's own responder, dnsenv.h):
 * one that never answers (timeout, then the next server answers), SERVFAIL (an error of
 * its own; then the next server), a truncated answer (asked again over TCP, the answer
 * arriving a byte at a time), replies with the wrong id, from the wrong address and for
 * another name (each dropped and counted, the right one accepted). And the ends: a
 * lookup cancelled, resolver_free and loop_free with lookups in flight, a lookup after
 * the loop is gone. */
#include "dnsenv.h"

static vigil_resolver *make(vigil_loop *loop, const char *conf_name, const char *conf, uint32_t flags)
{
    struct vigil_resolver_options opt;
    vigil_resolver_options_init(&opt);
    opt.flags = flags;
    return dnsenv_resolver(loop, conf_name, conf, &opt);
}

static int ended, ended_status;
static void count_cb(vigil_loop *loop, vigil_lookup *lk, int status, const struct vigil_dns_result *res)
{
    (void)loop;
    (void)lk;
    CHECK(res != NULL);
    ended++;
    ended_status = status;
}

int main(int argc, char **argv)
{
    dnsenv_enter(argc, argv);
    dnsenv_dnsmasq_start("10.0.0.1 a.test\n", NULL);
    dnsenv_responder_start();
    dnsenv_write("hosts", "");
    dnsenv_write("nsswitch.conf", "hosts: dns\n");
    vigil_loop *loop = dnsenv_loop();
    struct vigil_resolver_stats st;

    /* A server that never answers: after its timeout (1 s) the next one answers. */
    vigil_resolver *r = make(loop, "r1.conf", "nameserver 127.0.0.2\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n",
                             VIGIL_RESOLVER_NO_CACHE);
    struct dnsenv_res o = dnsenv_resolve(loop, r, "a.test", AF_INET, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 1);
    CHECK(strcmp(dnsenv_fmt(&o.addr[0]), "10.0.0.1") == 0);
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.timeouts, 1);
    CHECK_EQ(st.queries_sent, 2);
    CHECK_EQ(vigil_resolver_free(r), 0);

    /* Only that server: the lookup times out. */
    r = make(loop, "r2.conf", "nameserver 127.0.0.2\noptions timeout:1 attempts:2\n", 0);
    o = dnsenv_resolve(loop, r, "a.test", AF_INET, 0);
    CHECK_EQ(o.status, -ETIMEDOUT);
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.timeouts, 2); /* attempts: 2 */
    CHECK_EQ(vigil_resolver_free(r), 0);

    /* SERVFAIL alone: its own error; SERVFAIL then a good server: the answer. */
    r = make(loop, "r3.conf", "nameserver 127.0.0.6\noptions timeout:5 attempts:1\n", 0);
    o = dnsenv_resolve(loop, r, "a.test", AF_UNSPEC, 0);
    CHECK_EQ(o.status, VIGIL_DNS_ESERVFAIL);
    CHECK_EQ(vigil_resolver_free(r), 0);
    r = make(loop, "r4.conf", "nameserver 127.0.0.6\nnameserver 127.0.0.1\noptions timeout:5 attempts:1\n", 0);
    o = dnsenv_resolve(loop, r, "a.test", AF_INET, 0);
    CHECK_EQ(o.status, 0);
    CHECK(strcmp(dnsenv_fmt(&o.addr[0]), "10.0.0.1") == 0);
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.timeouts, 0);
    CHECK_EQ(vigil_resolver_free(r), 0);

    /* Truncated over UDP: asked again over TCP. */
    r = make(loop, "r5.conf", "nameserver 127.0.0.5\noptions timeout:5 attempts:1\n", 0);
    o = dnsenv_resolve(loop, r, "t.test", AF_INET, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 1);
    CHECK(strcmp(dnsenv_fmt(&o.addr[0]), "10.5.5.5") == 0);
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    CHECK_EQ(st.tcp_queries, 1);
    CHECK_EQ(vigil_resolver_free(r), 0);

    /* Wrong id, wrong address, wrong name: dropped and counted, the right one taken. */
    r = make(loop, "r6.conf", "nameserver 127.0.0.3\noptions timeout:5 attempts:1\n", 0);
    o = dnsenv_resolve(loop, r, "s.test", AF_INET, 0);
    CHECK_EQ(o.status, 0);
    CHECK_EQ(o.naddr, 1);
    CHECK(strcmp(dnsenv_fmt(&o.addr[0]), "10.3.3.3") == 0);
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    printf("dropped: id %llu, address %llu, question %llu\n", (unsigned long long)st.dropped_id,
           (unsigned long long)st.dropped_addr, (unsigned long long)st.dropped_question);
    CHECK_EQ(st.dropped_id, 1);
    CHECK_EQ(st.dropped_addr, 1);
    CHECK_EQ(st.dropped_question, 1);
    CHECK_EQ(st.dropped, 3);
    CHECK_EQ(vigil_resolver_free(r), 0);

    /* Cancel: the callback runs once, later, with -ECANCELED. */
    r = make(loop, "r7.conf", "nameserver 127.0.0.2\noptions timeout:30 attempts:1\n", 0);
    vigil_lookup lk = {0};
    ended = 0;
    CHECK_EQ(vigil_resolve(r, &lk, "a.test", AF_UNSPEC, 0, count_cb), 0);
    CHECK_EQ(vigil_resolve(r, &lk, "a.test", AF_UNSPEC, 0, count_cb), -EBUSY);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(vigil_resolve_cancel(r, &lk), 0);
    CHECK_EQ(ended, 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(ended, 1);
    CHECK_EQ(ended_status, -ECANCELED);
    CHECK_EQ(vigil_resolve_cancel(r, &lk), -ENOENT);

    /* vigil_resolver_free with a lookup in flight: it ends inside the call. */
    ended = 0;
    CHECK_EQ(vigil_resolve(r, &lk, "a.test", AF_UNSPEC, 0, count_cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(vigil_resolver_free(r), 0);
    CHECK_EQ(ended, 1);
    CHECK_EQ(ended_status, -ECANCELED);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);

    /* vigil_loop_free with a lookup in flight: -ECANCELED; then lookups are refused. */
    loop = dnsenv_loop();
    r = make(loop, "r8.conf", "nameserver 127.0.0.2\noptions timeout:30 attempts:1\n", 0);
    ended = 0;
    vigil_lookup lk2 = {0};
    CHECK_EQ(vigil_resolve(r, &lk, "a.test", AF_INET, 0, count_cb), 0);
    CHECK_EQ(vigil_resolve(r, &lk2, "b.test", AF_INET6, 0, count_cb), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(ended, 2);
    CHECK_EQ(ended_status, -ECANCELED);
    CHECK_EQ(vigil_resolve(r, &lk, "a.test", AF_INET, 0, count_cb), -ECANCELED);
    CHECK_EQ(vigil_resolver_free(r), 0);
    CHECK_EQ(ended, 2);
    printf("ok\n");
    return 0;
}
