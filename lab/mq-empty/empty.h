/* mq-empty: send then receive on an empty queue, 16-byte messages (the 2012 patch's
 * table: 305/288 ns old, 349/318 rbtree, 310/322 rbtree + node cache).
 *
 * Included once per system after that system's adapter (sys_<system>.h). Cases, taken
 * in turn inside one loop so they see the same machine:
 *   pair     BATCH x (send; receive) between two clock reads: ns per send+receive pair
 *            (the figure the targets use);
 *   send     BATCH sends into the empty queue (it holds BATCH), then
 *   receive  BATCH receives that empty it again: ns per send, ns per receive alone;
 *   clock_gettime (kernel program only) BATCH clock reads: what timing each call alone,
 *            as the selftest does, would add to every figure.
 * Each sample is one batch divided by BATCH; value = median over batches, p50/p99 too.
 * Each run prints one record per case with its histogram; run.py pools the rounds. */
#ifndef VIGIL_MQLAB_EMPTY_H
#define VIGIL_MQLAB_EMPTY_H

#define BATCH 64
#define MSG 16

static struct rounds_hist pair, snd, rcv;
#ifdef MQLAB_CLOCK_CASE
static struct rounds_hist clk;
#endif

static void emit(const char *cas, const struct rounds_hist *h)
{
    char keys[256], extra[64];
    snprintf(extra, sizeof extra, "\"msg_bytes\":%d,\"batch\":%d", MSG, BATCH);
    rounds_emit_hist(rounds_keys(keys, sizeof keys, "mq-empty", SYS_NAME, cas, extra), "ns_per_op", h, BATCH);
}

int main(int argc, char **argv)
{
    struct mqlab_opts o = mqlab_parse(argc, argv);
    struct sysq q;
    char buf[MSG];
    unsigned prio;

    memset(buf, 'm', sizeof buf);
    sys_setup(BATCH, MSG, 1);
    sys_create(&q, "empty", BATCH, MSG);

    /* Warm up: fault in the queue's pages and the code. */
    for (int i = 0; i < 1000; i++)
        if (sys_send(&q, buf, MSG, 0) != 0 || sys_receive(&q, buf, MSG, &prio) != MSG)
            mqlab_die("warm-up send/receive");

    int64_t end = bench_now_ns() + (int64_t)(o.seconds * 1e9);
    int64_t t0, t1, t2;
    do {
        t0 = bench_now_ns();
        for (int i = 0; i < BATCH; i++) {
            if (sys_send(&q, buf, MSG, 0) != 0)
                mqlab_die("send");
            if (sys_receive(&q, buf, MSG, &prio) != MSG)
                mqlab_die("receive");
        }
        t1 = bench_now_ns();
        rounds_hist_add(&pair, t1 - t0);

        t0 = bench_now_ns();
        for (int i = 0; i < BATCH; i++)
            if (sys_send(&q, buf, MSG, 0) != 0)
                mqlab_die("send");
        t1 = bench_now_ns();
        for (int i = 0; i < BATCH; i++)
            if (sys_receive(&q, buf, MSG, &prio) != MSG)
                mqlab_die("receive");
        t2 = bench_now_ns();
        rounds_hist_add(&snd, t1 - t0);
        rounds_hist_add(&rcv, t2 - t1);

#ifdef MQLAB_CLOCK_CASE
        volatile int64_t sink = 0;
        t0 = bench_now_ns();
        for (int i = 0; i < BATCH; i++)
            sink += bench_now_ns();
        t1 = bench_now_ns();
        (void)sink;
        rounds_hist_add(&clk, t1 - t0);
#endif
    } while (t2 < end);

    sys_destroy(&q);
    emit("pair", &pair);
    emit("send", &snd);
    emit("receive", &rcv);
#ifdef MQLAB_CLOCK_CASE
    emit("clock_gettime", &clk);
#endif
    return 0;
}

#endif
