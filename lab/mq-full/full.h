/* mq-full: a queue of `depth` messages filled to depth - 1, then send+receive pairs with
 * constant, rising, falling or random priorities: the kernel selftest mq_perf_tests'
 * test #2 (2a-2d), where the fill uses the same priority sequence as the timed pairs.
 * 16-byte messages. Each sample is BATCH pairs between two clock reads, divided by
 * BATCH; value = median over batches (ns per send+receive), p50/p99 too. Each run prints
 * one record with its histogram; run.py pools the rounds.
 *
 * Included once per system after that system's adapter (sys_<system>.h). */
#ifndef VIGIL_MQLAB_FULL_H
#define VIGIL_MQLAB_FULL_H

#define BATCH 64
#define MSG 16

int main(int argc, char **argv)
{
    struct mqlab_opts o = mqlab_parse(argc, argv);
    static struct rounds_hist pairs;
    struct mqlab_prio pat = mqlab_prio_init(mqlab_pattern_of(o.pattern));
    struct sysq q;
    char buf[MSG];
    unsigned prio;
    long got;

    memset(buf, 'f', sizeof buf);
    sys_setup(o.depth, MSG, 1);
    sys_create(&q, "full", o.depth, MSG);

    int64_t t0 = bench_now_ns();
    for (long i = 0; i < o.depth - 1; i++)
        if (sys_send(&q, buf, MSG, mqlab_prio_next(&pat)) != 0)
            mqlab_die("fill send");
    fprintf(stderr, "%s depth %ld %s: filled in %.1f ms\n", SYS_NAME, o.depth, o.pattern,
            (double)(bench_now_ns() - t0) / 1e6);

    int64_t end = bench_now_ns() + (int64_t)(o.seconds * 1e9);
    int64_t t1;
    unsigned last = 0;
    do {
        t0 = bench_now_ns();
        for (int i = 0; i < BATCH; i++) {
            if (sys_send(&q, buf, MSG, mqlab_prio_next(&pat)) != 0)
                mqlab_die("send");
            if ((got = sys_receive(&q, buf, MSG, &prio)) != MSG)
                mqlab_die("receive");
            last ^= prio;
        }
        t1 = bench_now_ns();
        rounds_hist_add(&pairs, t1 - t0);
    } while (t1 < end);
    (void)last;
    sys_destroy(&q);

    char keys[256], extra[128];
    snprintf(extra, sizeof extra, "\"depth\":%ld,\"pattern\":\"%s\",\"msg_bytes\":%d,\"batch\":%d", o.depth, o.pattern,
             MSG, BATCH);
    rounds_emit_hist(rounds_keys(keys, sizeof keys, "mq-full", SYS_NAME, "send+receive", extra), "ns_per_op", &pairs,
                     BATCH);
    return 0;
}

#endif
