/* 300 lookups in flight at once on one resolver whose UDP sockets carry 4 questions each:
 * every answer reaches its own lookup (ids and sockets never mixed up), sockets are
 * retired and replaced (fresh random ports), the loop's active count is balanced at the
 * end (vigil_loop_run(DEFAULT) returns once the last lookup ended and the retired sockets
 * closed), and nothing was dropped. Then the same names with the cache on: all from it. */
#include "dnsenv.h"

#define N 300

static struct dnsenv_res res[N];
static vigil_lookup lks[N];

int main(int argc, char **argv)
{
    dnsenv_enter(argc, argv);
    static char zone[N * 40];
    size_t zl = 0;
    for (int i = 0; i < N; i++)
        zl += (size_t)snprintf(zone + zl, sizeof zone - zl, "10.1.%d.%d p%d.test\n", i / 250, i % 250 + 1, i);
    dnsenv_dnsmasq_start(zone, NULL);
    dnsenv_write("hosts", "");
    dnsenv_write("nsswitch.conf", "hosts: files dns\n");
    vigil_loop *loop = dnsenv_loop();
    struct vigil_resolver_options opt;
    vigil_resolver_options_init(&opt);
    opt.udp_max_queries = 4;
    vigil_resolver *r = dnsenv_resolver(loop, "resolv.conf", "nameserver 127.0.0.1\noptions timeout:5 attempts:2\n", &opt);
    for (int round = 0; round < 2; round++) {
        memset(res, 0, sizeof res);
        for (int i = 0; i < N; i++) {
            char name[32];
            snprintf(name, sizeof name, "p%d.test", i);
            lks[i].data = &res[i];
            CHECK_EQ(vigil_resolve(r, &lks[i], name, AF_INET, 0, dnsenv_cb), 0);
        }
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
        for (int i = 0; i < N; i++) {
            char want[32];
            snprintf(want, sizeof want, "10.1.%d.%d", i / 250, i % 250 + 1);
            CHECK_EQ(res[i].done, 1);
            CHECK_EQ(res[i].status, 0);
            CHECK_EQ(res[i].naddr, 1);
            if (strcmp(dnsenv_fmt(&res[i].addr[0]), want) != 0)
                FAIL("p%d.test got %s, want %s", i, dnsenv_fmt(&res[i].addr[0]), want);
            CHECK_EQ(res[i].source, round == 0 ? VIGIL_DNS_SOURCE_DNS : VIGIL_DNS_SOURCE_CACHE);
        }
    }
    struct vigil_resolver_stats st;
    CHECK_EQ(vigil_resolver_stats_get(r, &st), 0);
    printf("%llu questions on %llu UDP sockets, %llu timeouts, %llu dropped\n", (unsigned long long)st.queries_sent,
           (unsigned long long)st.udp_sockets, (unsigned long long)st.timeouts, (unsigned long long)st.dropped);
    CHECK(st.udp_sockets >= N / 4);
    CHECK_EQ(st.cache_hits, N);
    CHECK_EQ(st.dropped, 0);
    CHECK_EQ(vigil_resolver_free(r), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    printf("ok\n");
    return 0;
}
