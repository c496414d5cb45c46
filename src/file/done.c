/* Async file I/O, the completion path shared by the engines: the done stack, the
 * doorbell (an eventfd the loop watches) and its drain at the turn's completion point.
 *
 * THREADS: everything here runs in the loop thread except vigil__file_defer() and
 * vigil__file_defer_chain(), which worker threads call: they push on f->done (a
 * lock-free stack: push with CAS from any thread, the loop takes the whole stack with
 * one exchange) and write the eventfd when the stack was empty. The loop reads the
 * eventfd before it takes the stack, so a push that finds the stack non-empty is always
 * seen by the take that follows.
 */
#include "file/file_int.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* ------------------------------------------------------------- completion */

void vigil__file_defer_chain(struct vigil__file *f, vigil_file_req *first, vigil_file_req *last)
{
    vigil_file_req *old = atomic_load_explicit(&f->done, memory_order_relaxed);
    do {
        vigil__freq(last)->next = old;
        /* Release: the results, and whatever a worker wrote into the callers' buffers,
         * are visible to the loop thread once it takes the stack (acquire). */
    } while (!atomic_compare_exchange_weak_explicit(&f->done, &old, first, memory_order_release,
                                                    memory_order_relaxed));
    if (old == NULL) {
        /* The stack was empty: the loop may be asleep, ring. A non-empty stack means a
         * ring is already pending that the loop has not consumed (it reads the eventfd
         * before it takes the stack). */
        uint64_t one = 1;
        while (write(f->bell_fd, &one, sizeof one) < 0 && errno == EINTR) {
        }
    }
}

void vigil__file_defer(struct vigil__file *f, vigil_file_req *req, int64_t res)
{
    vigil__freq(req)->res = res;
    vigil__file_defer_chain(f, req, req);
}

void vigil__file_done_here(vigil_loop *loop, struct vigil__file *f, vigil_file_req *req, int64_t res)
{
    struct vigil__freq *fr = vigil__freq(req);
    fr->res = res;
    fr->route = VIGIL__ROUTE_DONE;
    vigil_file_req *old = atomic_load_explicit(&f->done, memory_order_relaxed);
    do {
        fr->next = old;
    } while (!atomic_compare_exchange_weak_explicit(&f->done, &old, req, memory_order_release,
                                                    memory_order_relaxed));
    /* No ring: the drain is queued for this turn's completion point (a queued drain
     * makes the wait not block). A worker that pushes after this finds the stack
     * non-empty and does not ring either: the same drain takes its request. */
    vigil__defer(loop, &f->bell_later);
}

int vigil__file_drain_done(vigil_loop *loop, struct vigil__file *f)
{
    /* Acquire: pairs with the release in vigil__file_defer (results and buffers). */
    vigil_file_req *s = atomic_exchange_explicit(&f->done, NULL, memory_order_acquire);
    if (!s)
        return 0;
    /* The stack is newest first: reverse it so callbacks run in completion order. */
    vigil_file_req *fifo = NULL;
    while (s) {
        vigil_file_req *next = vigil__freq(s)->next;
        vigil__freq(s)->next = fifo;
        fifo = s;
        s = next;
    }
    int n = 0;
    while (fifo) {
        vigil_file_req *r = fifo;
        fifo = vigil__freq(r)->next;
        vigil__file_complete(loop, f, r, vigil__freq(r)->res);
        n++;
    }
    return n;
}

/* The completion point's work (turn.h step 5): what the engine finished, then what
 * was deferred. */
static void bell_run(vigil_loop *loop, struct vigil__deferred *d)
{
    struct vigil__file *f = (struct vigil__file *)(void *)((char *)d - offsetof(struct vigil__file, bell_later));
    if (f->eng && f->eng->reap)
        f->eng->reap(loop, f);
    vigil__file_drain_done(loop, f);
}

/* The doorbell's watcher (step 4, fd events): runs no user callback itself. */
static void bell_cb(vigil_loop *loop, vigil_io *w, int revents)
{
    (void)revents;
    struct vigil__file *f = w->data;
    uint64_t v;
    /* Read first, then take the stack (at the completion point): see the THREADS note. */
    while (read(f->bell_fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
    vigil__defer(loop, &f->bell_later);
}

int vigil__file_bell_init(vigil_loop *loop, struct vigil__file *f)
{
    if (f->bell_fd >= 0)
        return 0;
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
        return -errno;
    f->bell_io.data = f;
    f->bell_later.run = bell_run;
    int r = vigil__io_start_internal(loop, &f->bell_io, fd, VIGIL_READ, bell_cb);
    if (r < 0) {
        close(fd);
        return r;
    }
    f->bell_fd = fd;
    return 0;
}

void vigil__file_bell_wait(struct vigil__file *f)
{
    struct pollfd p = {.fd = f->bell_fd, .events = POLLIN};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    uint64_t v;
    while (read(f->bell_fd, &v, sizeof v) < 0 && errno == EINTR) {
    }
}

void vigil__file_bell_fini(vigil_loop *loop, struct vigil__file *f)
{
    if (f->bell_fd < 0)
        return;
    vigil__undefer(loop, &f->bell_later);
    vigil__file_drain_done(loop, f);
    vigil_io_stop(loop, &f->bell_io);
    close(f->bell_fd);
    f->bell_fd = -1;
}
