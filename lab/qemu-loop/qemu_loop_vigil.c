/* qemu-loop, system "vigil": one vigil_io per fd; an interest change is vigil_io_modify
 * (recorded, applied with the turn's batch); a turn is vigil_loop_run(VIGIL_RUN_ONCE) with
 * a timer pending (the wait has a timeout, as in QEMU).
 * --backend uring|epoll|poll forces a backend (vigil_loop_options.backend); the record's
 * "backend" is the one the loop reports running. */
#include <vigil.h>

#include "qloop.h"

static vigil_loop *loop;
static vigil_io w[QL_MAXN];
static int nw;
static int want_backend = VIGIL_BACKEND_AUTO;
static char json[160];
static struct ql *qq;
static vigil_timer timer;

static void on_timer(vigil_loop *l, vigil_timer *t)
{
    (void)l, (void)t;
}

static void on_io(vigil_loop *l, vigil_io *io, int revents)
{
    (void)l;
    if (revents > 0 && (revents & VIGIL_READ))
        ql_consume(qq, qq->rfd[(intptr_t)io->data]);
}

static int sys_options(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--backend")) {
            const char *b = argv[i + 1];
            want_backend = !strcmp(b, "uring") ? VIGIL_BACKEND_URING
                         : !strcmp(b, "epoll") ? VIGIL_BACKEND_EPOLL
                         : !strcmp(b, "poll")  ? VIGIL_BACKEND_POLL
                                               : -1;
            if (want_backend < 0) {
                fprintf(stderr, "--backend uring|epoll|poll\n");
                return 2;
            }
        }
    return 0;
}

static int sys_init(struct ql *q)
{
    qq = q;
    struct vigil_loop_options opt;
    vigil_loop_options_init(&opt);
    opt.backend = want_backend;
    int r = vigil_loop_new(&loop, &opt);
    if (r < 0) {
        fprintf(stderr, "skip: vigil_loop_new: %s\n", strerror(-r));
        return r == -ENOSYS ? 77 : 1;
    }
    snprintf(json, sizeof json, "\"system\":\"vigil\",\"case\":\"vigil_io_modify + vigil_loop_run(ONCE)\",\"backend\":\"%s\"",
             vigil_loop_backend(loop));
    timer = (vigil_timer){0};
    if ((r = vigil_timer_start(loop, &timer, CLOCK_MONOTONIC, (int64_t)QL_TIMEOUT_S * 1000000000, 0, 0, on_timer)) < 0) {
        fprintf(stderr, "vigil_timer_start: %s\n", strerror(-r));
        return 1;
    }
    for (nw = 0; nw < q->n; nw++) {
        w[nw] = (vigil_io){.data = (void *)(intptr_t)nw};
        if ((r = vigil_io_start(loop, &w[nw], q->rfd[nw], VIGIL_READ, on_io)) < 0) {
            fprintf(stderr, "vigil_io_start: %s\n", strerror(-r));
            return 1;
        }
    }
    return 0;
}

static int sys_change(struct ql *q, int i)
{
    return vigil_io_modify(loop, &w[i], q->wr[i] ? VIGIL_READ | VIGIL_WRITE : VIGIL_READ);
}

static int sys_turn(struct ql *q)
{
    (void)q;
    int r = vigil_loop_run(loop, VIGIL_RUN_ONCE);
    return r < 0 ? r : 0;
}

static void sys_fini(struct ql *q)
{
    (void)q;
    for (int i = 0; i < nw; i++)
        vigil_io_stop(loop, &w[i]);
    if (loop)
        vigil_timer_stop(loop, &timer);
    if (loop)
        vigil_loop_free(loop);
    loop = NULL;
}

static const char *sys_json(void)
{
    return json;
}
