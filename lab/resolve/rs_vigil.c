/* lab/resolve: vigil's resolver, its cache off (each name once per run, as the peers). */
#include "rs.h"

#include <vigil.h>

static struct rs R;
static vigil_resolver *res;
static vigil_lookup *lks;

static void start(vigil_loop *loop, int slot);

static void done(vigil_loop *loop, vigil_lookup *lk, int status, const struct vigil_dns_result *out)
{
    int i = (int)(intptr_t)lk->data;
    rs_end(&R, i, status == 0, status == 0 ? (int)out->naddr : 0);
    if (status != 0 && R.failed <= 5)
        fprintf(stderr, "vigil: %s\n", vigil_dns_strerror(status));
    start(loop, (int)(lk - lks));
}

static void start(vigil_loop *loop, int slot)
{
    (void)loop;
    if (R.next >= R.names)
        return;
    int i = R.next++;
    char name[64];
    rs_name(i, name, sizeof name);
    lks[slot].data = (void *)(intptr_t)i;
    R.start_ns[i] = bench_now_ns();
    int e = vigil_resolve(res, &lks[slot], name, AF_UNSPEC, 0, done);
    if (e < 0) {
        fprintf(stderr, "vigil_resolve: %d\n", e);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    rs_args(&R, argc, argv, "vigil");
    vigil_loop *loop;
    if (vigil_loop_new(&loop, NULL) < 0)
        return 1;
    R.backend = vigil_loop_backend(loop);
    struct vigil_resolver_options opt;
    vigil_resolver_options_init(&opt);
    opt.flags = VIGIL_RESOLVER_NO_CACHE;
    if (vigil_resolver_new(loop, &res, &opt) < 0)
        return 1;
    lks = calloc((size_t)R.inflight, sizeof *lks);
    rs_begin(&R);
    for (int s = 0; s < R.inflight; s++)
        start(loop, s);
    while (R.done < R.names)
        if (vigil_loop_run(loop, VIGIL_RUN_ONCE) < 0)
            return 1;
    int rc = rs_report(&R);
    struct vigil_resolver_stats st;
    vigil_resolver_stats_get(res, &st);
    fprintf(stderr, "vigil: %llu questions, %llu timeouts, %llu dropped (id %llu), %llu UDP sockets\n",
            (unsigned long long)st.queries_sent, (unsigned long long)st.timeouts, (unsigned long long)st.dropped,
            (unsigned long long)st.dropped_id, (unsigned long long)st.udp_sockets);
    vigil_resolver_free(res);
    vigil_loop_free(loop);
    return rc;
}
