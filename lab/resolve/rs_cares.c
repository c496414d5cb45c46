/* lab/resolve: c-ares (Debian's libc-ares), driven as its manual says a program on its own
 * loop drives it: the socket-state callback keeps an epoll set, epoll_wait sleeps until
 * ares_timeout(), ares_process_fd() handles what is ready. ares_getaddrinfo(AF_UNSPEC):
 * A and AAAA in parallel, /etc/hosts first, results sorted (RFC 6724), as getaddrinfo. */
#include "rs.h"

#include <ares.h>
#include <netdb.h>
#include <sys/epoll.h>

static struct rs R;
static ares_channel ch;
static int ep;
static int slots_free;

static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    (void)data;
    struct epoll_event ev = {.events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u), .data.fd = fd};
    if (!readable && !writable) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        return;
    }
    if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) < 0)
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void start(void);

static void done(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
    (void)timeouts;
    int i = (int)(intptr_t)arg;
    int n = 0;
    for (struct ares_addrinfo_node *a = res ? res->nodes : NULL; a; a = a->ai_next)
        n++;
    rs_end(&R, i, status == ARES_SUCCESS, n);
    if (status != ARES_SUCCESS && R.failed <= 5)
        fprintf(stderr, "c-ares: %s\n", ares_strerror(status));
    if (res)
        ares_freeaddrinfo(res);
    slots_free++;
}

static void start(void)
{
    int i = R.next++;
    char name[64];
    rs_name(i, name, sizeof name);
    struct ares_addrinfo_hints hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    R.start_ns[i] = bench_now_ns();
    ares_getaddrinfo(ch, name, NULL, &hints, done, (void *)(intptr_t)i);
}

int main(int argc, char **argv)
{
    rs_args(&R, argc, argv, "c-ares");
    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
        return 1;
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct ares_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sock_state_cb = sock_state;
    if (ares_init_options(&ch, &opt, ARES_OPT_SOCK_STATE_CB) != ARES_SUCCESS)
        return 1;
    rs_begin(&R);
    slots_free = R.inflight;
    while (R.done < R.names) {
        /* Callbacks run inside ares_process_fd: start new lookups outside it. */
        while (slots_free > 0 && R.next < R.names) {
            slots_free--;
            start();
        }
        struct timeval tv, *tvp = ares_timeout(ch, NULL, &tv);
        int ms = tvp ? (int)(tvp->tv_sec * 1000 + (tvp->tv_usec + 999) / 1000) : -1;
        struct epoll_event evs[256];
        int n = epoll_wait(ep, evs, 256, ms);
        if (n <= 0) {
            ares_process_fd(ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
            continue;
        }
        for (int k = 0; k < n; k++)
            ares_process_fd(ch, (evs[k].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) ? evs[k].data.fd : ARES_SOCKET_BAD,
                            (evs[k].events & EPOLLOUT) ? evs[k].data.fd : ARES_SOCKET_BAD);
    }
    int rc = rs_report(&R);
    ares_destroy(ch);
    ares_library_cleanup();
    return rc;
}
