/* A small HTTP/1.1 server on vigil's sockets API: the work nginx does for
 * `location / { return 200 "Hello, world!\n"; }`. A starting point, not a framework.
 *
 *   ./http_hello [port [linger_ms]]   prints "ready" once listening; SIGINT/SIGTERM stop it
 *   curl -i http://127.0.0.1:8080/
 *
 * What it does with each connection:
 *   - reads each request's line and headers up to the blank line, straight from the
 *     loop's receive buffers (a request split across reads is gathered in the
 *     connection's own buffer first); a body announced by Content-Length is skipped;
 *   - answers pipelined requests in order, all the answers to one read in one send;
 *   - answers a malformed request (bad request line, bad header, a head over 8 KiB,
 *     Transfer-Encoding it does not decode) with 400 and closes, as nginx does;
 *   - keeps the connection open (HTTP/1.1, or HTTP/1.0 with "Connection: keep-alive")
 *     unless the request says "Connection: close"; then it sends the answer, shuts its
 *     side down and closes once the peer has closed too (so the answer is not reset),
 *     or after LINGER_MS (5 s, nginx's lingering_timeout) if the peer never does;
 *   - sends Server, Date, Content-Type, Content-Length and Connection, as nginx.
 * While one send is in flight the next answers gather in a second buffer; when both
 * are full the connection stops receiving until the send completes (back-pressure).
 */
#include <vigil.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BODY "Hello, world!\n"
#define HEAD_MAX 8192  /* a request head longer than this is refused (400) */
#define OUT_SIZE 16384 /* each of the two answer buffers */
#define ANSWER_MAX 512 /* room one answer needs */
#define LINGER_MS 5000 /* after the last answer, how long the peer has to close */

static int64_t linger_ns = (int64_t)LINGER_MS * 1000000;

struct conn {
    vigil_sock sock;
    vigil_net_req send;
    char out[2][OUT_SIZE];  /* answers: one buffer in flight, the other filling */
    size_t outlen[2];
    int fill;               /* the buffer answers are added to */
    bool sending, receiving;
    bool closing;           /* no more requests: send what is queued, then close */
    bool shut;              /* our side is shut down: wait for the peer's end */
    bool closed;            /* vigil_sock_close was called */
    vigil_timer linger;     /* while shut: the peer's time to close */
    size_t skip;            /* body bytes of the last request still to skip */
    vigil_buf *held;        /* the receive buffer being answered (NULL: none) */
    size_t held_off;        /* how far into it */
    size_t inlen;           /* bytes of an incomplete head kept in in[] */
    char in[HEAD_MAX];
};

/* ------------------------------------------------------------ the answer */

static char date[40];
static time_t date_at = -1;

static const char *http_date(void)
{
    time_t now = time(NULL);
    if (now != date_at) { /* once a second, as nginx caches it */
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        date_at = now;
    }
    return date;
}

