/* A child writes 64 MiB to its stdout socket; the parent receives it through the
 * sockets API (vigil_sock_open on the parent's end) and reads slowly: after every
 * 2 MiB it stops receiving for 2 ms, so the child blocks on a full socket again and
 * again. Every byte arrives, in order (a position-dependent pattern), then the end of
 * the stream, and the exit (status 0) is reported once. The child is this program run
 * again in its writer role. */
#include "pt.h"

#define TOTAL (64ull << 20)
#define PAUSE_EVERY (2ull << 20)

static unsigned char pat(uint64_t i)
{
    return (unsigned char)(i * 131 + (i >> 13));
}

static int writer(void)
{
    static unsigned char b[1 << 16];
    uint64_t off = 0;
    while (off < TOTAL) {
        for (size_t i = 0; i < sizeof b; i++)
            b[i] = pat(off + i);
        size_t done = 0;
        while (done < sizeof b) {
            ssize_t n = write(1, b + done, sizeof b - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return 3;
            done += (size_t)n;
        }
        off += sizeof b;
    }
    return 0;
}

static vigil_sock s;
static vigil_timer t;
static uint64_t got, next_pause = PAUSE_EVERY;
static int eof, closed, pauses;

static void on_data(vigil_loop *l, vigil_sock *sk, ssize_t n, vigil_buf *b);

static void on_timer(vigil_loop *l, vigil_timer *tm)
{
    (void)tm;
    CHECK_EQ(vigil_sock_recv_start(l, &s, on_data), 0);
}

static void on_data(vigil_loop *l, vigil_sock *sk, ssize_t n, vigil_buf *b)
{
    (void)sk;
    if (n == 0) {
        eof = 1;
        return;
    }
    CHECK(n > 0);
    for (ssize_t i = 0; i < n; i++) {
        if ((unsigned char)b->data[i] != pat(got + (uint64_t)i)) {
            fprintf(stderr, "byte %llu: %u, want %u\n", (unsigned long long)(got + (uint64_t)i),
                    (unsigned char)b->data[i], pat(got + (uint64_t)i));
            exit(1);
        }
    }
    got += (uint64_t)n;
    vigil_buf_put(l, b);
    if (got >= next_pause && got < TOTAL) {
        next_pause += PAUSE_EVERY;
        pauses++;
        CHECK_EQ(vigil_sock_recv_stop(l, &s), 0);
        CHECK_EQ(vigil_timer_start(l, &t, CLOCK_MONOTONIC, 2000000, 0, 0, on_timer), 0);
    }
}

static void on_closed(vigil_loop *l, vigil_sock *sk)
{
    (void)l, (void)sk;
    closed = 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "write"))
        return writer();
    alarm(60);
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    static vigil_proc p;
    static struct pt_exit e;
    char *const cargv[] = {"/proc/self/exe", "write", NULL};
    struct vigil_proc_options o = pt_opts(cargv);
    o.stdio[1].mode = VIGIL_PROC_SOCKET;
    p.data = &e;
    CHECK_EQ(vigil_proc_start(loop, &p, &o, pt_on_exit), 0);
    CHECK_EQ(vigil_sock_open(loop, &s, p.stdio_fd[1]), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &s, on_data), 0);
    while (!eof || !e.calls)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    CHECK_EQ(got, TOTAL);
    CHECK_EQ(e.calls, 1);
    CHECK_EQ(e.status, 0);
    CHECK_EQ(e.sig, 0);
    CHECK(pauses >= 16);
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    pt_run_until(loop, &closed);
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vt_count_fds(), fds0);
    return 0;
}
