/* Every backend against level-triggered readiness, turn by turn.
 *
 * 64 AF_UNIX stream pairs; the loop watches side A of each (up to two watchers per fd,
 * each with its own mask). Random steps start, widen, narrow and stop watchers, make A
 * readable (a write to B), not readable (drain A), not writable (fill A's send
 * direction), writable again (drain B), hung up (close B), and close and recreate pairs
 * (fd numbers come back, sometimes with A and B swapped). After each step the oracle is
 * poll() with timeout 0 on every watched A; then exactly one vigil_loop_run(NOWAIT):
 *   LOST     a watcher whose fd is ready for bits of its mask got no callback;
 *   PARTIAL  it got one, without every ready bit of its mask (a late or partial event);
 *   DOUBLE   more than one callback for one watcher in one turn;
 *   SPURIOUS a callback bit poll() did not report (a fault on epoll and poll, which must
 *            match exactly; counted and reported on io_uring);
 *   HUP-LATE on io_uring only, a PARTIAL that lacks only ERR/HUP: the fd's poll fired for
 *            another bit, then the peer hung up before the turn (documented in vigil/loop.h;
 *            counted and reported, and a fault on epoll and poll);
 *   ERROR    revents < 0 (no registration here can fail), or a callback to a watcher
 *            that was not started.
 * Callbacks only record; every change happens between turns, so the oracle taken just
 * before the turn is the truth for the whole turn.
 *
 * Environment: VIGIL_TEST_SEED (replays a run; printed at start), VIGIL_TEST_STEPS
 * (default 20000), VIGIL_TEST_KEEP_GOING=1 (count every fault instead of stopping at
 * the first; exit 1 at the end if any), VIGIL_TEST_VERBOSE=1 (print every fault).
 */
#include "vt.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NPAIRS 64
#define NW 2    /* watchers per fd */
#define HIST 12 /* operations kept per pair for the failure report */
#define SNDBUF 16384

enum op {
    OP_START, OP_MODIFY, OP_STOP, OP_WRITE_B, OP_DRAIN_A, OP_READ_A, OP_FILL_A, OP_DRAIN_B, OP_READ_B,
    OP_RECREATE, OP_CLOSE_B, OP_NOTHING, OP_N
};
static const char *const op_name[OP_N] = {
    "start", "modify", "stop", "write B", "drain A", "read A", "fill A", "drain B", "read B",
    "recreate", "close B", "nothing",
};
/* Relative weights of the operations. */
static const int op_weight[OP_N] = {14, 14, 8, 14, 10, 5, 8, 8, 4, 3, 1, 3};

struct hist {
    long step;
    uint8_t op, w;
    int32_t arg;    /* mask, byte count asked */
    int32_t res;    /* bytes moved, or the fd numbers after recreate */
    uint32_t ready; /* what poll() said about A after the op (A: in|out|hup) */
};

struct watch {
    vigil_io io;
    int pair, idx;
    uint32_t mask;   /* as started or last modified */
    bool started;
    /* this turn */
    int calls;
    int got;         /* OR of the bits received (or the negative errno) */
    uint32_t expect; /* ready bits of its mask, per the oracle */
    long lost_step;  /* a LOST or PARTIAL at this step: delivered the next turn = late */
    long streak;     /* consecutive turns with a LOST or PARTIAL */
};

struct pair {
    int a, b;
    bool b_closed;
    struct watch w[NW];
    struct hist h[HIST];
    unsigned nh;
};

static struct pair pairs[NPAIRS];
static vigil_loop *loop;
static const char *backend;
static bool strict_spurious;
static bool keep_going, verbose;
static uint64_t seed, rng;
static long step, nsteps;
static char buf[65536];

