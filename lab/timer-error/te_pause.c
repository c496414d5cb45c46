/* timer-error, a measurement tool (not a benchmark series, run.py does not call it): does
 * a PAUSE in a clock-read spin cost this machine anything? vigil's precise mode ends a
 * wait with such a spin (src/loop/timer.c, vigil__timers_finish); in a VM a PAUSE loop
 * is what the hypervisor takes for a lock spin (Intel's Pause-Loop Exiting, AMD's pause
 * filter: a VM exit, after which KVM may yield the vCPU to another of the guest's).
 *
 *   te_pause [--us SPIN_US] [--n SPINS]
 *
 * Alternates spins of SPIN_US (default 200: precise mode's default budget, the longest
 * spin it makes) with and without a PAUSE after each clock read, and prints per kind:
 * clock reads per us, the spins in which two successive reads were more than 2 / 10 /
 * 50 us apart, how many of those the guest kernel explains (the thread was switched
 * out: voluntary or involuntary context switches went up during that spin), and the
 * largest gap. A gap the guest does not explain is time the vCPU itself lost (a VM
 * exit, the host running something else). Compare the two kinds, run alternately on the
 * same machine at the same time.
 */
#include "bench.h"

#include <stdbool.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define spin_pause() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define spin_pause() __asm__ __volatile__("yield")
#else
#define spin_pause() ((void)0)
#endif

static long switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

struct kind {
    const char *name;
    long spins, reads, gap2, gap10, gap50, explained;
    int64_t max_gap, spun_ns;
};

static void spin(struct kind *k, int64_t len_ns, bool pause)
{
    long sw0 = switches();
    int64_t start = bench_now_ns(), prev = start, end = start + len_ns, worst = 0;
    long reads = 0;
    for (;;) {
        int64_t x = bench_now_ns();
        reads++;
        if (x - prev > worst)
            worst = x - prev;
        prev = x;
        if (x >= end)
            break;
        if (pause)
            spin_pause();
    }
    bool explained = switches() != sw0;
    k->spins++;
    k->reads += reads;
    k->spun_ns += prev - start;
    if (worst > k->max_gap)
        k->max_gap = worst;
    if (worst > 2000) {
        k->gap2++;
        k->explained += explained;
    }
    k->gap10 += worst > 10000;
    k->gap50 += worst > 50000;
}

int main(int argc, char **argv)
{
    long us = 200, n = 2000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--us"))
            us = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = atol(argv[i + 1]);
    }
    struct kind k[2] = {{.name = "no pause"}, {.name = "pause"}};
    for (long i = 0; i < n; i++) {
        int first = (int)(i & 1); /* alternate which kind goes first */
        spin(&k[first], us * 1000, first == 1);
        spin(&k[!first], us * 1000, first == 0);
        usleep(300); /* the vCPU halts between spins, as between timer wake-ups */
    }
    printf("%-9s %6s %9s %8s %8s %8s %16s %10s\n", "spin", "spins", "reads/us", ">2us", ">10us", ">50us",
           ">2us w/ switch", "max gap us");
    for (int j = 0; j < 2; j++)
        printf("%-9s %6ld %9.1f %8ld %8ld %8ld %16ld %10.1f\n", k[j].name, k[j].spins,
               (double)k[j].reads * 1000.0 / (double)k[j].spun_ns, k[j].gap2, k[j].gap10, k[j].gap50,
               k[j].explained, (double)k[j].max_gap / 1000.0);
    return 0;
}
