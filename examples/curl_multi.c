/* libcurl's multi socket interface on a vigil loop: many HTTP transfers at once, with
 * curl telling the loop which sockets to watch and when to wake it, and the loop telling
 * curl what happened. What a program does to let any library that "brings its own
 * sockets and timeouts" (libcurl, c-ares) share the loop:
 *
 *   CURLMOPT_SOCKETFUNCTION  curl asks to watch a socket for IN/OUT, or to forget it:
 *                            one vigil_io watcher per socket (started, modified, stopped);
 *   CURLMOPT_TIMERFUNCTION   curl asks to be called after timeout_ms (or not at all):
 *                            one vigil_timer;
 *   an fd event or the timer -> curl_multi_socket_action(), which does the work;
 *   a check hook             runs once per turn, after every event of the turn: reads
 *                            curl_multi_info_read() for transfers that ended, reports
 *                            them and starts the next ones. Reading there rather than
 *                            after each socket action reads each turn's news once.
 *
 *   ./curl_multi URL [COUNT [PARALLEL]]
 *       fetches URL COUNT times (default 1), as URL?n=0 ... URL?n=COUNT-1, at most
 *       PARALLEL at a time (default 8); prints one line per transfer as it ends:
 *         INDEX STATUS BYTES BODY      (BODY: the first 64 bytes, C-escaped)
 *         INDEX error CURLCODE MESSAGE
 *       and exits 0 if every transfer succeeded (at the HTTP level, whatever its status).
 *   ./curl_multi http://127.0.0.1:8080/ 200 16        (against examples/http_hello)
 *
 * No threads, no blocking call: a host name would be resolved by curl's own resolver
 * (a thread or c-ares, depending on how libcurl was built); use numeric addresses to stay
 * within the loop. Build: cc curl_multi.c $(pkg-config --cflags --libs vigil libcurl). */
#include <vigil.h>

#include <curl/curl.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fetch {
    CURL *easy;
    int index;
    char url[1024];
    char body[64];           /* the first bytes of the answer */
    size_t len;              /* all its bytes */
    char err[CURL_ERROR_SIZE];
};

/* One watcher per socket curl asked for; curl keeps the pointer (curl_multi_assign). */
struct sockw {
    vigil_io io;
    struct sockw *next, *prev;
};

struct app {
    vigil_loop *loop;
    CURLM *multi;
    vigil_timer timer;
    vigil_check check;
    struct sockw *socks;
    struct fetch *fetches;
    const char *url;
    int count, parallel, started, ended, failed;
};

static void on_io(vigil_loop *loop, vigil_io *io, int revents)
{
    (void)loop;
    struct app *a = io->data;
    int flags = 0, running;
    if (revents < 0) /* the kernel refused the fd: curl finds out what is wrong */
        flags = CURL_CSELECT_ERR;
    else {
        if (revents & (VIGIL_READ | VIGIL_HUP))
            flags |= CURL_CSELECT_IN;
        if (revents & VIGIL_WRITE)
            flags |= CURL_CSELECT_OUT;
        if (revents & VIGIL_ERR)
            flags |= CURL_CSELECT_ERR;
    }
    /* May call on_socket for this very socket (and free io): io is not used after. */
    curl_multi_socket_action(a->multi, io->fd, flags, &running);
}

static void sockw_free(struct app *a, struct sockw *w)
{
    vigil_io_stop(a->loop, &w->io);
    if (w->prev)
        w->prev->next = w->next;
    else
        a->socks = w->next;
    if (w->next)
        w->next->prev = w->prev;
    free(w);
}

/* CURLMOPT_SOCKETFUNCTION: watch fd for what curl wants, or stop watching it. */
static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    (void)easy;
    struct app *a = userp;
    struct sockw *w = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (w) {
            sockw_free(a, w);
            curl_multi_assign(a->multi, fd, NULL);
        }
        return 0;
    }
    uint32_t events = ((what & CURL_POLL_IN) ? VIGIL_READ : 0) | ((what & CURL_POLL_OUT) ? VIGIL_WRITE : 0);
    if (!w) {
        w = calloc(1, sizeof *w);
        if (!w)
            return -1;
        w->io.data = a;
        w->next = a->socks;
        if (a->socks)
            a->socks->prev = w;
        a->socks = w;
        curl_multi_assign(a->multi, fd, w);
    }
    if (!events)
        return vigil_io_stop(a->loop, &w->io) < 0 ? -1 : 0;
    int r = vigil_io_active(&w->io) && w->io.fd == fd ? vigil_io_modify(a->loop, &w->io, events)
                                                      : vigil_io_start(a->loop, &w->io, fd, events, on_io);
    return r < 0 ? -1 : 0;
}

static void on_timeout(vigil_loop *loop, vigil_timer *t)
{
    (void)loop;
    struct app *a = t->data;
    int running;
    curl_multi_socket_action(a->multi, CURL_SOCKET_TIMEOUT, 0, &running);
}

/* CURLMOPT_TIMERFUNCTION: call curl back after timeout_ms; -1: never. curl must not be
 * called from here: a timeout of 0 becomes a timer due at once (the loop's next pass). */