static void add_answer(struct conn *c, int status, bool keep)
{
    static const char bad[] = "<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n"
                               "<center><h1>400 Bad Request</h1></center>\r\n</body>\r\n</html>\r\n";
    char *p = c->out[c->fill] + c->outlen[c->fill];
    int n = status == 200
                ? snprintf(p, ANSWER_MAX,
                           "HTTP/1.1 200 OK\r\nServer: vigil\r\nDate: %s\r\nContent-Type: text/plain\r\n"
                           "Content-Length: %zu\r\nConnection: %s\r\n\r\n" BODY,
                           http_date(), sizeof BODY - 1, keep ? "keep-alive" : "close")
                : snprintf(p, ANSWER_MAX,
                           "HTTP/1.1 400 Bad Request\r\nServer: vigil\r\nDate: %s\r\nContent-Type: text/html\r\n"
                           "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                           http_date(), sizeof bad - 1, bad);
    c->outlen[c->fill] += (size_t)n;
}

/* ------------------------------------------------------------ the parser */

static bool is_tchar(int ch)
{
    return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* One request head (without its blank line): 1 keep-alive, 0 close, -1 malformed.
 * *body gets the Content-Length. */
static int parse_head(const char *h, const char *end, size_t *body)
{
    const char *p = h;
    while (p < end && is_tchar((unsigned char)*p)) /* method */
        p++;
    if (p == h || p >= end || *p++ != ' ')
        return -1;
    const char *target = p;
    while (p < end && *p != ' ' && *p != '\r' && (unsigned char)*p > 0x20)
        p++;
    if (p == target || p >= end || *p++ != ' ')
        return -1;
    if (end - p < 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
        return -1;
    bool keep = p[7] == '1';
    p += 8;
    if (p < end && *p == '\r')
        p++;
    if (p < end && *p++ != '\n')
        return -1;
    *body = 0;
    while (p < end && *p != '\r' && *p != '\n') { /* headers: name ":" value CRLF */
        const char *name = p;
        while (p < end && is_tchar((unsigned char)*p))
            p++;
        size_t nlen = (size_t)(p - name);
        if (!nlen || p >= end || *p++ != ':')
            return -1;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *val = p;
        while (p < end && *p != '\r' && *p != '\n')
            p++;
        size_t vlen = (size_t)(p - val);
        while (vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\t'))
            vlen--;
        if (p < end && *p == '\r')
            p++;
        if (p < end && *p++ != '\n')
            return -1;
        if (nlen == 10 && strncasecmp(name, "connection", 10) == 0) {
            if (vlen == 5 && strncasecmp(val, "close", 5) == 0)
                keep = false;
            else if (vlen == 10 && strncasecmp(val, "keep-alive", 10) == 0)
                keep = true;
        } else if (nlen == 14 && strncasecmp(name, "content-length", 14) == 0) {
            size_t v = 0;
            if (!vlen)
                return -1;
            for (size_t i = 0; i < vlen; i++) {
                if (!isdigit((unsigned char)val[i]) || v > (SIZE_MAX - 9) / 10)
                    return -1;
                v = v * 10 + (size_t)(val[i] - '0');
            }
            *body = v;
        } else if (nlen == 17 && strncasecmp(name, "transfer-encoding", 17) == 0) {
            return -1; /* chunked bodies are not decoded here */
        }
    }
    return keep;
}

/* The end of the first head in [p, end): the byte after its blank line, or NULL. */
static const char *head_end(const char *p, const char *end)
{
    for (const char *q = p; q + 1 < end; q++) {
        q = memchr(q, '\n', (size_t)(end - q));
        if (!q || q + 1 >= end)
            return NULL;
        if (q[1] == '\n')
            return q + 2;
        if (q[1] == '\r' && q + 2 < end && q[2] == '\n')
            return q + 3;
    }
    return NULL;
}

/* Answers every complete request in [p, end); returns where the unanswered rest starts. */
static const char *answer_all(struct conn *c, const char *p, const char *end)
{
    while (p < end && !c->closing) {
        if (c->skip) {
            size_t k = (size_t)(end - p) < c->skip ? (size_t)(end - p) : c->skip;
            p += k, c->skip -= k;
            continue;
        }
        while (p < end && (*p == '\r' || *p == '\n')) /* blank lines between requests */
            p++;
        const char *e = head_end(p, end);
        if (!e) {
            if (end - p >= HEAD_MAX) { /* too long to ever complete */
                add_answer(c, 400, false);
                c->closing = true;
                return end;
            }
            return p;
        }
        if (e - p > HEAD_MAX) {
            add_answer(c, 400, false);
            c->closing = true;
            return end;
        }
        size_t body = 0;
        int keep = parse_head(p, e, &body);
        add_answer(c, keep < 0 ? 400 : 200, keep > 0);
        if (keep <= 0)
            c->closing = true;
        c->skip = body;
        p = e;
        if (c->outlen[c->fill] + ANSWER_MAX > OUT_SIZE)
            break; /* this buffer is full: the rest waits in[] for the next send */
    }
    return c->closing ? end : p;
}

/* ----------------------------------------------------------- the socket */

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf);
static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res);

static void on_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop;
    free(s->data);
}

static void close_conn(vigil_loop *loop, struct conn *c)
{
    vigil_timer_stop(loop, &c->linger);
    if (!c->closed) {
        c->closed = true;
        vigil_sock_close(loop, &c->sock, on_closed);
    }
}

static void on_linger_end(vigil_loop *loop, vigil_timer *t)
{
    close_conn(loop, (struct conn *)((char *)t - offsetof(struct conn, linger)));
}

static bool out_full(const struct conn *c)
{
    return c->outlen[c->fill] + ANSWER_MAX > OUT_SIZE;
}

/* Answers what the held receive buffer (and an incomplete head gathered before it)
 * holds, until it is all read or the answer buffer is full. */
static void process(vigil_loop *loop, struct conn *c)
{
    while (c->held && !c->closing && !out_full(c)) {
        const char *p = c->held->data + c->held_off, *end = c->held->data + c->held->len;
        if (c->inlen) { /* an incomplete head waits in in[]: gather, answer from there */
            size_t k = (size_t)(end - p) < HEAD_MAX - c->inlen ? (size_t)(end - p) : HEAD_MAX - c->inlen;
            memcpy(c->in + c->inlen, p, k);
            c->inlen += k;
            c->held_off += k;
            const char *rest = answer_all(c, c->in, c->in + c->inlen);
            size_t left = (size_t)(c->in + c->inlen - rest);
            if (left == HEAD_MAX && !out_full(c)) { /* 8 KiB and still no blank line */
                add_answer(c, 400, false);
                c->closing = true;
                left = 0;
            }
            memmove(c->in, rest, left);
            c->inlen = left;
        } else { /* the common case: parse in the pool's buffer itself */
            const char *rest = answer_all(c, p, end);
            c->held_off = (size_t)(rest - c->held->data);
            if (rest < end && !out_full(c) && !c->closing) { /* an incomplete head: keep it */
                memcpy(c->in, rest, (size_t)(end - rest));
                c->inlen = (size_t)(end - rest);
                c->held_off = c->held->len;
            }
        }
        if (c->held_off >= c->held->len || c->closing) {
            vigil_buf_put(loop, c->held);
            c->held = NULL;
        }
    }
}

static void flush(vigil_loop *loop, struct conn *c)
{
    if (c->sending || !c->outlen[c->fill])
        return;
    int b = c->fill;
    c->fill ^= 1;
    c->send.data = (void *)(intptr_t)b;
    if (vigil_sock_send(loop, &c->sock, &c->send, c->out[b], c->outlen[b], on_sent) == 0)
        c->sending = true;
    else
        close_conn(loop, c);
}

/* What the connection does next: receive more, wait (a buffer is held until the
 * answers fit), or, closing, shut its side down once everything is sent. */
static void next_step(vigil_loop *loop, struct conn *c)
{
    if (c->closing && !c->sending && !c->outlen[c->fill] && !c->shut) {
        c->shut = true;
        vigil_sock_shutdown(loop, &c->sock, SHUT_WR);
        if (vigil_timer_start(loop, &c->linger, CLOCK_MONOTONIC, linger_ns, 0, 0, on_linger_end) < 0) {
            close_conn(loop, c);
            return;
        }
    }
    bool want = !c->held && (!c->closing || c->shut);
    if (want && !c->receiving && vigil_sock_recv_start(loop, &c->sock, on_data) == 0)
        c->receiving = true;
    else if (!want && c->receiving && vigil_sock_recv_stop(loop, &c->sock) == 0)
        c->receiving = false;
}

static void on_sent(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    struct conn *c = req->sock->data;
    c->sending = false;
    c->outlen[(intptr_t)req->data] = 0;
    if (res < 0) {
        close_conn(loop, c);
        return;
    }
    process(loop, c);
    flush(loop, c);
    next_step(loop, c);
}

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    struct conn *c = s->data;
    if (n <= 0) { /* the peer closed, or reset */
        c->receiving = false;
        if (c->held) {
            vigil_buf_put(loop, c->held);
            c->held = NULL;
        }
        close_conn(loop, c);
        return;
    }
    if (c->shut) { /* lingering after our last answer: drop what still comes */
        vigil_buf_put(loop, buf);
        return;
    }
    c->held = buf;
    c->held_off = 0;
    process(loop, c);
    flush(loop, c);
    next_step(loop, c);
}

