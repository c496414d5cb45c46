/* vigil/mq_watch.h: message queues (<vigil/mq.h>) in the vigil loop.
 *
 * An mq watcher calls back, in the loop thread, when its queue has a message
 * (VIGIL_READ) or room for one (VIGIL_WRITE). It is level-triggered like an fd watcher:
 * while the condition holds, the callback runs once per loop turn, so a callback that
 * does not drain the queue is called again next turn.
 *
 * How it waits (vigil_mq_watch_threaded() tells which):
 *   - uring backend, kernel 6.7+ (IORING_OP_FUTEX_WAIT): the wait on the queue's futex
 *     word rides in the loop's io_uring_enter; no extra thread.
 *   - everywhere else (epoll, poll, older kernels, io_uring refused by policy): one
 *     helper thread per watcher sleeps on the futex word and wakes the loop through an
 *     eventfd the loop watches. Starting such a watcher creates that thread (and its
 *     eventfd); stopping joins it. A callback comes a thread hand-off later than on
 *     io_uring (a few microseconds).
 * Senders and receivers of a watched queue (in any process) make one futex wake when the
 * queue turns non-empty or non-full; unwatched queues pay nothing.
 * vigil_loop_free() stops an mq watcher still started, as it forgets every other
 * watcher: its helper thread is joined and the queue's users stop waking it; the
 * struct stays the caller's. Callbacks run at the turn's completion point (see
 * vigil_loop_run), on every backend.
 */
#ifndef VIGIL_MQ_WATCH_H
#define VIGIL_MQ_WATCH_H

#include <stdint.h>

#include "vigil/loop.h"
#include "vigil/mq.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_mq_watch vigil_mq_watch;

/* revents > 0: VIGIL_READ and/or VIGIL_WRITE, what holds now (of what was asked).
 * revents < 0: -EBADMSG, the queue is corrupt; the watcher is already stopped. */
typedef void (*vigil_mq_watch_cb)(vigil_loop *loop, vigil_mq_watch *w, int revents);

struct vigil_mq_watch {
    void *data; /* the caller's */
    /* private */
    uint64_t private_[28];
};

/* Watches the queue behind descriptor mq for events (VIGIL_READ, VIGIL_WRITE or both).
 * The descriptor must stay open while the watcher is active. -EBADF for a bad
 * descriptor, -EINVAL for a bad mask or NULL callback, -EBUSY if w is already started,
 * -ENOMEM/-EAGAIN/-EMFILE if the fallback's thread or eventfd cannot be made. Zero w
 * before its first start. */
VIGIL_EXPORT int vigil_mq_watch_start(vigil_loop *loop, vigil_mq_watch *w, mqd_t mq, uint32_t events,
                                      vigil_mq_watch_cb cb);
/* Stops w; safe from any callback, its own included. Stopping a stopped watcher is 0.
 * After it returns the caller may free w. */
VIGIL_EXPORT int vigil_mq_watch_stop(vigil_loop *loop, vigil_mq_watch *w);
VIGIL_EXPORT int vigil_mq_watch_active(const vigil_mq_watch *w);
/* 1 if w waits through a helper thread, 0 if through the loop's io_uring. */
VIGIL_EXPORT int vigil_mq_watch_threaded(const vigil_mq_watch *w);

#ifdef __cplusplus
}
#endif
#endif