static int on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    struct app *a = userp;
    vigil_timer_stop(a->loop, &a->timer);
    if (timeout_ms < 0)
        return 0;
    return vigil_timer_start(a->loop, &a->timer, CLOCK_MONOTONIC, (int64_t)timeout_ms * 1000000, 0, 0, on_timeout) < 0
               ? -1
               : 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *userp)
{
    struct fetch *f = userp;
    size_t bytes = size * n;
    if (f->len < sizeof f->body) {
        size_t keep = bytes < sizeof f->body - f->len ? bytes : sizeof f->body - f->len;
        memcpy(f->body + f->len, p, keep);
    }
    f->len += bytes;
    return bytes;
}

static int start_next(struct app *a)
{
    struct fetch *f = &a->fetches[a->started];
    f->index = a->started++;
    snprintf(f->url, sizeof f->url, "%s%cn=%d", a->url, strchr(a->url, '?') ? '&' : '?', f->index);
    f->easy = curl_easy_init();
    if (!f->easy)
        return -1;
    curl_easy_setopt(f->easy, CURLOPT_URL, f->url);
    curl_easy_setopt(f->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(f->easy, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(f->easy, CURLOPT_PRIVATE, f);
    curl_easy_setopt(f->easy, CURLOPT_ERRORBUFFER, f->err);
    curl_easy_setopt(f->easy, CURLOPT_NOSIGNAL, 1L);
    /* Calls on_curl_timer (a timer due at once) to get the transfer going. */
    return curl_multi_add_handle(a->multi, f->easy) == CURLM_OK ? 0 : -1;
}

static void print_escaped(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n')
            fputs("\\n", stdout);
        else if (c == '\r')
            fputs("\\r", stdout);
        else if (c == '\\')
            fputs("\\\\", stdout);
        else if (isprint(c) && c != ' ')
            putchar(c);
        else
            printf("\\x%02x", c);
    }
}

/* The check hook: after every event of the turn, the transfers that ended. */
static void on_check(vigil_loop *loop, vigil_check *w)
{
    struct app *a = w->data;
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(a->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        CURL *easy = m->easy_handle;
        CURLcode res = m->data.result; /* m is curl's: read it before the handle goes */
        char *priv = NULL;
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
        struct fetch *f = (struct fetch *)(void *)priv;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        if (res == CURLE_OK) {
            printf("%d %ld %zu ", f->index, status, f->len);
            print_escaped(f->body, f->len < sizeof f->body ? f->len : sizeof f->body);
            putchar('\n');
        } else {
            printf("%d error %d %s\n", f->index, (int)res, f->err[0] ? f->err : curl_easy_strerror(res));
            a->failed++;
        }
        curl_multi_remove_handle(a->multi, easy);
        curl_easy_cleanup(easy);
        f->easy = NULL;
        a->ended++;
        if (a->started < a->count && start_next(a) < 0) {
            fprintf(stderr, "could not start transfer %d\n", a->started - 1);
            a->failed++, a->ended++;
        }
    }
    if (a->ended == a->count) {
        /* Every transfer ended. curl may still watch the connections it keeps for reuse:
         * end the run here; main closes them (curl_multi_cleanup). */
        vigil_check_stop(loop, w);
        vigil_timer_stop(loop, &a->timer);
        vigil_loop_stop(loop);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s URL [COUNT [PARALLEL]]\n", argv[0]);
        return 2;
    }
    struct app a = {.url = argv[1], .count = argc > 2 ? atoi(argv[2]) : 1, .parallel = argc > 3 ? atoi(argv[3]) : 8};
    if (a.count < 1 || a.parallel < 1) {
        fprintf(stderr, "COUNT and PARALLEL must be at least 1\n");
        return 2;
    }
    a.fetches = calloc((size_t)a.count, sizeof *a.fetches);
    int r = vigil_loop_new(&a.loop, NULL);
    if (!a.fetches || r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(r < 0 ? -r : ENOMEM));
        return 1;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(a.multi = curl_multi_init())) {
        fprintf(stderr, "libcurl could not start\n");
        return 1;
    }
    curl_multi_setopt(a.multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(a.multi, CURLMOPT_SOCKETDATA, &a);
    curl_multi_setopt(a.multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
    curl_multi_setopt(a.multi, CURLMOPT_TIMERDATA, &a);
    curl_multi_setopt(a.multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)a.parallel);
    a.timer.data = &a;
    a.check.data = &a;
    if ((r = vigil_check_start(a.loop, &a.check, on_check)) < 0) {
        fprintf(stderr, "vigil_check_start: %s\n", strerror(-r));
        return 1;
    }
    while (a.started < a.count && a.started < a.parallel)
        if (start_next(&a) < 0) {
            fprintf(stderr, "could not start a transfer\n");
            return 1;
        }
    r = vigil_loop_run(a.loop, VIGIL_RUN_DEFAULT);
    fflush(stdout);
    fprintf(stderr, "%d transfers, %d failed, backend %s%s%s\n", a.ended, a.failed, vigil_loop_backend(a.loop),
            r < 0 ? ", vigil_loop_run: " : "", r < 0 ? strerror(-r) : "");
    for (int i = 0; i < a.count; i++) /* transfers that never ended (a failed run) */
        if (a.fetches[i].easy) {
            curl_multi_remove_handle(a.multi, a.fetches[i].easy);
            curl_easy_cleanup(a.fetches[i].easy);
        }
    curl_multi_cleanup(a.multi); /* closes the kept connections (on_socket may run) */
    while (a.socks)
        sockw_free(&a, a.socks);
    vigil_loop_free(a.loop);
    curl_global_cleanup();
    free(a.fetches);
    return r < 0 || a.failed || a.ended != a.count ? 1 : 0;
}
