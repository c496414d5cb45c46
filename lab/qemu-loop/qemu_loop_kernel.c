/* qemu-loop, system "kernel": the raw calls a loop would make.
 *   --case ppoll   QEMU's 2015 loop: the pollfd array stays built and the 4 changed
 *                  entries are patched in place (cheaper than QEMU's rebuild each turn),
 *                  one ppoll with a timeout, then a scan of all n revents.
 *   --case epoll   4 epoll_ctl(EPOLL_CTL_MOD) + one epoll_pwait2 with a timeout.
 */
#include <poll.h>
#include <sys/epoll.h>

#include "qloop.h"

static int use_epoll;
static int epfd = -1;
static struct pollfd pfd[QL_MAXN];

static int sys_options(int argc, char **argv)
{
    use_epoll = frame_case(argc, argv, "ppoll", "epoll");
    return use_epoll < 0 ? 2 : 0;
}

static int sys_init(struct ql *q)
{
    if (!use_epoll) {
        for (int i = 0; i < q->n; i++)
            pfd[i] = (struct pollfd){.fd = q->rfd[i], .events = POLLIN};
        return 0;
    }
    epfd = frame_epoll_watch(q->n, q->rfd);
    if (epfd < 0)
        return 1;
    struct epoll_event e;
    struct timespec zero = {0, 0};
    if (epoll_pwait2(epfd, &e, 1, &zero, NULL) < 0 && errno == ENOSYS) {
        fprintf(stderr, "skip: epoll_pwait2: %s\n", strerror(errno));
        return 77;
    }
    return 0;
}

static int sys_change(struct ql *q, int i)
{
    if (!use_epoll) {
        pfd[i].events = q->wr[i] ? POLLIN | POLLOUT : POLLIN;
        return 0;
    }
    struct epoll_event ev = {.events = q->wr[i] ? EPOLLIN | EPOLLOUT : EPOLLIN, .data.u32 = (uint32_t)i};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, q->rfd[i], &ev) < 0 ? -errno : 0;
}

static int sys_turn(struct ql *q)
{
    struct timespec ts = {QL_TIMEOUT_S, 0};
    if (!use_epoll) {
        int r = ppoll(pfd, (nfds_t)q->n, &ts, NULL);
        if (r < 0)
            return -errno;
        for (int i = 0; i < q->n && r > 0; i++)
            if (pfd[i].revents) {
                r--;
                if (pfd[i].revents & POLLIN)
                    ql_consume(q, pfd[i].fd);
            }
        return 0;
    }
    struct epoll_event evs[64];
    int r = epoll_pwait2(epfd, evs, 64, &ts, NULL);
    if (r < 0)
        return -errno;
    for (int i = 0; i < r; i++)
        if (evs[i].events & EPOLLIN)
            ql_consume(q, q->rfd[evs[i].data.u32]);
    return 0;
}

static void sys_fini(struct ql *q)
{
    (void)q;
    if (epfd >= 0)
        close(epfd);
    epfd = -1;
}

static const char *sys_json(void)
{
    return use_epoll ? "\"system\":\"kernel\",\"case\":\"epoll\"" : "\"system\":\"kernel\",\"case\":\"ppoll\"";
}
