/* Sockets, the completion queue: the one owner of a request's end. A request ends in
 * one of two ways, both here: at once, where a callback may run (an engine's completion
 * read at the turn's completion point, or an fd event: vigil__net_finish through
 * vigil__net_send_done / vigil__net_single_done), or queued for the completion point
 * (vigil__net_defer: ended inside the call that started it, or by a cancel or a close,
 * where no callback may run). A queued request is in state DONE: nothing else ends it
 * (cancel and close leave a DONE request alone), and it is taken off its socket's lists
 * (send queue, rreq, creq) before its callback runs. Loop thread only.
 */
#include "net/net_int.h"

/* Runs the deferred ends in the order they were queued; an end queued by a callback
 * here runs in this same pass (the queue is read until empty). */
static void run_done(vigil_loop *loop, struct vigil__deferred *d)
{
    vigil__net_done_run(loop, (struct vigil__net *)((char *)d - offsetof(struct vigil__net, done_later)));
}

void vigil__net_done_run(vigil_loop *loop, struct vigil__net *n)
{
    struct vigil__nreq *r;
    while ((r = n->done_head)) {
        n->done_head = r->done_next;
        if (!n->done_head)
            n->done_tail = NULL;
        r->done_next = NULL;
        if (r->kind == VIGIL__NK_RECV || r->kind == VIGIL__NK_CONNECT)
            vigil__net_single_done(loop, n, r, r->res);
        else if (r->sock && r->sock->sq_head == r)
            vigil__net_send_done(loop, n, r->sock, r->res);
        else
            vigil__net_finish(loop, n, r, r->res);
    }
}

void vigil__net_defer(vigil_loop *loop, struct vigil__net *n, struct vigil__nreq *r, ssize_t res)
{
    r->state = VIGIL__NR_DONE;
    r->res = res;
    r->done_next = NULL;
    if (n->done_tail)
        n->done_tail->done_next = r;
    else
        n->done_head = r;
    n->done_tail = r;
    vigil__defer(loop, &n->done_later);
}

void vigil__net_done_init(struct vigil__net *n)
{
    n->done_later.run = run_done;
}

void vigil__net_finish(vigil_loop *loop, struct vigil__net *n, struct vigil__nreq *r, ssize_t res)
{
    r->state = VIGIL__NR_IDLE;
    r->result = res;
    vigil__net_active_stop(loop);
    struct vigil__sock *s = r->sock;
    vigil_net_cb release = r->kind == VIGIL__NK_SENDZC && r->zc_notif == 0 ? r->release : NULL;
    /* A zero-copy send's release is still to come: until it ran the request is not free
     * (a send restarted from the callback is -EBUSY, as on io_uring while the kernel's
     * notification is to come; fuzz/net_fuzz.c's reactions found epoll taking it). */
    if (release)
        r->zc_notif = 1;
    VIGIL__NET_CALL(loop, r->cb(loop, vigil__nreq_pub(r), res));
    /* On epoll and poll (and when the kernel made no copy) the buffer is free now. */
    if (release) {
        r->zc_notif = 0;
        VIGIL__NET_CALL(loop, release(loop, vigil__nreq_pub(r), res));
    }
    if (s && (s->state & VIGIL__S_CLOSING))
        vigil__net_close_maybe(loop, n, s);
}

