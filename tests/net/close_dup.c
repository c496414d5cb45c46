/* vigil_sock_close of a socket whose file stays open elsewhere (a dup, or a child's
 * inherited copy): vigil must not leave the file in its epoll set. epoll keys a
 * registration by file and number, and close() removes it only with the file's last
 * descriptor; EPOLL_CTL_DEL after the close fails (EBADF), so the file would stay
 * registered, firing stray events into the loop until it rebuilt its set. The kernel
 * shows what every epoll set of this process holds in /proc/self/fdinfo (one "tfd:"
 * line per registration): after the close no set may name the closed number. Then the
 * peer writes to the still-open file: no callback may run. Then a new socket that takes
 * the same number receives normally. Every backend (poll and io_uring hold no epoll
 * registration for the socket; the callbacks are checked on all three). */
#include "nt.h"

#include <dirent.h>

static int calls, closed;

static void on_data(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    (void)s;
    CHECK(n > 0);
    calls++;
    vigil_buf_put(loop, buf);
}

static void on_closed(vigil_loop *loop, vigil_sock *s)
{
    (void)loop, (void)s;
    closed++;
}

/* How many registrations for fd number `fd` the epoll sets of this process hold. */
static int epoll_holds(int fd)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int found = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[300], target[64], line[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        if (strcmp(target, "anon_inode:[eventpoll]") != 0)
            continue;
        snprintf(path, sizeof path, "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int tfd;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "tfd: %d", &tfd) == 1 && tfd == fd)
                found++;
        fclose(f);
    }
    closedir(d);
    return found;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    CHECK_EQ(vigil_net_setup(loop, NULL), 0);

    int p[2];
    vigil_sock s = {0};
    nt_receiving_pair(loop, &s, p, on_data);
    CHECK_EQ(write(p[0], "hello", 5), 5);
    NT_RUN_UNTIL(loop, calls == 1, 3000);
    int on_epoll = strcmp(nt_backend(), "epoll") == 0;
    if (on_epoll)
        CHECK_EQ(epoll_holds(p[1]), 1); /* the check sees a registration that is there */

    int keep = dup(p[1]); /* the file outlives the number */
    CHECK_SYS(keep);
    int num = p[1];
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == 1, 3000);
    errno = 0;
    CHECK(fcntl(num, F_GETFD) == -1 && errno == EBADF);
    CHECK_EQ(epoll_holds(num), 0);

    /* The file is still open: its new bytes must reach nobody. */
    CHECK_EQ(write(p[0], "again", 5), 5);
    nt_run_for(loop, 30);
    CHECK_EQ(calls, 1);
    CHECK_EQ(epoll_holds(num), 0);

    /* A new connection under the same number (the lowest free one) works as any. */
    int q[2];
    nt_pair(q, 0);
    int reused = q[0] == num ? q[0] : q[1] == num ? q[1] : -1;
    int mine = reused >= 0 ? reused : q[1], peer = mine == q[0] ? q[1] : q[0];
    vigil_sock t = {0};
    CHECK_EQ(vigil_sock_open(loop, &t, mine), 0);
    CHECK_EQ(vigil_sock_recv_start(loop, &t, on_data), 0);
    CHECK_EQ(write(peer, "third", 5), 5);
    NT_RUN_UNTIL(loop, calls == 2, 3000);
    if (on_epoll)
        CHECK_EQ(epoll_holds(mine), 1);
    CHECK_EQ(vigil_sock_close(loop, &t, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == 2, 3000);
    CHECK_EQ(vigil_net_bufs_lent(loop), 0u);
    CHECK_EQ(vigil_loop_free(loop), 0);
    close(keep), close(p[0]), close(peer);
    printf("a closed socket whose file stays open leaves no epoll registration (number %s), on %s\n",
           reused >= 0 ? "reused" : "not reused", nt_backend());
    return 0;
}
