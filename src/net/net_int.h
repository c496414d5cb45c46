/* src/net/: sockets as completions (include/vigil/net.h). One job per file:
 *   sock.c   the front: the API, validation, each socket's send queue, receive streams
 *            and their stash, close;
 *   done.c   the completion queue: the one owner of a request's end;
 *   pool.c   the per-loop state: the receive-buffer pool and its accounting, the list
 *            of open sockets, set-up and the end of the loop;
 *   uring.c  the io_uring engine (io_uring operations, the provided-buffer ring);
 *   ready.c  the readiness engine (epoll and poll backends: non-blocking calls).
 * The front reaches an engine only through struct vigil__net_engine. May call:
 * src/loop's core, src/ring. Not installed.
 *
 * A request's life: the front validates it (IDLE -> QUEUED on the socket's send queue,
 * or INFLIGHT for a receive or connect), asks the engine to start it, and the engine
 * ends it at a point where a callback may run (an fd event or an io_uring completion:
 * vigil__net_send_done / vigil__net_single_done), or with vigil__net_defer() where it
 * may not (inside the call that started it, a cancel, a close): DONE, queued for the
 * turn's completion point, in order. Either way the request leaves every list of the
 * library (send queue, rreq, creq, the queue) before vigil__net_finish runs its
 * callback, exactly once; a socket's next queued send goes to the engine only after
 * that callback returned (issue 26: the next was started before it, and a close from
 * the callback then ended it a second time).
 */
#ifndef VIGIL_NET_INT_H
#define VIGIL_NET_INT_H

#include "vigil/net.h"
#include "loop/loop.h"
#include "ring/ring.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Socket state bits (struct vigil__sock.state). */
#define VIGIL__S_OPEN 0x0001u      /* between open and the start of close */
#define VIGIL__S_CLOSING 0x0002u   /* close started: waiting for requests to end */
#define VIGIL__S_ACCEPT 0x0004u    /* accepting (the program's view) */
#define VIGIL__S_RECV 0x0008u      /* a receive stream runs (the program's view) */
#define VIGIL__S_DGRAM 0x0010u     /* ... delivering datagrams with addresses */
#define VIGIL__S_STARVED 0x0020u   /* receiving waits for pool buffers */
#define VIGIL__S_PAUSED 0x0040u    /* accepting paused after EMFILE (timer) */
#define VIGIL__S_SHUT_WR 0x0080u   /* sends refused (shutdown asked) */
#define VIGIL__S_SHUT_DO 0x0100u   /* shutdown(2) waits for the send queue to empty */
#define VIGIL__S_SHUT_RD 0x0200u   /* receiving refused */
#define VIGIL__S_ARMED_RX 0x0400u  /* uring: a multishot receive/accept op in the kernel */
#define VIGIL__S_CONN_TIMER 0x0800u /* the timer is a connect timeout (else a backoff) */
#define VIGIL__S_CLOSED 0x1000u    /* close finished */
#define VIGIL__S_WBLOCK 0x2000u    /* ready.c: the send queue's head waits for writability */
#define VIGIL__S_RX_CANCEL 0x4000u /* uring: the multishot op is being cancelled */
#define VIGIL__S_NOFD_TOLD 0x8000u /* -EMFILE/-ENFILE reported; again only after an accept */
#define VIGIL__S_RECV_HELD 0x10000u /* uring: an own-buffer receive waits for the multishot op to end */
#define VIGIL__S_DGRAM_SOCK 0x20000u /* the socket keeps message boundaries (not SOCK_STREAM) */
#define VIGIL__S_CONN_RETRY 0x40000u /* the connect waits for its retry (the timer, CONN_TIMER too) */
#define VIGIL__S_NO_ZC 0x80000u     /* uring: the kernel refused SEND_ZC here (AF_UNIX): zero-copy sends copy */

enum { VIGIL__NK_SEND = 1, VIGIL__NK_SENDV, VIGIL__NK_SENDZC, VIGIL__NK_SENDTO, VIGIL__NK_RECV, VIGIL__NK_CONNECT };
enum { VIGIL__RX_ACCEPT = 1, VIGIL__RX_RECV, VIGIL__RX_RECVMSG };
enum { VIGIL__NR_IDLE = 0, VIGIL__NR_QUEUED, VIGIL__NR_INFLIGHT, VIGIL__NR_DONE };

