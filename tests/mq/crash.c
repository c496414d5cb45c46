/* Crash robustness: senders and receivers (separate processes sharing one queue) are
 * killed with SIGKILL at random points, thousands of times, and restarted. Every
 * message carries (sender, sequence, checksum) and is checked end to end:
 *   - no torn body (checksum), no duplicate (received at most once),
 *   - no acknowledged message lost, except at most one per killed receiver (the one it
 *     had dequeued -- the commit point -- but not yet recorded),
 *   - the queue is never left locked: after the killing stops, everything drains, and
 *     the queue's invariants hold (vigil__mq_check).
 * A sender records the sequence it attempts before sending and marks it acknowledged
 * after; a restarted sender goes on after the last attempted one (an attempted but
 * unacknowledged message may or may not arrive, once at most). */
#include "mqt.h"
#include "mq/mq_int.h"
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define NSEND 3
#define NRECV 3
#define MAXSEQ (1u << 20)
#define MSGSIZE 200
#define DEPTH 8
#define KILLS (getenv("MQ_CRASH_KILLS") ? atoi(getenv("MQ_CRASH_KILLS")) : 3000)

struct shared {
    atomic_uint attempted[NSEND]; /* last sequence a sender started to send (+1) */
    atomic_uint acked[NSEND];     /* highest acknowledged sequence */
    atomic_uchar ack[NSEND][MAXSEQ]; /* 1: that sequence was acknowledged */
    atomic_int stop_send, stop_recv;
    atomic_uint torn, dup, bogus;
    atomic_uchar count[NSEND][MAXSEQ];
};
static struct shared *sh;
static mqd_t q;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Message: sender u32, seq u32, len-dependent body, checksum u64 at the end. */
static size_t make_msg(char *m, unsigned s, unsigned seq)
{
    size_t len = 16 + (size_t)(mix((uint64_t)s << 32 | seq) % (MSGSIZE - 16));
    memcpy(m, &s, 4);
    memcpy(m + 4, &seq, 4);
    uint64_t h = mix(seq * 31u + s);
    for (size_t i = 8; i < len - 8; i++)
        m[i] = (char)(mix(h + i) & 0xff);
    uint64_t sum = 0;
    for (size_t i = 0; i < len - 8; i++)
        sum = sum * 1099511628211ULL + (unsigned char)m[i];
    memcpy(m + len - 8, &sum, 8);
    return len;
}

static int check_msg(const char *m, size_t len, unsigned *s, unsigned *seq)
{
    if (len < 16)
        return -1;
    memcpy(s, m, 4);
    memcpy(seq, m + 4, 4);
    if (*s >= NSEND || *seq == 0 || *seq >= MAXSEQ)
        return -1;
    char ref[MSGSIZE];
    size_t rl = make_msg(ref, *s, *seq);
    return rl == len && !memcmp(ref, m, len) ? 0 : -1;
}

static void sender(unsigned s)
{
    char m[MSGSIZE];
    srand((unsigned)getpid());
    while (!atomic_load(&sh->stop_send)) {
        unsigned seq = atomic_load(&sh->attempted[s]) + 1;
        if (seq >= MAXSEQ)
            break;
        atomic_store(&sh->attempted[s], seq);
        size_t len = make_msg(m, s, seq);
        for (;;) {
            int r;
            if (rand() % 4 == 0) {
                struct timespec t = mqt_in(200000);
                r = vigil_mq_timedsend(q, m, len, (unsigned)(mix(seq) % 4), &t);
            } else {
                r = vigil_mq_send(q, m, len, (unsigned)(mix(seq) % 4));
            }
            if (r == 0)
                break;
            if (errno != ETIMEDOUT) {
                fprintf(stderr, "sender: %s\n", strerror(errno));
                _exit(10);
            }
            if (atomic_load(&sh->stop_send))
                _exit(0);
        }
        atomic_store(&sh->ack[s][seq], 1);
        atomic_store(&sh->acked[s], seq);
    }
    _exit(0);
}

static void receiver(void)
{
    char m[MSGSIZE];
    for (;;) {
        struct timespec t = mqt_in(5000000);
        ssize_t n = vigil_mq_timedreceive(q, m, MSGSIZE, NULL, &t);
        if (n < 0) {
            if (errno != ETIMEDOUT) {
                fprintf(stderr, "receiver: %s\n", strerror(errno));
                _exit(11);
            }
            if (atomic_load(&sh->stop_recv))
                _exit(0);
            continue;
        }
        /* Record first (the window between the dequeue's commit and this store is
         * where a kill loses the message), verify after. */
        unsigned s, seq;
        memcpy(&s, m, 4);
        memcpy(&seq, m + 4, 4);
        if (n >= 16 && s < NSEND && seq > 0 && seq < MAXSEQ && atomic_fetch_add(&sh->count[s][seq], 1) != 0)
            atomic_fetch_add(&sh->dup, 1);
        if (check_msg(m, (size_t)n, &s, &seq) < 0)
            atomic_fetch_add(&sh->torn, 1);
    }
}

