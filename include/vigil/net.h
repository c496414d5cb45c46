/* vigil: sockets as completions.
 *
 * A readiness loop tells a program that a socket is readable; the program then calls
 * recv() and send() itself, two system calls per request beside the turn's wait. Here
 * the program asks for the work -- accept, connect, receive, send -- and vigil tells it
 * when the work is done:
 *
 *   io_uring  every request is an io_uring operation that rides the turn's one
 *             io_uring_enter: multishot accept, multishot receive into a provided-buffer
 *             ring the loop owns, send with MSG_WAITALL (the kernel continues a short
 *             send itself), connect, multishot recvmsg for datagrams, SEND_ZC;
 *   epoll,    vigil emulates the completions with readiness and non-blocking calls: a
 *   poll      send is tried at once (done in the call, reported at the turn's completion
 *             point); a receive reads when the socket is readable. A program runs
 *             unchanged on all three and gets the same callbacks in the same order.
 *
 *   vigil_sock s = {0};                       // caller-owned, zeroed before first use
 *   vigil_sock_open(loop, &s, fd);           // vigil owns fd from here on
 *   vigil_sock_recv_start(loop, &s, on_data); // data arrives in loop-owned buffers
 *   ... on_data(loop, &s, n, buf): use buf->data[0..n), then vigil_buf_put(loop, buf)
 *   vigil_sock_send(loop, &s, &req, p, len, on_sent); // on_sent once every byte is sent
 *   vigil_sock_close(loop, &s, on_closed);    // every request completes, then on_closed
 *
 * Memory: sockets and requests are the caller's structs (embed them in your own
 * objects); receive buffers come from one pool per loop, allocated once by
 * vigil_net_setup (or the first vigil_sock_open). No request allocates anything.
 *
 * Callbacks run in the loop thread, never inside the call that started the work. Every
 * request's callback runs exactly once: with its result, or -ECANCELED when its socket
 * was closed or the request cancelled first, or when the loop is freed with it in flight
 * (vigil_loop_free closes every socket still open, and runs each one's close callback:
 * vigil_sock_set_close_cb). Loop thread only, as every vigil call but vigil_loop_wakeup.
 *
 * What a callback may call. Every socket callback (accept, receive, a request's end, a
 * zero-copy release, close) is a callback of the loop like an fd watcher's or a timer's,
 * under the same rules:
 *   - any call of this header on any socket or request of the loop, the one the
 *     callback is about included: vigil_sock_close, vigil_net_cancel,
 *     vigil_sock_shutdown, a new send or receive, vigil_sock_recv_stop,
 *     vigil_sock_accept_stop, vigil_buf_put; each request still ends exactly once (a
 *     request's callback runs after it left every queue of the library, and a socket's
 *     next queued send starts only after the previous one's callback returned);
 *   - the loop's other calls (timers, fd watchers, vigil_loop_stop);
 *   - not vigil_loop_free (refused, -EBUSY) nor vigil_loop_run (refused, -EBUSY).
 * While vigil_loop_free closes the sockets left open, their requests' callbacks
 * (-ECANCELED) and close callbacks run inside it, under the same rules; there calls that
 * would start work (a send, a receive, vigil_sock_open, vigil_sock_connect) fail with
 * -ECANCELED, and the struct around a socket may be freed in its close callback.
 */
#ifndef VIGIL_NET_H
#define VIGIL_NET_H
/* Included by vigil.h; may also be included on its own. */

#include "vigil/loop.h"

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_sock vigil_sock;
typedef struct vigil_net_req vigil_net_req;
typedef struct vigil_buf vigil_buf;

/* A receive buffer of the loop's pool, lent to the program by a receive callback. Give
 * it back with vigil_buf_put once done with its bytes (it may be kept across turns, e.g.
 * until the send that echoes it completes). While the pool is empty no socket receives:
 * the data waits in the kernel, and receiving resumes when buffers come back. */
struct vigil_buf {
    char *data;           /* the received bytes */
    uint32_t len;         /* how many (the callback's res) */
    uint32_t private_id;  /* the library's: the buffer's index in the pool */
};

/* fd >= 0: a new connection (close-on-exec; hand it to vigil_sock_open, or close it).
 * fd < 0: a negative errno; -EMFILE/-ENFILE are reported once, then accepting pauses
 * for VIGIL_NET_ACCEPT_BACKOFF_MS and retries by itself after each such pause (no busy
 * loop); retries that fail the same way are not reported again until a connection has
 * been accepted. Any other error stops accepting (vigil_sock_accepting() turns 0). */