static void on_accept(vigil_loop *loop, vigil_sock *listener, int fd)
{
    (void)listener;
    if (fd < 0) {
        fprintf(stderr, "accept: %s\n", strerror(-fd));
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct conn *c = malloc(sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    memset(c, 0, offsetof(struct conn, in)); /* in[] is written before it is read */
    if (vigil_sock_open(loop, &c->sock, fd) < 0) {
        free(c);
        close(fd);
        return;
    }
    c->sock.data = c;
    if (vigil_sock_recv_start(loop, &c->sock, on_data) == 0)
        c->receiving = true;
    else
        close_conn(loop, c);
}

static void on_signal(vigil_loop *loop, vigil_signal *w, const struct signalfd_siginfo *si)
{
    (void)w, (void)si;
    vigil_loop_stop(loop);
}

int main(int argc, char **argv)
{
    int port = argc > 1 ? atoi(argv[1]) : 8080;
    if (argc > 2)
        linger_ns = (int64_t)atoi(argv[2]) * 1000000;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4096) < 0) {
        perror("listen");
        return 1;
    }
    vigil_loop *loop;
    int r = vigil_loop_new(&loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    vigil_sock listener = {0};
    vigil_signal sigint = {0}, sigterm = {0};
    if ((r = vigil_sock_open(loop, &listener, lfd)) < 0 || (r = vigil_sock_accept_start(loop, &listener, on_accept)) < 0) {
        fprintf(stderr, "listener: %s\n", strerror(-r));
        return 1;
    }
    vigil_signal_start(loop, &sigint, SIGINT, on_signal);
    vigil_signal_start(loop, &sigterm, SIGTERM, on_signal);
    fprintf(stderr, "http on 127.0.0.1:%d, backend %s\n", port, vigil_loop_backend(loop));
    printf("ready\n");
    fflush(stdout);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_loop_free(loop);
    return 0;
}