struct vigil__nreq;

/* vigil_sock as the library sees it. The first 64 bytes hold what a receive or send
 * completion touches (state, callback, send queue, the multishot op, op count, stash
 * head), so a round trip reads one line of the socket; the rest is cold. Programs that
 * allocate sockets 64-byte aligned (examples/echo_server.c) get that line whole. */
struct vigil__sock {
    void *data;
    int fd;
    uint32_t state;                /* VIGIL__S_* (private_w) */
    __extension__ union {
        vigil_accept_cb accept_cb;
        vigil_recv_cb recv_cb;
        vigil_recvfrom_cb recvfrom_cb;
    };
    struct vigil__nreq *sq_head, *sq_tail; /* sends, in start order; the head is performed */
    struct vigil__ring_op rx_op;   /* the multishot receive or accept */
    uint32_t ops;                  /* io_uring ops of this socket in flight */
    uint32_t rx_kind;              /* uring: what rx_op is (VIGIL__RX_*) */
    uint32_t stash_head, stash_tail; /* received buffers kept while stopped (id + 1; 0: none) */
    /* ---- 64 bytes: colder below */
    uint32_t stash_n;
    int shut_how;                  /* VIGIL__S_SHUT_DO: what to shut down */
    vigil_sock_close_cb close_cb;
    struct vigil__nreq *rreq;      /* a receive into the caller's buffer, in flight */
    struct vigil__nreq *creq;      /* a connect in flight */
    struct vigil__sock *next, *prev; /* the loop's open sockets */
    struct vigil__sock *starved_next; /* the loop's sockets waiting for buffers */
    uint32_t accepted;             /* accepts taken this turn (ready.c) */
    uint32_t accept_cap;           /* ready.c: this turn's limit (grows while the backlog stays full) */
    uint32_t zc_notifs;            /* uring: zero-copy notifications to come (counted in ops) */
    uint64_t accept_turn;          /* the turn they were counted in */
    struct msghdr rx_msg;          /* multishot recvmsg's header (name length) */
    vigil_io io;                   /* ready.c: the socket's readiness */
    vigil_timer timer;             /* connect timeout or retry, EMFILE back-off */
    uint32_t held;                 /* connections accepted while not accepting (net->held) */
    struct vigil__deferred later;  /* delivers the stash, ends a close */
    vigil_sock_close_cb on_close;  /* vigil_sock_set_close_cb: the close's end, whoever closes */
};
_Static_assert(sizeof(struct vigil__sock) <= sizeof(vigil_sock), "vigil_sock too small");
_Static_assert(offsetof(struct vigil__sock, data) == offsetof(vigil_sock, data) &&
                   offsetof(struct vigil__sock, fd) == offsetof(vigil_sock, fd),
               "struct vigil__sock must mirror vigil_sock");
_Static_assert(offsetof(struct vigil__sock, stash_n) == 64, "vigil__sock's hot fields fill its first line");

/* vigil_net_req as the library sees it. A plain send's path (start, completion, end)
 * reads the first 64 bytes and the queue links just after them. */
