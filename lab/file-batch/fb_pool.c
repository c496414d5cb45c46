/* file-batch pool micro-benchmark: ns to take a request and give it back, in groups of
 * 32 (take 32, return 32), from vigil's pool (case "pool") and from malloc/free of a
 * request-sized block (case "malloc", system "glibc"). Alternated in rounds within this
 * one run; each round is one sample. */
#include "bench.h"

#include "vigil.h"

#define GROUP 32
#define ROUNDS 200

static double pool_round(vigil_loop *loop, long iters)
{
    vigil_file_req *v[GROUP];
    int64_t t0 = bench_now_ns();
    for (long i = 0; i < iters; i++) {
        for (int k = 0; k < GROUP; k++)
            v[k] = vigil_file_req_get(loop);
        for (int k = 0; k < GROUP; k++)
            vigil_file_req_put(loop, v[k]);
        __asm__ volatile("" ::: "memory");
    }
    return (double)(bench_now_ns() - t0) / (double)(iters * GROUP);
}

static double malloc_round(long iters)
{
    void *v[GROUP];
    int64_t t0 = bench_now_ns();
    for (long i = 0; i < iters; i++) {
        for (int k = 0; k < GROUP; k++) {
            /* calloc: the pool hands out zeroed requests too */
            v[k] = calloc(1, sizeof(vigil_file_req));
            __asm__ volatile("" : : "r"(v[k]) : "memory");
        }
        for (int k = 0; k < GROUP; k++)
            free(v[k]);
    }
    return (double)(bench_now_ns() - t0) / (double)(iters * GROUP);
}

int main(void)
{
    vigil_loop *loop;
    if (vigil_loop_new(&loop, NULL) < 0)
        return 1;
    long iters = bench_quick() ? 200 : 2000;
    static double p[ROUNDS], m[ROUNDS];
    pool_round(loop, iters); /* warm-up: the pool's first refills */
    malloc_round(iters);
    for (int r = 0; r < ROUNDS; r++) {
        if (r % 2) {
            p[r] = pool_round(loop, iters);
            m[r] = malloc_round(iters);
        } else {
            m[r] = malloc_round(iters);
            p[r] = pool_round(loop, iters);
        }
    }
    struct bench_stats sp = bench_stats(p, ROUNDS), sm = bench_stats(m, ROUNDS);
    bench_emit("file-batch", "vigil", "pool", "ns_per_op", sp.p50, &sp, "\"batch\":%d", GROUP);
    bench_emit("file-batch", "glibc", "malloc", "ns_per_op", sm.p50, &sm, "\"batch\":%d", GROUP);
    vigil_loop_free(loop);
    return 0;
}
