/* The README's first program (kept identical to it, so it is known to build). */
#define _POSIX_C_SOURCE 200809L  /* POSIX names (CLOCK_MONOTONIC) under -std=c11 too */
#include <vigil.h>
#include <stdio.h>
#include <unistd.h>

static void on_stdin(vigil_loop *loop, vigil_io *w, int revents)
{
    char buf[256];
    ssize_t n = revents > 0 ? read(w->fd, buf, sizeof buf) : 0;
    if (n <= 0) { vigil_loop_stop(loop); return; }      /* EOF or error: done */
    printf("read %zd bytes\n", n);
}

static void on_tick(vigil_loop *loop, vigil_timer *t)
{
    (void)t;                                            /* one timer: no need to look */
    printf("tick at %lld ns\n", (long long)vigil_loop_now(loop));
}

int main(void)
{
    vigil_loop *loop;
    if (vigil_loop_new(&loop, NULL) < 0) return 1;        /* io_uring, else epoll, else poll */
    vigil_io in = {0};
    vigil_timer tick = {0};
    vigil_io_start(loop, &in, 0, VIGIL_READ, on_stdin);
    vigil_timer_start(loop, &tick, CLOCK_MONOTONIC, 500000000, 500000000, 0, on_tick);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);               /* until stopped or nothing is active */
    vigil_loop_free(loop);
}