struct vigil__nreq {
    void *data;
    struct vigil__sock *sock;
    ssize_t result;
    vigil_net_cb cb;
    uint8_t kind;                  /* VIGIL__NK_* */
    uint8_t state;                 /* VIGIL__NR_* */
    uint8_t cancel;                /* cancellation asked */
    uint8_t zc_notif;              /* SEND_ZC: notifications still to come */
    uint32_t pad0_;
    struct vigil__ring_op op;
    const char *buf;               /* SEND, SENDZC, SENDTO, RECV */
    size_t len;                    /* bytes (SEND...), iovec count (SENDV) */
    /* ---- 64 bytes */
    size_t done;                   /* bytes sent so far */
    struct vigil__nreq *next;      /* send queue */
    struct vigil__nreq *done_next; /* deferred queue (a send may be on both at once) */
    ssize_t res;                   /* the end, while deferred */
    const struct iovec *iov;       /* SENDV */
    size_t iov_i, iov_off;         /* SENDV: where the next byte is */
    vigil_net_cb release;          /* SENDZC */
    struct msghdr msg;             /* SENDV, SENDTO (io_uring) */
    struct iovec one;
    socklen_t addrlen;             /* SENDTO, CONNECT */
    uint32_t pad_;
    struct sockaddr_storage addr;  /* SENDTO, CONNECT */
    int64_t deadline;              /* CONNECT: CLOCK_MONOTONIC ns of its timeout, 0 none */
    uint32_t retries;              /* CONNECT: retries after -EAGAIN (AF_UNIX backlog full) */
};
_Static_assert(sizeof(struct vigil__nreq) <= sizeof(vigil_net_req), "vigil_net_req too small");
_Static_assert(offsetof(struct vigil__nreq, data) == offsetof(vigil_net_req, data) &&
                   offsetof(struct vigil__nreq, sock) == offsetof(vigil_net_req, sock) &&
                   offsetof(struct vigil__nreq, result) == offsetof(vigil_net_req, result),
               "struct vigil__nreq must mirror vigil_net_req");

static inline struct vigil__sock *vigil__sock(vigil_sock *s)
{
    return (struct vigil__sock *)(void *)s;
}
static inline vigil_sock *vigil__sock_pub(struct vigil__sock *s)
{
    return (vigil_sock *)(void *)s;
}
static inline struct vigil__nreq *vigil__nreq(vigil_net_req *r)
{
    return (struct vigil__nreq *)(void *)r;
}
static inline vigil_net_req *vigil__nreq_pub(struct vigil__nreq *r)
{
    return (vigil_net_req *)(void *)r;
}

/* The receive-buffer pool: count buffers of size bytes in one mapping. Every buffer is
 * in exactly one place at every moment: the free stack (nfree), the provided-buffer
 * ring (in_ring, io_uring; taken out when its completion is read), a stopped stream's
 * stash (stashed) or the program's hands (lent): nfree + in_ring + stashed + lent ==
 * count (vigil_net_pool_stats_get; checked by the tests and fuzz/net_fuzz.c). Free buffers
 * sit in a stack (the most recently returned on top); on io_uring up to `window` of
 * them are in a provided-buffer ring (group 0) the kernel takes them from, and the
 * stack refills it (uring.c). */
struct vigil__npool {
    char *mem;
    uint32_t size, count;
    vigil_buf *bufs;               /* the descriptors lent to the program */
    uint32_t *link;                /* stash links (id + 1) */
    uint32_t *stack;               /* free ids not in the ring */
    uint32_t nfree;
    uint32_t lent;                 /* buffers the program holds */
    uint32_t stashed;              /* buffers kept for stopped streams (all sockets) */
    void *br;                      /* uring.c: struct io_uring_buf_ring */
    size_t br_bytes;
    uint32_t in_ring, window;      /* uring.c: buffers in the ring, and at most */
    uint32_t shrink_in;            /* uring.c: receives left until the window halves */
    uint32_t refill_below;         /* uring.c: in_ring under this refills from the stack */
};

struct vigil__net_engine;

/* The per-loop state (module VIGIL__MOD_NET). */
struct vigil__net {
    const struct vigil__net_engine *eng;
    struct vigil__npool pool;
    struct vigil__nreq *done_head, *done_tail; /* ends waiting for the completion point */
    struct vigil__deferred done_later;
    struct vigil__deferred tw_later; /* uring.c: runs the kernel's leftover completion work */
    uint32_t tw_guess;               /* uring.c, taskrun_rest: the leftover work expected */
    struct vigil__sock *open;      /* open and closing sockets */
    struct vigil__sock *starved, *starved_tail; /* sockets waiting for pool buffers, oldest first */
    struct vigil__held *held;      /* connections accepted while their listener did not accept */
    uint32_t nheld, held_cap;
    bool freeing;                  /* vigil_loop_free runs */
};

/* A connection the kernel gave a listener that had stopped accepting (io_uring: a
 * multishot accept completes between the stop and its cancellation), kept for the next
 * start. Listeners' held connections sit in one array per loop, in accept order. */
