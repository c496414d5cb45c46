/* The heap with 1,000,000 timers: after random starts, stops and restarts on all three
 * clocks the heap invariant holds (vigil__heap_valid: parent before child by
 * (deadline, seq), every node's heap_index right), and firing a large due set runs the
 * callbacks in (deadline, start order) order. */
#include "tt.h"

#include "loop/timer.h"

#define N 1000000
#define OPS 2000000

static vigil_timer *tm;
static int64_t last_d;
static uint64_t last_seq;
static long nfired;

static void never(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    (void)t;
    fprintf(stderr, "a far-future timer fired\n");
    exit(1);
}

static void in_order(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    /* deadline then start order; seq is private but is the start order */
    CHECK(vigil__timer(t)->deadline_ns > last_d || (vigil__timer(t)->deadline_ns == last_d && vigil__timer(t)->seq > last_seq));
    last_d = vigil__timer(t)->deadline_ns;
    last_seq = vigil__timer(t)->seq;
    nfired++;
}

static void validate(vigil_loop *loop)
{
    for (int c = 0; c < VIGIL__CLK_N; c++)
        CHECK(vigil__heap_valid(&vigil__timers_of(loop)->heap[c]));
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    tm = calloc(N, sizeof *tm);
    CHECK(tm != NULL);
    uint64_t seed = 0x2545f4914f6cdd1dull;
    printf("seed %llu\n", (unsigned long long)seed);
    static const clockid_t clocks[3] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};
    int64_t far = 3600LL * 1000 * TT_MS; /* an hour: nothing fires during the test */
    long active = 0;
    for (long i = 0; i < N; i++) {
        uint64_t r = tt_rand(&seed);
        /* few distinct deadlines: many ties, the hard case for (deadline, seq) */
        CHECK_EQ(vigil_timer_start(loop, &tm[i], clocks[r % 3], far + (int64_t)(r >> 40) % 1000 * TT_US, 0, 0, never), 0);
        active++;
    }
    validate(loop);
    for (long k = 0; k < OPS; k++) {
        uint64_t r = tt_rand(&seed);
        vigil_timer *t = &tm[(r >> 8) % N];
        if (vigil_timer_active(t)) {
            CHECK_EQ(vigil_timer_stop(loop, t), 0);
            CHECK(!vigil_timer_active(t));
            active--;
        } else {
            CHECK_EQ(vigil_timer_start(loop, t, clocks[r % 3], far + (int64_t)(r >> 40) % 1000 * TT_US, 0, 0, never), 0);
            active++;
        }
        if (k % 500000 == 0)
            validate(loop);
    }
    validate(loop);
    CHECK_EQ(vigil__timers_of(loop)->heap[0].n + vigil__timers_of(loop)->heap[1].n + vigil__timers_of(loop)->heap[2].n, active);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* nothing due */

    /* Fire: stop all, then start 1,000,000 MONOTONIC timers with past absolute
     * deadlines (in random order, many ties) and run one turn. */
    for (long i = 0; i < N; i++)
        CHECK_EQ(vigil_timer_stop(loop, &tm[i]), 0);
    validate(loop);
    for (long i = 0; i < N; i++) {
        uint64_t r = tt_rand(&seed);
        CHECK_EQ(vigil_timer_start(loop, &tm[i], CLOCK_MONOTONIC, 1 + (int64_t)(r % 5000), 0, VIGIL_TIMER_ABS, in_order), 0);
    }
    validate(loop);
    last_d = INT64_MIN;
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(nfired, N);
    validate(loop);
    CHECK_EQ(vigil_loop_free(loop), 0);
    free(tm);
    return 0;
}
