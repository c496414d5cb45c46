/* fs-watch, the raw inotify floor: one inotify instance, a watch on every directory
 * (the mask vigil asks for), epoll_wait, and one read(2) of 64 KiB per wake-up (another
 * only while the buffer came back full); each event's watch descriptor is looked up to
 * its directory (an array: wds are handed out in order) and counted. What any watcher
 * must do at least. */
#include <sys/epoll.h>
#include <sys/inotify.h>

#include "fsw.h"

#define MASK                                                                                       \
    (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | \
     IN_MOVE_SELF | IN_EXCL_UNLINK | IN_ONLYDIR)

static int ifd, ep;
static int wd_dir[FSW_DIRS + 2];
static long got[K_N], moved_from, overflows, seen_dirs_sum;
static char buf[64 * 1024] __attribute__((aligned(8)));

static int sys_watch(void)
{
    ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ifd < 0 || ep < 0)
        return -errno;
    for (int i = 0; i < FSW_DIRS; i++) {
        int wd = inotify_add_watch(ifd, fsw_dir[i], MASK);
        if (wd < 0)
            return -errno;
        if (wd < FSW_DIRS + 2)
            wd_dir[wd] = i;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ifd};
    return epoll_ctl(ep, EPOLL_CTL_ADD, ifd, &ev) < 0 ? -errno : 0;
}

static void sys_run(void)
{
    for (;;) {
        struct epoll_event ev;
        int n = epoll_wait(ep, &ev, 1, 100);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0) {
            for (;;) {
                ssize_t r = read(ifd, buf, sizeof buf);
                if (r <= 0)
                    break;
                long took = 0;
                for (ssize_t pos = 0; pos < r;) {
                    const struct inotify_event *ie = (const struct inotify_event *)(void *)(buf + pos);
                    uint32_t m = ie->mask;
                    if (ie->wd > 0 && ie->wd < FSW_DIRS + 2)
                        seen_dirs_sum += wd_dir[ie->wd];
                    if (m & IN_Q_OVERFLOW)
                        overflows++;
                    else if (m & IN_CREATE)
                        got[K_CREATE]++;
                    else if (m & IN_MODIFY)
                        got[K_MODIFY]++;
                    else if (m & IN_ATTRIB)
                        got[K_ATTRIB]++;
                    else if (m & IN_DELETE)
                        got[K_DELETE]++;
                    else if (m & IN_MOVED_FROM)
                        moved_from++;
                    else if (m & IN_MOVED_TO)
                        got[K_MOVE]++;
                    took++;
                    pos += (ssize_t)(sizeof *ie + ie->len);
                }
                fsw_took(took);
                if ((size_t)r + sizeof(struct inotify_event) + 256 <= sizeof buf)
                    break;
            }
            if (atomic_load_explicit(&fsw_sh->consumed, memory_order_relaxed) >= fsw_expect_raw)
                break;
        }
        if (fsw_finished())
            break;
    }
}

static long sys_lost(void)
{
    long lost = 0;
    for (int k = 0; k < K_N; k++) {
        long g = k == K_MOVE ? (got[K_MOVE] < moved_from ? got[K_MOVE] : moved_from) : got[k];
        lost += (fsw_expect[k] > g ? fsw_expect[k] - g : 0) * (k == K_MOVE ? 2 : 1);
    }
    if (overflows)
        fprintf(stderr, "kernel: %ld overflows\n", overflows);
    return lost;
}

static const char *sys_name(void)
{
    return "kernel";
}

static const char *sys_case(void)
{
    return "inotify";
}

static const char *sys_extra(void)
{
    return "";
}

int main(int argc, char **argv)
{
    return fsw_main(argc, argv);
}