struct vigil__held {
    struct vigil__sock *s;
    int fd;
};

static inline struct vigil__net *vigil__net_of(vigil_loop *loop)
{
    return (struct vigil__net *)loop->mod[VIGIL__MOD_NET];
}

/* An engine. Every call is made with the socket open unless said otherwise. */
struct vigil__net_engine {
    const char *name;
    int (*setup)(vigil_loop *loop, struct vigil__net *n);       /* the pool exists */
    void (*fini)(vigil_loop *loop, struct vigil__net *n);        /* no socket left */
    int (*open)(vigil_loop *loop, struct vigil__sock *s);
    /* The socket's wanted receive or accept state changed (S_ACCEPT, S_RECV, S_STARVED,
     * S_PAUSED): arm or disarm. */
    void (*rx_update)(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s);
    /* Start performing the send queue's head (the queue was empty before it). */
    void (*send)(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r);
    void (*recv)(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r);
    void (*connect)(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r);
    /* Cancel r (INFLIGHT, or the send queue's head): its end comes later. */
    void (*cancel)(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r);
    /* A buffer came back to the pool, and the engine's ring has room for it (pool.c,
     * buf_back: in_ring below the window; never called otherwise). */
    void (*buf_put)(vigil_loop *loop, struct vigil__net *n, uint32_t id);
    /* Close started: nothing may stay armed; 0 when nothing of the socket is left in
     * the kernel (close may finish), else its ends will come. */
    unsigned (*close)(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s);
    /* The sender of a datagram kept in buffer id (stashed while its stream was
     * stopped), or NULL when the engine does not keep it. May be NULL. */
    const struct sockaddr *(*dgram_from)(struct vigil__net *n, uint32_t id, socklen_t *len);
};

extern const struct vigil__net_engine vigil__net_engine_uring;
extern const struct vigil__net_engine vigil__net_engine_ready;

/* pool.c */
struct vigil__net *vigil__net_state(vigil_loop *loop, const struct vigil_net_options *opt, int *err);

/* done.c: the completion queue, which owns every request's end. */
/* Ends r with res at the turn's completion point (from a call that started it, where
 * no callback may run). A send queue's head ends through vigil__net_send_done, a
 * connect or own-buffer receive through vigil__net_single_done. */
void vigil__net_defer(vigil_loop *loop, struct vigil__net *n, struct vigil__nreq *r, ssize_t res);
/* Runs the ends queued for the completion point, until none is left. */
void vigil__net_done_run(vigil_loop *loop, struct vigil__net *n);
/* Sets up n's queue. */
void vigil__net_done_init(struct vigil__net *n);
/* A pool buffer id taken by a receive, handed to the program. */
static inline vigil_buf *vigil__net_lend(struct vigil__net *n, uint32_t id, uint32_t len, uint32_t offset)
{
    vigil_buf *b = &n->pool.bufs[id];
    b->data = n->pool.mem + (size_t)id * n->pool.size + offset;
    b->len = len;
    n->pool.lent++;
    return b;
}

/* loop->active, the count that keeps vigil_loop_run(DEFAULT) going, in one pair: a
 * socket counts once from each start to its stop -- a request from its start to its
 * callback, a receive stream or accepting from its start to its stop (or end), a
 * closing socket from vigil_sock_close to its close callback. */
static inline void vigil__net_active_start(vigil_loop *loop)
{
    loop->active++;
}
static inline void vigil__net_active_stop(vigil_loop *loop)
{
    loop->active--;
}

/* Every socket callback is made through this: it counts as a callback of the loop
 * (loop->in_callback), as fd watchers', timers', signals' and file requests' do, so the
 * rules of <vigil/net.h> ("Callbacks") hold: vigil_loop_free from inside one is refused
 * with -EBUSY, also while vigil_loop_free itself drains the sockets. */
#define VIGIL__NET_CALL(loop, call)                                                    \
    do {                                                                               \
        (loop)->in_callback++;                                                         \
        call;                                                                          \
        (loop)->in_callback--;                                                         \
    } while (0)