/* Counts, per kind of fault. */
static long n_hup_late, n_lost, n_partial, n_double, n_spurious, n_error, n_late, n_calls, n_checks, max_streak;
static long first_fault_step = -1;
static const char *first_fault_kind;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rnd_n(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static const char *bits(int b, char *out)
{
    if (b < 0) {
        snprintf(out, 24, "%s", strerror(-b));
        return out;
    }
    char *p = out;
    if (b & VIGIL_READ)
        *p++ = 'R';
    if (b & VIGIL_WRITE)
        *p++ = 'W';
    if (b & VIGIL_PRI)
        *p++ = 'P';
    if (b & VIGIL_ERR)
        *p++ = 'E';
    if (b & VIGIL_HUP)
        *p++ = 'H';
    if (p == out)
        *p++ = '-';
    *p = 0;
    return out;
}

static uint32_t poll_one(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT};
    CHECK_SYS(poll(&p, 1, 0));
    return (uint32_t)p.revents;
}

static void on_io(vigil_loop *l, vigil_io *io, int revents)
{
    (void)l;
    struct watch *w = io->data;
    w->calls++;
    n_calls++;
    if (revents < 0 || w->got < 0)
        w->got = revents < 0 ? revents : w->got;
    else
        w->got |= revents;
}

static void print_history(const struct pair *p, int pi)
{
    char b1[24], b2[24];
    fprintf(stderr, "  pair %d: A=fd %d, B=fd %d%s; watchers:", pi, p->a, p->b, p->b_closed ? " (B closed)" : "");
    for (int i = 0; i < NW; i++)
        fprintf(stderr, " w%d=%s", i, p->w[i].started ? bits((int)p->w[i].mask, b1) : "stopped");
    fprintf(stderr, "\n  its last operations (step: op -> poll(A) after it):\n");
    unsigned from = p->nh > HIST ? p->nh - HIST : 0;
    for (unsigned k = from; k < p->nh; k++) {
        const struct hist *h = &p->h[k % HIST];
        fprintf(stderr, "    %6ld: %-8s", h->step, op_name[h->op]);
        switch (h->op) {
        case OP_START:
        case OP_MODIFY:
            fprintf(stderr, " w%d %s", h->w, bits(h->arg, b1));
            break;
        case OP_STOP:
            fprintf(stderr, " w%d", h->w);
            break;
        case OP_WRITE_B:
        case OP_READ_A:
        case OP_READ_B:
            fprintf(stderr, " %d asked, %d moved", h->arg, h->res);
            break;
        case OP_DRAIN_A:
        case OP_FILL_A:
        case OP_DRAIN_B:
            fprintf(stderr, " %d bytes", h->res);
            break;
        case OP_RECREATE:
            fprintf(stderr, " A=fd %d B=fd %d", h->res >> 16, h->res & 0xffff);
            break;
        default:
            break;
        }
        fprintf(stderr, "  [A %s]\n", bits((int)(h->ready & (VIGIL_READ | VIGIL_WRITE | VIGIL_ERR | VIGIL_HUP)), b2));
    }
}

static void report_fault(const char *kind, int pi, int wi, uint32_t expect, int got, int calls)
{
    char b1[24], b2[24];
    if (first_fault_step < 0) {
        first_fault_step = step;
        first_fault_kind = kind;
    }
    if (keep_going && !verbose)
        return;
    struct pair *p = &pairs[pi];
    fprintf(stderr, "%s on %s: seed %" PRIu64 ", step %ld, pair %d watcher w%d (fd %d, mask %s): expected %s, got %s in %d callback%s\n",
            kind, backend, seed, step, pi, wi, p->a, bits((int)p->w[wi].mask, b1), bits((int)expect, b2),
            calls ? bits(got, (char[24]){0}) : "nothing", calls, calls == 1 ? "" : "s");
    print_history(p, pi);
    if (!keep_going) {
        fprintf(stderr, "replay: VIGIL_BACKEND=%s VIGIL_TEST_SEED=%" PRIu64 " VIGIL_TEST_STEPS=%ld\n", backend, seed, step + 1);
        exit(1);
    }
}