typedef void (*vigil_accept_cb)(vigil_loop *loop, vigil_sock *listener, int fd);
/* res > 0: buf holds res bytes (give buf back with vigil_buf_put). res == 0: end of
 * stream (buf NULL). res < 0: a negative errno (-ECONNRESET...), buf NULL. After 0 or
 * an error the receive stream has stopped. vigil_sock_close stops a stream as
 * vigil_sock_recv_stop does: no callback after it (no -ECANCELED). */
typedef void (*vigil_recv_cb)(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf);
/* A datagram: as vigil_recv_cb, with the sender's address (valid during the call; a
 * datagram kept while the stream was stopped has it too). A datagram of 0 bytes arrives
 * as res 0 with a buffer, and does not stop the stream.
 * Datagrams of up to buf_size - 144 bytes arrive whole on every backend (io_uring keeps
 * a header and the address in the buffer); a longer one that does not fit is not
 * delivered cut: it is reported as res -EMSGSIZE, buf NULL, with its sender, and the
 * stream goes on. */
typedef void (*vigil_recvfrom_cb)(vigil_loop *loop, vigil_sock *s, ssize_t res, vigil_buf *buf,
                                  const struct sockaddr *from, socklen_t fromlen);
/* A request's end: res as the call would return (bytes, 0 for connect) or a negative
 * errno. The request is idle when this runs and may be started again. */
typedef void (*vigil_net_cb)(vigil_loop *loop, vigil_net_req *req, ssize_t res);
/* vigil_sock_close is over: every request has completed and the fd is closed. s may be
 * freed or reused (zero it first) from here on. */
typedef void (*vigil_sock_close_cb)(vigil_loop *loop, vigil_sock *s);

/* A socket adopted by the loop. Zero it before first use. */
struct vigil_sock {
    void *data;            /* the caller's */
    int fd;                /* read-only: the socket, -1 once closed */
    uint32_t private_w;    /* the library's */
    uint64_t private_[58]; /* the library's (the struct is 480 bytes) */
};

/* A request: the caller's struct (zero it before first use), reused after its callback.
 * The buffers it names must stay valid until its callback ran. */
struct vigil_net_req {
    void *data;            /* the caller's */
    vigil_sock *sock;      /* read-only: the socket it was started on */
    ssize_t result;        /* read-only: the callback's res, once it ran */
    uint64_t private_[45]; /* the library's (the struct is 384 bytes) */
};

struct vigil_net_options {
    uint32_t size;      /* sizeof(struct vigil_net_options); set by _init */
    uint32_t buf_size;  /* bytes per receive buffer; default 4096 */
    uint32_t buf_count; /* buffers in the pool, a power of two <= 32768; default 4096 */
    uint32_t flags;     /* 0 */
    uint64_t reserved[6];
};

/* Pause after EMFILE/ENFILE before accepting again. */
#define VIGIL_NET_ACCEPT_BACKOFF_MS 50

VIGIL_EXPORT void vigil_net_options_init(struct vigil_net_options *opt);
/* Sets up the loop's sockets: the receive-buffer pool (and, on io_uring, registers it as
 * a provided-buffer ring; the ring holds a window of the free buffers, the most recently
 * returned, widened when a turn's receives empty it, so a large pool costs address
 * space, not cache). Optional: the first vigil_sock_open sets up the defaults.
 * -EBUSY if already set up, -EINVAL for bad options, -ENOMEM. */
VIGIL_EXPORT int vigil_net_setup(vigil_loop *loop, const struct vigil_net_options *opt);

/* Adopts fd, a socket (TCP, UDP, Unix; listening, connected or neither): from here on
 * vigil owns it and vigil_sock_close closes it. On epoll and poll fd is made
 * non-blocking. -ENOTSOCK if fd is not a socket, -EBADF if it is not open, -EBUSY if s
 * is open already. */
VIGIL_EXPORT int vigil_sock_open(vigil_loop *loop, vigil_sock *s, int fd);

