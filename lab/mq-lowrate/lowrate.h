/* mq-lowrate: what a receiver that waits on a quiet queue costs. Two processes (fork):
 * the child sends a 16-byte message every --gap-us microseconds (50, 200, 1000, 10000),
 * paced by absolute deadlines on its own CPU; the parent, pinned to the other CPU,
 * blocks in receive and measures its own thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
 * over batches of messages (about 20 ms of messages each, at least one message).
 * Record per gap: cpu_ns_per_msg, value = p50 over batches, with p50/p99 keys; the
 * samples of every round are pooled by run.py (lab/common/rounds.h). And, over the same
 * batches, sleeps_per_msg: the receiver thread's voluntary context switches per message
 * (getrusage RUSAGE_THREAD, read outside the CPU-time window): ~1 for a receiver that
 * sleeps for every message, less for one that spins and catches some without sleeping
 * (a spin's sched_yield is not a voluntary switch). A count the machine's noise does not
 * move, which tells a receiver that spins from one that pays more per sleep.
 * With --cpu N the receiver runs on CPU N and the sender on the next one.
 *
 * The sender sleeps (clock_nanosleep, timer slack 1 ns) to 100 us before each deadline
 * and polls the clock for the rest, so the gaps are what they say whatever the timer's
 * wake-up latency; its CPU is not measured.
 *
 * Included once per system after that system's adapter (sys_<system>.h). */
#ifndef VIGIL_MQLAB_LOWRATE_H
#define VIGIL_MQLAB_LOWRATE_H

#include <sys/prctl.h>
#include <sys/resource.h>

#define DEPTH 8
#define MSG 16
#define WARMUP_MSGS 20
#define BATCH_NS 20000000L /* a CPU-time sample spans about this many ns of messages */

static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fprintf(stderr, "mqlab: cannot pin to CPU %d (%s)\n", cpu, strerror(errno));
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Voluntary context switches of the calling thread so far (its sleeps). */
static long thread_sleeps(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return ru.ru_nvcsw;
}

static void sender(struct sysq *q, long gap_ns, long total)
{
    char msg[MSG];
    memset(msg, 's', sizeof msg);
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    sys_child(q);
    int64_t next = bench_now_ns() + gap_ns;
    for (long i = 0; i < total; i++) {
        int64_t wake = next - 100000;
        if (wake > bench_now_ns()) {
            struct timespec ts;
            ts.tv_sec = (time_t)(wake / 1000000000);
            ts.tv_nsec = (long)(wake % 1000000000);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
        }
        while (bench_now_ns() < next)
            ;
        if (sys_send(q, msg, sizeof msg, 0) != 0)
            mqlab_die("sender send");
        next += gap_ns;
    }
    _exit(0);
}

static long opt_gap_us(int argc, char **argv)
{
    /* mqlab_parse knows the common flags; --gap-us is this benchmark's own, removed
     * from argv before it parses. */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--gap-us"))
            return atol(argv[i + 1]);
    return 1000;
}

int main(int argc, char **argv)
{
    long gap_us = opt_gap_us(argc, argv);
    char *args[64];
    int n = 0;
    for (int i = 0; i < argc && n < 63; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--gap-us")) {
            i++;
            continue;
        }
        args[n++] = argv[i];
    }
    args[n] = NULL;
    struct mqlab_opts o = mqlab_parse(n, args);
    if (gap_us < 1) {
        fprintf(stderr, "mqlab: bad --gap-us\n");
        return 2;
    }
    long gap_ns = gap_us * 1000;
    long measured = (long)(o.seconds * 1e9 / (double)gap_ns);
    if (measured < 1)
        measured = 1;
    long batch = BATCH_NS / gap_ns;
    if (batch < 1)
        batch = 1;
    long total = WARMUP_MSGS + measured;
    struct rounds_samples cpu = {0, 0, 0}, sleeps = {0, 0, 0};
    struct sysq q;
    char buf[MSG];
    unsigned prio;

    sys_setup(DEPTH, MSG, 1);
    sys_create(&q, "lowrate", DEPTH, MSG);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        mqlab_die("fork");
    if (pid == 0) {
        pin(o.cpu >= 0 ? (o.cpu + 1) % (int)sysconf(_SC_NPROCESSORS_ONLN) : -1);
        sender(&q, gap_ns, total);
    }
    pin(o.cpu);
    for (long i = 0; i < WARMUP_MSGS; i++)
        if (sys_receive(&q, buf, sizeof buf, &prio) != MSG)
            mqlab_die("warm-up receive");
    long got = 0;
    while (got < measured) {
        long k = batch < measured - got ? batch : measured - got;
        long s0 = thread_sleeps();
        int64_t c0 = thread_cpu_ns();
        for (long i = 0; i < k; i++)
            if (sys_receive(&q, buf, sizeof buf, &prio) != MSG)
                mqlab_die("receive");
        int64_t c1 = thread_cpu_ns();
        long s1 = thread_sleeps();
        rounds_add(&cpu, (double)(c1 - c0) / (double)k);
        rounds_add(&sleeps, (double)(s1 - s0) / (double)k);
        got += k;
    }
    int status;
    waitpid(pid, &status, 0);
    sys_destroy(&q);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "mqlab: sender child failed\n");
        return 1;
    }
    /* cpu_ns_per_msg: one sample per batch of about BATCH_NS of messages; run.py pools
     * the rounds' samples (lab/common/rounds.h) */
    char keys[256], extra[128];
    snprintf(extra, sizeof extra, "\"gap_us\":%ld,\"msg_bytes\":%d,\"depth\":%d,\"batch\":%ld", gap_us, MSG, DEPTH,
             batch);
    rounds_keys(keys, sizeof keys, "mq-lowrate", SYS_NAME, "blocking receive", extra);
    rounds_emit_samples(keys, "cpu_ns_per_msg", &cpu);
    rounds_emit_samples(keys, "sleeps_per_msg", &sleeps);
    free(cpu.v);
    free(sleeps.v);
    return 0;
}

#endif