static void record(struct pair *p, enum op op, int w, int arg, int res)
{
    struct hist *h = &p->h[p->nh++ % HIST];
    h->step = step;
    h->op = (uint8_t)op;
    h->w = (uint8_t)w;
    h->arg = arg;
    h->res = res;
    h->ready = poll_one(p->a);
}

static void make_pair(struct pair *p)
{
    int sv[2];
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv));
    int sz = SNDBUF;
    for (int i = 0; i < 2; i++)
        CHECK_SYS(setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz));
    /* Either end may be A: a recreated pair's A may take the number the old B had. */
    int s = rnd_n(2);
    p->a = sv[s];
    p->b = sv[!s];
    p->b_closed = false;
}

static long move_bytes(int from_write, int fd, long limit)
{
    long total = 0;
    while (total < limit) {
        size_t n = (size_t)(limit - total) < sizeof buf ? (size_t)(limit - total) : sizeof buf;
        ssize_t r = from_write ? send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, buf, n, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EAGAIN || errno == EPIPE || errno == ECONNRESET)
                break;
            fprintf(stderr, "step %ld: %s fd %d: %s\n", step, from_write ? "send" : "recv", fd, strerror(errno));
            exit(1);
        }
        if (r == 0)
            break; /* EOF */
        total += r;
    }
    return total;
}

static uint32_t rnd_mask(void)
{
    static const uint32_t m[] = {VIGIL_READ, VIGIL_WRITE, VIGIL_READ | VIGIL_WRITE};
    return m[rnd_n(3)];
}

static int pick_watcher(struct pair *p, bool started)
{
    int c[NW], n = 0;
    for (int i = 0; i < NW; i++)
        if (p->w[i].started == started)
            c[n++] = i;
    return n ? c[rnd_n(n)] : -1;
}

static void stop_watcher(struct pair *p, int i)
{
    CHECK_EQ(vigil_io_stop(loop, &p->w[i].io), 0);
    p->w[i].started = false;
}

/* One operation on a random pair; false when it does not apply (pick another). */
static bool do_op(int pi)
{
    int total = 0;
    for (int i = 0; i < OP_N; i++)
        total += op_weight[i];
    int x = rnd_n(total);
    enum op op = 0;
    while (x >= op_weight[op])
        x -= op_weight[op++];
    struct pair *p = &pairs[pi];
    int wi, n;
    long moved;
    switch (op) {
    case OP_START: {
        if ((wi = pick_watcher(p, false)) < 0)
            return false;
        struct watch *w = &p->w[wi];
        uint32_t m = rnd_mask();
        memset(&w->io, 0, sizeof w->io);
        w->io.data = w;
        CHECK_EQ(vigil_io_start(loop, &w->io, p->a, m, on_io), 0);
        w->started = true;
        w->mask = m;
        record(p, op, wi, (int)m, 0);
        return true;
    }
    case OP_MODIFY: {
        if ((wi = pick_watcher(p, true)) < 0)
            return false;
        uint32_t m = rnd_mask();
        CHECK_EQ(vigil_io_modify(loop, &p->w[wi].io, m), 0);
        p->w[wi].mask = m;
        record(p, op, wi, (int)m, 0);
        return true;
    }
    case OP_STOP:
        if ((wi = pick_watcher(p, true)) < 0)
            return false;
        stop_watcher(p, wi);
        record(p, op, wi, 0, 0);
        return true;
    case OP_WRITE_B:
    case OP_DRAIN_A:
    case OP_READ_A:
    case OP_FILL_A:
    case OP_DRAIN_B:
    case OP_READ_B: {
        /* Bytes into or out of one end of the pair: a few (WRITE, READ) or all it takes
         * (FILL, DRAIN). Writing into a or touching b needs b open. */
        bool on_b = op == OP_WRITE_B || op == OP_DRAIN_B || op == OP_READ_B;
        bool writes = op == OP_WRITE_B || op == OP_FILL_A;
        bool few = op == OP_WRITE_B || op == OP_READ_A || op == OP_READ_B;
        if ((on_b || writes) && p->b_closed)
            return false;
        n = few ? 1 + rnd_n(4096) : 0;
        moved = move_bytes(writes, on_b ? p->b : p->a, few ? n : 1L << 30);
        record(p, op, 0, n, (int)moved);
        return true;
    }
    case OP_RECREATE:
        for (int i = 0; i < NW; i++)
            if (p->w[i].started)
                stop_watcher(p, i);
        close(p->a);
        if (!p->b_closed)
            close(p->b);
        make_pair(p);
        record(p, op, 0, 0, (p->a << 16) | p->b);
        return true;
    case OP_CLOSE_B:
        if (p->b_closed)
            return false;
        close(p->b);
        p->b = -1;
        p->b_closed = true;
        record(p, op, 0, 0, 0);
        return true;
    case OP_NOTHING:
        return true;
    default:
        return false;
    }
}