static pid_t spawn(int role)
{
    pid_t p = fork();
    if (p < 0) {
        perror("fork");
        exit(1);
    }
    if (p == 0) {
        if (role < NSEND)
            sender((unsigned)role);
        receiver();
    }
    return p;
}

int main(void)
{
    mqt_setup();
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED);
    q = mqt_create("/crash", DEPTH, MSGSIZE);
    pid_t kids[NSEND + NRECV];
    for (int i = 0; i < NSEND + NRECV; i++)
        kids[i] = spawn(i);
    unsigned recv_kills = 0, send_kills = 0;
    srand(4242);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int kills = 0;
    for (; kills < KILLS; kills++) {
        int i = rand() % (NSEND + NRECV);
        if (getenv("MQ_CRASH_ONLY_SEND"))
            i = rand() % NSEND;
        if (getenv("MQ_CRASH_ONLY_RECV"))
            i = NSEND + rand() % NRECV;
        usleep((useconds_t)(rand() % 300));
        kill(kids[i], SIGKILL);
        int st;
        CHECK_SYS(waitpid(kids[i], &st, 0));
        if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)) {
            /* A sender that reached MAXSEQ exits 0; anything else is a failure. */
            if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0 && i < NSEND)) {
                fprintf(stderr, "child %d (%s) ended with status %#x\n", i, i < NSEND ? "sender" : "receiver", st);
                exit(1);
            }
        }
        if (i < NSEND)
            send_kills++;
        else
            recv_kills++;
        kids[i] = spawn(i);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 60)
            break; /* a slow (sanitized, shared) machine: enough rounds done */
    }
    /* Stop the senders, then let the receivers drain the queue. */
    atomic_store(&sh->stop_send, 1);
    for (int i = 0; i < NSEND; i++) {
        int st;
        CHECK_SYS(waitpid(kids[i], &st, 0));
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    /* Stop the receivers, then drain what is left ourselves: a non-blocking receive
     * also settles records of receivers killed while holding a handed-off message. */
    atomic_store(&sh->stop_recv, 1);
    for (int i = NSEND; i < NSEND + NRECV; i++) {
        int st;
        CHECK_SYS(waitpid(kids[i], &st, 0));
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    struct vigil__mq *m = vigil__mq_get(q);
    CHECK_SYS(vigil_mq_setattr(q, &(struct mq_attr){.mq_flags = O_NONBLOCK}, NULL));
    for (;;) {
        char msg[MSGSIZE];
        ssize_t n = vigil_mq_receive(q, msg, MSGSIZE, NULL);
        if (n < 0) {
            CHECK_EQ(errno, EAGAIN);
            break;
        }
        unsigned s, seq;
        if (check_msg(msg, (size_t)n, &s, &seq) < 0)
            atomic_fetch_add(&sh->torn, 1);
        else if (atomic_fetch_add(&sh->count[s][seq], 1) != 0)
            atomic_fetch_add(&sh->dup, 1);
    }
    char why[200];
    if (vigil__mq_check(m, why, sizeof why) < 0) {
        fprintf(stderr, "invariant: %s\n", why);
        return 1;
    }
    unsigned long lost = 0, total = 0, unacked_arrived = 0;
    for (unsigned s = 0; s < NSEND; s++) {
        unsigned acked = atomic_load(&sh->acked[s]), att = atomic_load(&sh->attempted[s]);
        for (unsigned seq = 1; seq < MAXSEQ; seq++) {
            unsigned c = atomic_load(&sh->count[s][seq]);
            if (atomic_load(&sh->ack[s][seq])) {
                total++;
                if (!c) {
                    lost++;
                    if (getenv("MQ_CRASH_DEBUG") && lost < 40)
                        fprintf(stderr, "lost s%u seq %u (acked %u)\n", s, seq, acked);
                }
            } else if (c) {
                if (seq > att)
                    atomic_fetch_add(&sh->bogus, 1);
                unacked_arrived++;
            }
        }
    }
    printf("%d kills (%u senders, %u receivers), %lu acknowledged messages, %lu lost, "
           "%lu unacknowledged arrived, torn %u, dup %u, bogus %u\n",
           kills, send_kills, recv_kills, total, lost, unacked_arrived, atomic_load(&sh->torn),
           atomic_load(&sh->dup), atomic_load(&sh->bogus));
    CHECK_EQ(atomic_load(&sh->torn), 0);
    CHECK_EQ(atomic_load(&sh->dup), 0);
    CHECK_EQ(atomic_load(&sh->bogus), 0);
    CHECK(lost <= recv_kills);
    CHECK(total > 0);
    return 0;
}