/* Accepting on a listening socket: cb gets each new connection. On epoll and poll a
 * turn takes VIGIL_NET_ACCEPT_BATCH connections at first; the rest wait in the kernel's
 * backlog for the next turn, and while the backlog outlasts a turn's limit the limit
 * doubles (up to 4096), halving back once turns empty the backlog easily: a burst is
 * taken in a few turns before the listen queue overflows. On io_uring one multishot accept takes them as
 * they arrive, and a turn reads at most 4096 completions (the rest wait in the
 * completion ring for the next turn). -EINVAL if s is not listening, -EBUSY if it
 * accepts or receives already. After vigil_sock_accept_stop no callback runs; a
 * connection the kernel hands over anyway (io_uring's accept completing before its
 * cancellation) is held for the next start, which delivers it first, and closed by
 * vigil_sock_close. */
#define VIGIL_NET_ACCEPT_BATCH 64
VIGIL_EXPORT int vigil_sock_accept_start(vigil_loop *loop, vigil_sock *s, vigil_accept_cb cb);
VIGIL_EXPORT int vigil_sock_accept_stop(vigil_loop *loop, vigil_sock *s);
VIGIL_EXPORT int vigil_sock_accepting(const vigil_sock *s);

/* Connects s to addr; cb gets 0 or a negative errno (-ECONNREFUSED, -ETIMEDOUT when
 * timeout_ns > 0 passed first). It waits as a blocking connect would, on every backend:
 * to an AF_UNIX listener whose backlog is full it is tried again after pauses from 1 ms
 * doubling to 64 ms (nothing signals room). -EBUSY if s connects already, -EINVAL for a
 * bad address length. */
VIGIL_EXPORT int vigil_sock_connect(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const struct sockaddr *addr,
                                    socklen_t addrlen, int64_t timeout_ns, vigil_net_cb cb);

/* A receive stream: cb gets the data as it arrives, in the pool's buffers (multishot
 * receive on io_uring). -EBUSY if s receives or accepts already, -EPIPE if s was shut
 * down for reading. Stopping is immediate: no callback after vigil_sock_recv_stop
 * returns (data the kernel had already placed in a buffer is kept for the next start). */
VIGIL_EXPORT int vigil_sock_recv_start(vigil_loop *loop, vigil_sock *s, vigil_recv_cb cb);
/* The same for datagrams, with the sender's address (multishot recvmsg on io_uring). */
VIGIL_EXPORT int vigil_sock_recvfrom_start(vigil_loop *loop, vigil_sock *s, vigil_recvfrom_cb cb);
VIGIL_EXPORT int vigil_sock_recv_stop(vigil_loop *loop, vigil_sock *s);
/* Gives a buffer back to the pool (a NULL buf, or one given back already, is ignored). */
VIGIL_EXPORT void vigil_buf_put(vigil_loop *loop, vigil_buf *buf);
/* Buffers lent to the program now (for tests and leak checks). */
VIGIL_EXPORT unsigned vigil_net_bufs_lent(vigil_loop *loop);

/* Where the pool's buffers are. Every buffer is in exactly one place at every moment
 * (between calls, and inside any callback): free + in_ring + stashed + lent == size. */
struct vigil_net_pool_stats {
    uint32_t size;        /* buffers in the pool (vigil_net_options.buf_count) */
    uint32_t buf_size;    /* bytes per buffer */
    uint32_t free;        /* free, not offered to the kernel */
    uint32_t in_ring;     /* io_uring: offered to the kernel in the provided-buffer ring
                             (a buffer the kernel filled counts here until its completion
                             is read); 0 on epoll and poll */
    uint32_t stashed;     /* holding bytes received for a stopped stream (delivered at its
                             next start, or to vigil_sock_recv) */
    uint32_t lent;        /* held by the program (vigil_net_bufs_lent) */
    uint64_t reserved[5]; /* zero */
};
/* Fills out; all zero before the loop's sockets are set up. -EINVAL for NULL. */
VIGIL_EXPORT int vigil_net_pool_stats_get(vigil_loop *loop, struct vigil_net_pool_stats *out);

/* One receive into the caller's buffer: cb gets the byte count (> 0), 0 at end of
 * stream, or a negative errno. Bytes a stopped receive stream had already received come
 * first, as they would at the stream's next start. -EBUSY while a receive stream runs,
 * -EINVAL for len 0. */
VIGIL_EXPORT int vigil_sock_recv(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, void *buf, size_t len,
                                 vigil_net_cb cb);

