/* What the listen and connect helpers refuse, each with its error, and that a refused
 * call leaves nothing behind (no fd: /proc/self/fd counted; the vigil_sock untouched):
 * texts that are not addresses (-EINVAL), paths too long (-ENAMETOOLONG), a negative
 * backlog, unknown flags, VIGIL_NET_REUSEPORT on AF_UNIX, VIGIL_NET_V6ONLY on IPv4
 * (-EINVAL), an existing path (-EADDRINUSE, the file left alone), an address no
 * interface has (-EADDRNOTAVAIL), a family it does not make (-EAFNOSUPPORT); a connect
 * with a busy request or an open socket (-EBUSY), NULLs (-EINVAL); and the errors that
 * come later, in the callback: a refused port (-ECONNREFUSED), a path that does not
 * exist (-ENOENT). On the backend VIGIL_BACKEND names. */
#include "nt.h"
#include "fds.h"

#include <sys/stat.h>
#include <sys/un.h>

static int res = 1, done;
static void on_connected(vigil_loop *l, vigil_net_req *r, ssize_t rv)
{
    (void)l, (void)r;
    res = (int)rv;
    done = 1;
}
static int closed;
static void on_closed(vigil_loop *l, vigil_sock *s)
{
    (void)l, (void)s;
    closed++;
}

static void expect_later(vigil_loop *loop, const char *text, int want)
{
    vigil_sock s = {0};
    vigil_net_req r = {0};
    res = 1, done = 0;
    CHECK_EQ(vigil_net_connect(loop, &s, &r, text, 0, on_connected), 0);
    NT_RUN_UNTIL(loop, done, 10000);
    if (res != want) {
        fprintf(stderr, "connect %s: %d (%s), want %d\n", text, res, strerror(-res), want);
        exit(1);
    }
    int c0 = closed;
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == c0 + 1, 10000);
}

int main(void)
{
    alarm(60);
    vigil_loop *loop = vt_loop();
    int fds0 = vt_count_fds();

    CHECK_EQ(vigil_net_listen("localhost:80", 16, 0), -EINVAL);
    CHECK_EQ(vigil_net_listen("127.0.0.1", 16, 0), -EINVAL);
    CHECK_EQ(vigil_net_listen(NULL, 16, 0), -EINVAL);
    CHECK_EQ(vigil_net_listen("127.0.0.1:0", -1, 0), -EINVAL);
    CHECK_EQ(vigil_net_listen("127.0.0.1:0", 16, 0x80), -EINVAL);
    CHECK_EQ(vigil_net_listen("127.0.0.1:0", 16, VIGIL_NET_V6ONLY), -EINVAL);
    CHECK_EQ(vigil_net_listen("@vigil-x", 16, VIGIL_NET_REUSEPORT), -EINVAL);
    char longp[200];
    memset(longp, 'a', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = 0;
    CHECK_EQ(vigil_net_listen(longp, 16, 0), -ENAMETOOLONG);
    longp[0] = '@';
    CHECK_EQ(vigil_net_listen(longp, 16, 0), -ENAMETOOLONG);
    /* 192.0.2.0/24 is TEST-NET-1 (RFC 5737): on no interface. */
    CHECK_EQ(vigil_net_listen("192.0.2.1:0", 16, 0), -EADDRNOTAVAIL);
    struct sockaddr sa_bad = {.sa_family = AF_APPLETALK};
    CHECK_EQ(vigil_net_listen_addr(&sa_bad, sizeof sa_bad, 16, 0), -EAFNOSUPPORT);
    CHECK_EQ(vigil_net_listen_addr(NULL, 16, 16, 0), -EINVAL);
    CHECK_EQ(vigil_net_listen_addr(&sa_bad, 1, 16, 0), -EINVAL);

    /* A path that exists (here a regular file): -EADDRINUSE, and the file stays. */
    char dir[] = "/tmp/vigil-lerr-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/f", dir);
    int f = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    CHECK_SYS(f);
    close(f);
    CHECK_EQ(vigil_net_listen(path, 16, 0), -EADDRINUSE);
    struct stat st;
    CHECK_SYS(stat(path, &st));
    CHECK(S_ISREG(st.st_mode));
    /* A directory that does not exist: bind's -ENOENT. */
    char nodir[160];
    snprintf(nodir, sizeof nodir, "%s/no/s", dir);
    CHECK_EQ(vigil_net_listen(nodir, 16, 0), -ENOENT);
    CHECK_EQ(vt_count_fds(), fds0); /* no refused call kept an fd */

    /* Connect: refused before anything is made. */
    vigil_sock s = {0};
    vigil_net_req r = {0};
    CHECK_EQ(vigil_net_connect(loop, &s, &r, "localhost:80", 0, on_connected), -EINVAL);
    CHECK_EQ(vigil_net_connect(NULL, &s, &r, "127.0.0.1:1", 0, on_connected), -EINVAL);
    CHECK_EQ(vigil_net_connect(loop, NULL, &r, "127.0.0.1:1", 0, on_connected), -EINVAL);
    CHECK_EQ(vigil_net_connect(loop, &s, NULL, "127.0.0.1:1", 0, on_connected), -EINVAL);
    CHECK_EQ(vigil_net_connect(loop, &s, &r, "127.0.0.1:1", 0, NULL), -EINVAL);
    CHECK_EQ(vigil_net_connect(loop, &s, &r, "127.0.0.1:1", -1, on_connected), -EINVAL);
    CHECK_EQ(vigil_net_connect(loop, &s, &r, longp, 0, on_connected), -ENAMETOOLONG);
    CHECK_EQ(vigil_net_connect_addr(loop, &s, &r, &sa_bad, sizeof sa_bad, 0, on_connected), -EAFNOSUPPORT);
    CHECK_EQ(s.fd, 0); /* untouched */
    CHECK_EQ(vt_count_fds(), fds0);

    /* Busy: s open already, or the request in flight. */
    int lfd = vigil_net_listen("127.0.0.1:0", 16, 0);
    CHECK(lfd >= 0);
    char text[64];
    snprintf(text, sizeof text, "127.0.0.1:%d", nt_port_of(lfd));
    CHECK_EQ(vigil_net_connect(loop, &s, &r, text, 0, on_connected), 0);
    int fds1 = vt_count_fds();
    vigil_sock s2 = {0};
    CHECK_EQ(vigil_net_connect(loop, &s, &r, text, 0, on_connected), -EBUSY);  /* s open */
    CHECK_EQ(vigil_net_connect(loop, &s2, &r, text, 0, on_connected), -EBUSY); /* r in flight */
    CHECK_EQ(s2.fd, 0);
    CHECK_EQ(vt_count_fds(), fds1);
    NT_RUN_UNTIL(loop, done, 10000);
    CHECK_EQ(res, 0);
    CHECK_EQ(vigil_sock_close(loop, &s, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == 1, 10000);
    close(lfd);

    /* Errors that come in the callback. */
    expect_later(loop, text, -ECONNREFUSED); /* the listener is closed now */
    snprintf(path, sizeof path, "%s/none", dir);
    expect_later(loop, path, -ENOENT);
    snprintf(path, sizeof path, "%s/f", dir);
    expect_later(loop, path, -ECONNREFUSED); /* a regular file, not a socket */

    CHECK_SYS(unlink(path));
    CHECK_SYS(rmdir(dir));
    CHECK_EQ(vt_count_fds(), fds0);
    printf("net listen_errors: pass (%s)\n", vigil_loop_backend(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