/* r ended with res: its callback runs now. r is off every list of the library already
 * (its socket's send queue, rreq, creq, the completion queue); this is the one place a
 * request's callback is called. */
void vigil__net_finish(vigil_loop *loop, struct vigil__net *n, struct vigil__nreq *r, ssize_t res);

/* sock.c: the engines' ways back */
/* The head of s's send queue ended: out is its result (every byte counted with
 * vigil__net_advance, or a negative errno); performs the next one. */
static inline void vigil__net_send_done(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, ssize_t out);
/* sock.c: vigil__net_send_done but its common end, and what follows any end (the next
 * queued send started, or a pending shutdown made; then the close the callback asked
 * for). */
void vigil__net_send_done_general(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, ssize_t out);
void vigil__net_send_tail(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s);
/* Counts n more bytes sent by r; true once every byte is sent. */
bool vigil__net_advance(struct vigil__nreq *r, size_t n);
/* A connect or own-buffer receive ended. */
void vigil__net_single_done(vigil_loop *loop, struct vigil__net *n, struct vigil__nreq *r, ssize_t res);
/* Received bytes (res > 0, a pool buffer id), end of stream or an error, for s's
 * stream; from/fromlen for a datagram. Stashes the buffer if the stream stopped. */
void vigil__net_deliver(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, ssize_t res, uint32_t id,
                        uint32_t offset, const struct sockaddr *from, socklen_t fromlen);
/* An accept's result for s. */
void vigil__net_accepted(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, int fd);
/* The pool ran dry under s: it waits for a buffer to come back, behind those that
 * waited longer. */
void vigil__net_starve(struct vigil__net *n, struct vigil__sock *s);
/* s closes: off the waiting list. */
void vigil__net_unstarve(struct vigil__net *n, struct vigil__sock *s);
/* Buffer id goes back to the pool (not lent: a stashed or unused one); sockets that
 * waited for a buffer receive again. */
void vigil__net_buf_back(vigil_loop *loop, struct vigil__net *n, uint32_t id);
/* An own-buffer receive r on s (in flight, s->rreq) takes the bytes a stopped stream
 * kept (older than anything still in the kernel), ending at the completion point;
 * false when nothing is kept. */
bool vigil__net_recv_stash(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, struct vigil__nreq *r);
/* A closing socket's last op ended (uring.c). */
void vigil__net_close_maybe(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s);
/* Where a send's next bytes are: one iovec or a run of the caller's. */
int vigil__net_send_iov(struct vigil__nreq *r, const struct iovec **iov);

/* The common end inline (see the declaration above). */
static inline void vigil__net_send_done(vigil_loop *loop, struct vigil__net *n, struct vigil__sock *s, ssize_t out)
{
    /* Off the queue before its callback runs: nothing else can end it now. */
    struct vigil__nreq *r = s->sq_head;
    if (!r->next && r->kind == VIGIL__NK_SEND && !r->cancel) {
        /* The common end, the socket's only send, plain and not cancelled: what
         * vigil__net_finish and vigil__net_send_done_general do for it, in one frame
         * (callgrind, the echo server under net-echo 100 x 4 KiB on io_uring: 517 -> 462
         * user instructions per request), and inline in the engines' completions (no
         * call of its own: io_uring's send_complete and this end, 59 -> 53 instructions
         * per send there). After the callback, anything it left to do (a send it queued
         * behind one it started, a shutdown, a close) takes the general tail. */
        s->sq_head = s->sq_tail = NULL;
        r->state = VIGIL__NR_IDLE;
        r->result = out;
        vigil__net_active_stop(loop);
        VIGIL__NET_CALL(loop, r->cb(loop, vigil__nreq_pub(r), out));
        if (!s->sq_head && !(s->state & (VIGIL__S_CLOSING | VIGIL__S_SHUT_DO)))
            return;
        if (s->state & VIGIL__S_CLOSING) /* vigil__net_finish's end */
            vigil__net_close_maybe(loop, n, s);
        vigil__net_send_tail(loop, n, s);
        return;
    }
    vigil__net_send_done_general(loop, n, s, out);
}

#endif