/* Sends len bytes; cb gets len once every byte is sent (a short send is continued by
 * vigil, or by the kernel on io_uring), or a negative errno. Sends on one socket are
 * performed and completed in the order they were started. Never raises SIGPIPE: a peer
 * that went away gives -EPIPE. -EINVAL for len 0, -EPIPE after vigil_sock_shutdown
 * (SHUT_WR), -EBUSY if req is in flight. */
VIGIL_EXPORT int vigil_sock_send(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const void *buf, size_t len,
                                 vigil_net_cb cb);
/* Vectored: iovcnt (1..IOV_MAX) buffers; iov itself must stay valid until cb ran. */
VIGIL_EXPORT int vigil_sock_sendv(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const struct iovec *iov,
                                  int iovcnt, vigil_net_cb cb);
/* Zero-copy send where the kernel offers it (io_uring SEND_ZC): cb reports the send as
 * vigil_sock_send does; release then runs once the kernel no longer reads buf (after
 * cb). Only then may buf change. On epoll and poll the bytes are copied and release
 * runs right after cb. */
VIGIL_EXPORT int vigil_sock_send_zc(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const void *buf,
                                    size_t len, vigil_net_cb cb, vigil_net_cb release);
/* One datagram to addr (addrlen <= sizeof(struct sockaddr_storage)); addr is copied. */
VIGIL_EXPORT int vigil_sock_sendto(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const void *buf, size_t len,
                                   const struct sockaddr *addr, socklen_t addrlen, vigil_net_cb cb);

/* Cancels one request in flight: its callback runs once, later, with -ECANCELED or its
 * result if it finished first. A send cancelled half way may have sent part of its
 * bytes. -ENOENT if req is not in flight. */
VIGIL_EXPORT int vigil_net_cancel(vigil_loop *loop, vigil_net_req *req);

/* shutdown(2) once the sends started before it have completed (SHUT_WR, SHUT_RDWR);
 * sends started after it fail with -EPIPE. SHUT_RD stops the receive stream now. */
VIGIL_EXPORT int vigil_sock_shutdown(vigil_loop *loop, vigil_sock *s, int how);

/* Closes s: stops accepting and receiving, completes every request in flight (its
 * callback runs with -ECANCELED, or its result if it finished first), closes the fd,
 * then runs cb (may be NULL). A zero-copy send's release may come after the fd closed
 * (the kernel lets go of the pages then), always before cb. Buffers the program holds
 * stay valid until it puts them back. -EBADF if s is not open (a second close).
 * A socket whose file stays open elsewhere (a dup, a forked child's copy) is safe to
 * close: on epoll vigil deletes its registration before close(), so the file leaves the
 * loop's set (tests/net/close_dup.c). */
VIGIL_EXPORT int vigil_sock_close(vigil_loop *loop, vigil_sock *s, vigil_sock_close_cb cb);

/* The callback that tells the program s's close is over, whoever closed it: it runs
 * once, when the close ends (as vigil_sock_close's cb would), for a close by
 * vigil_sock_close with a NULL cb and for the close vigil_loop_free makes of every
 * socket still open. A non-NULL cb given to vigil_sock_close takes precedence for that
 * close. So a program learns the end of every socket it opened and may free the struct
 * around it there. Call it after vigil_sock_open (which clears it); cb NULL clears it.
 * -EBADF if s is not open (closing or closed), -EINVAL for a NULL s. */
VIGIL_EXPORT int vigil_sock_set_close_cb(vigil_sock *s, vigil_sock_close_cb cb);

/* ------------------------------------------ listening and connecting in one call
 *
 * Addresses as text, numeric only (a host name is -EINVAL here: name lookup is not
 * these calls' job):
 *   "127.0.0.1:8080"        TCP over IPv4; "0.0.0.0:8080" every IPv4 interface
 *   "[::1]:8080"            TCP over IPv6; "[::]:8080" every interface;
 *                           "[fe80::1%eth0]:8080" a link-local address with its scope
 *                           (an interface name or index)
 *   "/run/app.sock", "unix:app.sock"
 *                           an AF_UNIX socket at a path: any text with a '/', or the
 *                           path after "unix:" (relative paths too)
 *   "@app"                  an AF_UNIX socket with an abstract name (Linux: no file;
 *                           the name is the bytes after '@')
 * The port is decimal, 0 to 65535 (0: the kernel picks one, read it with
 * getsockname). */

