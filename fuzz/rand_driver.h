/* The random drivers of the sockets harnesses (net_driver.c for net_fuzz.c, conn_driver.c
 * for conn_fuzz.c) where libFuzzer is not available (gcc, ctest's <h>.<backend>): both
 * replay the kept inputs, then run random inputs of [config byte][4-byte records] from a
 * fixed seed, each on the backend VIGIL_BACKEND names (the input's bits 0-1). What
 * differs -- how an operation is picked and what the end reports -- is the harness's
 * struct rand_harness.
 *
 * Environment: VIGIL_BACKEND (uring|epoll|poll), VIGIL_FUZZ_ROUNDS (default 2000),
 * VIGIL_FUZZ_SEED, VIGIL_FUZZ_SAVE=path (each input is written there before it runs, so
 * the one that fails is left behind: replay it with `<driver> path`). At most 60 s of
 * random inputs on a slow machine. */
#ifndef VIGIL_FUZZ_RAND_DRIVER_H
#define VIGIL_FUZZ_RAND_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rand.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* RAND_KEPT: the driver's kept inputs, ':'-separated paths (the build defines it:
 * tests/net/CMakeLists.txt); none without it. */
#ifndef RAND_KEPT
#define RAND_KEPT NULL
#endif

struct rand_harness {
    const char *kept;                                /* ':'-separated kept paths (NULL: none) */
    size_t max_ops;                                  /* records per input at most */
    const uint8_t *weight;                           /* [16]: how often each op % 16 is drawn */
    void (*tweak)(uint8_t rec[4], uint64_t v);       /* may reshape a drawn record (or NULL) */
    int (*report)(long inputs, const char *backend); /* prints the totals; 0 if they are enough */
};

static int rand_backend_bits = -1; /* VIGIL_BACKEND as the input's bits 0-1, or -1 */

static void rand_run(uint8_t *in, size_t n)
{
    if (rand_backend_bits >= 0 && n > 0)
        in[0] = (uint8_t)((in[0] & ~3u) | (unsigned)rand_backend_bits);
    const char *save = getenv("VIGIL_FUZZ_SAVE");
    if (save) {
        FILE *f = fopen(save, "wb");
        if (f) {
            fwrite(in, 1, n, f);
            fclose(f);
        }
    }
    LLVMFuzzerTestOneInput(in, n);
}

static int rand_drive(const struct rand_harness *h, int argc, char **argv)
{
    const char *b = getenv("VIGIL_BACKEND");
    if (b && !strcmp(b, "uring"))
        rand_backend_bits = 0;
    else if (b && !strcmp(b, "epoll"))
        rand_backend_bits = 1;
    else if (b && !strcmp(b, "poll"))
        rand_backend_bits = 2;
    long replayed = 0;
    if (argc > 1) {
        for (int a = 1; a < argc; a++)
            replayed += fuzz_replay(argv[a], rand_run, 0);
    } else if (h->kept) {
        char kept[8192];
        snprintf(kept, sizeof kept, "%s", h->kept);
        for (char *save = NULL, *p = strtok_r(kept, ":", &save); p; p = strtok_r(NULL, ":", &save))
            replayed += fuzz_replay(p, rand_run, 1);
    }
    printf("%ld kept inputs replayed\n", replayed);
    const char *e = getenv("VIGIL_FUZZ_ROUNDS");
    long rounds = e ? atol(e) : 2000;
    const char *seed = getenv("VIGIL_FUZZ_SEED");
    fuzz_rng = seed && atoll(seed) ? (uint64_t)atoll(seed) : 0x2545F4914F6CDD1DULL;
    uint8_t *in = malloc(1 + 4 * h->max_ops);
    if (!in)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long i = 0;
    for (; i < rounds; i++) {
        size_t n = 8 + fuzz_rand() % (h->max_ops - 7);
        in[0] = (uint8_t)fuzz_rand();
        for (size_t k = 0; k < n; k++) {
            uint64_t v = fuzz_rand();
            uint8_t *r = in + 1 + 4 * k;
            r[0] = (uint8_t)fuzz_pick(h->weight, 16, v);
            r[1] = (uint8_t)(v >> 8);
            r[2] = (uint8_t)(v >> 16);
            r[3] = (uint8_t)(v >> 24);
            if (h->tweak)
                h->tweak(r, v);
        }
        rand_run(in, 1 + 4 * n);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (t1.tv_sec - t0.tv_sec > 60)
            break; /* enough on a slow machine */
    }
    free(in);
    return h->report(i, b ? b : "(each input's own)");
}

#endif