/* The oracle, one turn, and the checks. */
static void turn_and_check(void)
{
    struct pollfd pfd[NPAIRS];
    int map[NPAIRS], np = 0;
    for (int pi = 0; pi < NPAIRS; pi++) {
        struct pair *p = &pairs[pi];
        for (int i = 0; i < NW; i++) {
            p->w[i].calls = 0;
            p->w[i].got = 0;
            p->w[i].expect = 0;
        }
        if (p->w[0].started || p->w[1].started) {
            pfd[np] = (struct pollfd){.fd = p->a, .events = POLLIN | POLLOUT};
            map[np++] = pi;
        }
    }
    CHECK_SYS(poll(pfd, (nfds_t)np, 0));
    uint32_t ready[NPAIRS] = {0};
    for (int k = 0; k < np; k++) {
        CHECK(!(pfd[k].revents & POLLNVAL));
        ready[map[k]] = (uint32_t)pfd[k].revents & (VIGIL_READ | VIGIL_WRITE | VIGIL_ERR | VIGIL_HUP);
    }
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int i = 0; i < NW; i++)
            if (pairs[pi].w[i].started)
                pairs[pi].w[i].expect = ready[pi] & (pairs[pi].w[i].mask | VIGIL_ERR | VIGIL_HUP);

    int r = vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    if (r < 0) {
        fprintf(stderr, "step %ld: vigil_loop_run: %s (seed %" PRIu64 ")\n", step, strerror(-r), seed);
        exit(1);
    }

    for (int pi = 0; pi < NPAIRS; pi++) {
        for (int i = 0; i < NW; i++) {
            struct watch *w = &pairs[pi].w[i];
            n_checks += w->started;
            if (!w->started) {
                w->streak = 0;
                if (w->calls) {
                    n_error++;
                    report_fault("ERROR (callback to a stopped watcher)", pi, i, 0, w->got, w->calls);
                }
                continue;
            }
            if (w->lost_step == step - 1 && w->calls == 1 && w->got > 0 && (w->got & w->expect) == w->expect)
                n_late++; /* lost last turn, delivered now: it came a turn late */
            if (w->calls && w->got < 0) {
                n_error++;
                report_fault("ERROR (registration failure)", pi, i, w->expect, w->got, w->calls);
                w->started = false; /* the loop stopped it */
                continue;
            }
            if (w->calls > 1) {
                n_double++;
                report_fault("DOUBLE", pi, i, w->expect, w->got, w->calls);
            }
            if (w->expect && (!w->calls || ((uint32_t)w->got & w->expect) != w->expect)) {
                if (++w->streak > max_streak)
                    max_streak = w->streak;
            } else {
                w->streak = 0;
            }
            if (w->expect && !w->calls) {
                n_lost++;
                w->lost_step = step;
                report_fault("LOST", pi, i, w->expect, 0, 0);
            } else if (w->expect && ((uint32_t)w->got & w->expect) != w->expect && !strict_spurious &&
                       !(w->expect & ~(uint32_t)w->got & ~(uint32_t)(VIGIL_ERR | VIGIL_HUP))) {
                n_hup_late++; /* see HUP-LATE above */
                w->lost_step = step;
            } else if (w->expect && ((uint32_t)w->got & w->expect) != w->expect) {
                n_partial++;
                w->lost_step = step;
                report_fault("PARTIAL", pi, i, w->expect, w->got, w->calls);
            }
            if (w->calls && ((uint32_t)w->got & ~w->expect)) {
                n_spurious++;
                if (strict_spurious)
                    report_fault("SPURIOUS", pi, i, w->expect, w->got, w->calls);
                else if (verbose) {
                    char b1[24], b2[24];
                    fprintf(stderr, "spurious (counted) on %s: step %ld, pair %d w%d: expected %s, got %s\n",
                            backend, step, pi, i, bits((int)w->expect, b1), bits(w->got, b2));
                    print_history(&pairs[pi], pi);
                }
            }
        }
    }
}

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 0) : dflt;
}