/* Fills *addr from text; returns the address's length (> 0) to pass with it, or
 * -EINVAL (not one of the forms above: no port, a port over 65535, a host name, an
 * unknown scope, an empty path or name), -ENAMETOOLONG (a path or abstract name over
 * 107 bytes: sun_path's 108 less the path's NUL or the abstract name's leading 0). */
VIGIL_EXPORT int vigil_net_addr_parse(const char *text, struct sockaddr_storage *addr);

#define VIGIL_NET_REUSEPORT 0x1u /* SO_REUSEPORT: several listeners (threads, processes) on
                                    one TCP address, the kernel spreading connections */
#define VIGIL_NET_V6ONLY 0x2u    /* IPV6_V6ONLY: an IPv6 listener takes IPv6 only */

/* A listening stream socket for text (see above), close-on-exec and non-blocking,
 * ready for vigil_sock_open + vigil_sock_accept_start (or a vigil_io watcher and
 * accept4). Returns the fd (>= 0; the caller owns it) or a negative errno. backlog goes
 * to listen(2) as asked (the kernel caps it at net.core.somaxconn; pass SOMAXCONN for
 * that cap). TCP listeners get SO_REUSEADDR (a restarted server binds while its old
 * connections are in TIME_WAIT). An IPv6 listener takes IPv4 connections too (as
 * ::ffff:a.b.c.d) unless flags has VIGIL_NET_V6ONLY: IPV6_V6ONLY is set to 0 or 1
 * either way, so the result never depends on the net.ipv6.bindv6only sysctl (bound to
 * one IPv6 address, such as ::1, the kernel sets it to 1 itself); a dual-stack
 * "[::]:port" and a "0.0.0.0:port" listener conflict (-EADDRINUSE). An
 * AF_UNIX path must not exist (-EADDRINUSE: remove a stale one first); a path made by
 * a call that then fails is removed. Errors: those of vigil_net_addr_parse; -EINVAL
 * for a negative backlog, unknown flags, VIGIL_NET_REUSEPORT on AF_UNIX or
 * VIGIL_NET_V6ONLY on a non-IPv6 address; socket(2), bind(2) and listen(2)'s own
 * (-EADDRINUSE, -EADDRNOTAVAIL for an address no interface has, -EACCES,
 * -EAFNOSUPPORT where the kernel has no IPv6, -EMFILE). */
VIGIL_EXPORT int vigil_net_listen(const char *text, int backlog, uint32_t flags);
/* The same for an address already in a sockaddr (AF_INET, AF_INET6 or AF_UNIX, else
 * -EAFNOSUPPORT; -EINVAL for a NULL addr or a length outside sa_family_t ..
 * sizeof(struct sockaddr_storage)). */
VIGIL_EXPORT int vigil_net_listen_addr(const struct sockaddr *addr, socklen_t addrlen, int backlog,
                                       uint32_t flags);

/* Makes a stream socket for text's address (see above), opens it on s
 * (vigil_sock_open: s owns it from here on) and starts vigil_sock_connect on it with
 * req, timeout_ns and cb: cb gets 0 once connected, or a negative errno, exactly as
 * vigil_sock_connect's would; after a failed connect s stays open (close it with
 * vigil_sock_close). Returns 0 when the connect started. On an error returned here no
 * socket was made and s is as it was: the errors of vigil_net_addr_parse; -EINVAL for a
 * NULL loop, s, req or cb or a negative timeout_ns; -EBUSY if s is open (or closing)
 * or req in flight; -ECANCELED while vigil_loop_free runs; socket(2)'s (-EMFILE,
 * -EAFNOSUPPORT). */
VIGIL_EXPORT int vigil_net_connect(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const char *text,
                                   int64_t timeout_ns, vigil_net_cb cb);
/* The same for an address in a sockaddr (AF_INET, AF_INET6, AF_UNIX; else
 * -EAFNOSUPPORT). */
VIGIL_EXPORT int vigil_net_connect_addr(vigil_loop *loop, vigil_sock *s, vigil_net_req *req,
                                        const struct sockaddr *addr, socklen_t addrlen, int64_t timeout_ns,
                                        vigil_net_cb cb);

#ifdef __cplusplus
}
#endif
#endif
