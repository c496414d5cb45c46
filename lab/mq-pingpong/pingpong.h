/* mq-pingpong: two processes (fork), blocking round trips over two queues of DEPTH
 * messages: the parent sends on `ping` and waits on `pong`, the child echoes. One clock
 * read per round trip (a round trip is microseconds; a read is ~30 ns).
 * Records, per message size (--msg-bytes: 16, 4096, 65536):
 *   rtt_us      value = p50 over round trips, p50/p99 keys;
 *   msgs_per_s  messages delivered per second, counting both directions
 *               (2 / mean round trip).
 * With --cpu N the parent runs on CPU N and the echo on the next CPU: a cross-core round
 * trip every time (bench.py alternates N between rounds).
 *
 * Included once per system after that system's adapter (sys_<system>.h). */
#ifndef VIGIL_MQLAB_PINGPONG_H
#define VIGIL_MQLAB_PINGPONG_H

#define DEPTH 4 /* kernel queues for ping-pong stay at 4 or fewer messages */
#define WARMUP 500 /* round trips, or 0.1 s if that comes first */

static void child_echo(struct sysq *ping, struct sysq *pong, char *buf, long size, int cpu)
{
    unsigned prio;
    if (cpu >= 0) {
        /* The echo runs on the other CPU: a cross-core round trip, as deterministic as
         * the placement can be (unpinned, the scheduler sometimes keeps both processes on
         * one CPU and sometimes not, and the figures of every system change 2x with it). */
        cpu_set_t set;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        CPU_ZERO(&set);
        CPU_SET(ncpu > 1 ? (cpu + 1) % (int)ncpu : cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            fprintf(stderr, "mqlab: cannot pin the echo process (%s)\n", strerror(errno));
    }
    sys_child(ping);
    sys_child(pong);
    for (;;) {
        long got = sys_receive(ping, buf, (size_t)size, &prio);
        if (got < 1)
            mqlab_die("child receive");
        if (buf[0] == 'q')
            _exit(0);
        if (sys_send(pong, buf, (size_t)got, 0) != 0)
            mqlab_die("child send");
    }
}

int main(int argc, char **argv)
{
    struct mqlab_opts o = mqlab_parse(argc, argv);
    static struct rounds_hist rtt;
    struct sysq ping, pong;
    long size = o.msg_bytes;
    unsigned prio;
    char *buf = (char *)malloc((size_t)size);

    if (!buf)
        mqlab_die("malloc");
    memset(buf, 'p', (size_t)size);
    sys_setup(DEPTH, size, 2);
    sys_create(&ping, "ping", DEPTH, size);
    sys_create(&pong, "pong", DEPTH, size);

    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        mqlab_die("fork");
    if (pid == 0)
        child_echo(&ping, &pong, buf, size, o.cpu);

    int64_t warm_end = bench_now_ns() + 100000000;
    for (int i = 0; i < WARMUP && bench_now_ns() < warm_end; i++)
        if (sys_send(&ping, buf, (size_t)size, 0) != 0 || sys_receive(&pong, buf, (size_t)size, &prio) != size)
            mqlab_die("warm-up round trip");

    int64_t end = bench_now_ns() + (int64_t)(o.seconds * 1e9);
    int64_t t0 = bench_now_ns(), t1;
    do {
        if (sys_send(&ping, buf, (size_t)size, 0) != 0)
            mqlab_die("send");
        if (sys_receive(&pong, buf, (size_t)size, &prio) != size)
            mqlab_die("receive");
        t1 = bench_now_ns();
        rounds_hist_add(&rtt, t1 - t0);
        t0 = t1;
    } while (t1 < end);

    buf[0] = 'q';
    if (sys_send(&ping, buf, 1, 0) != 0)
        mqlab_die("send quit");
    int status;
    waitpid(pid, &status, 0);
    sys_destroy(&ping);
    sys_destroy(&pong);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "mqlab: echo child failed\n");
        return 1;
    }

    /* rtt_us: every round trip (ns / 1000); msgs_per_s: both directions, over the
     * round trips' total time, 2 / mean round trip once the rounds are pooled */
    char keys[256], extra[64];
    snprintf(extra, sizeof extra, "\"msg_bytes\":%ld,\"depth\":%d", size, DEPTH);
    rounds_keys(keys, sizeof keys, "mq-pingpong", SYS_NAME, "round trip", extra);
    rounds_emit_hist(keys, "rtt_us", &rtt, 1000);
    rounds_emit_total(keys, "msgs_per_s", 2.0 * (double)rtt.n, rtt.sum / 1e9);
    free(buf);
    return 0;
}

#endif