int main(void)
{
    const char *s = getenv("VIGIL_TEST_SEED");
    if (s && *s) {
        seed = strtoull(s, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    rng = seed;
    nsteps = env_long("VIGIL_TEST_STEPS", 20000);
    keep_going = env_long("VIGIL_TEST_KEEP_GOING", 0) != 0;
    verbose = env_long("VIGIL_TEST_VERBOSE", 0) != 0;

    loop = vt_loop();
    backend = vigil_loop_backend(loop);
    /* epoll and poll must match poll() exactly; io_uring's extra events are counted. */
    strict_spurious = strcmp(backend, "uring") != 0;
    printf("turn_oracle: backend %s, seed %" PRIu64 ", %ld steps (VIGIL_TEST_SEED=%" PRIu64 " replays)\n", backend,
           seed, nsteps, seed);
    fflush(stdout);
    memset(buf, 'x', sizeof buf);

    for (int pi = 0; pi < NPAIRS; pi++) {
        make_pair(&pairs[pi]);
        for (int i = 0; i < NW; i++) {
            pairs[pi].w[i].pair = pi;
            pairs[pi].w[i].idx = i;
            pairs[pi].w[i].lost_step = -2;
        }
    }

    for (step = 0; step < nsteps; step++) {
        /* Most steps are one operation; a quarter are 2..4, mostly on one pair, so that
         * several changes of one fd (a widening and the write that makes it ready...)
         * meet in one turn. */
        int nops = rnd_n(4) ? 1 : 2 + rnd_n(3);
        int focus = rnd_n(NPAIRS);
        for (int k = 0; k < nops; k++)
            while (!do_op(rnd_n(4) ? focus : rnd_n(NPAIRS))) {
            }
        turn_and_check();
    }

    printf("turn_oracle: %s: %ld steps, %ld watcher-turns checked, %ld callbacks; lost %ld, partial %ld "
           "(%ld of these delivered in full the next turn; longest run of turns one watcher went short: %ld), "
           "double %ld, spurious %ld%s, hang-ups a turn late %ld%s, errors %ld\n",
           backend, nsteps, n_checks, n_calls, n_lost, n_partial, n_late, max_streak, n_double, n_spurious,
           strict_spurious ? "" : " (counted, allowed here)", n_hup_late,
           strict_spurious ? "" : " (counted, allowed here)", n_error);
    if (first_fault_step >= 0)
        printf("turn_oracle: first fault: %s at step %ld (seed %" PRIu64 ")\n", first_fault_kind, first_fault_step, seed);

    for (int pi = 0; pi < NPAIRS; pi++) {
        for (int i = 0; i < NW; i++)
            if (pairs[pi].w[i].started)
                stop_watcher(&pairs[pi], i);
        close(pairs[pi].a);
        if (!pairs[pi].b_closed)
            close(pairs[pi].b);
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    long faults = n_lost + n_partial + n_double + n_error + (strict_spurious ? n_spurious : 0);
    return faults ? 1 : 0;
}
