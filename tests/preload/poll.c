/* The documented limit: a vigil descriptor is a reserved file descriptor the kernel
 * cannot wait on, and every fd-level use fails at once instead of waiting:
 *   poll/ppoll  revents POLLNVAL, at once (even with an infinite timeout)
 *   epoll_ctl   EBADF
 *   select      returns at once, the descriptor reported ready (never a hang)
 *   read/write  EBADF; the kernel's own mq system calls on it: EBADF
 *   dup         the copy is not a queue descriptor (EBADF in mq_*)
 *   close       is mq_close (the queue behind it is closed too)
 * An alarm turns a hang into a failure. */
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "pt.h"

int main(void)
{
    pt_setup();
    alarm(20);
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 16};
    mqd_t q = mq_open("/poll", O_RDWR | O_CREAT, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil("/poll"));
    CHECK(q < FD_SETSIZE); /* a small number, as a kernel queue's */

    /* The queue is empty: a kernel queue's poll would wait forever here. */
    double t0 = pt_now_s();
    struct pollfd p = {.fd = q, .events = POLLIN};
    CHECK_EQ(poll(&p, 1, -1), 1);
    CHECK_EQ(p.revents, POLLNVAL);
    p.revents = 0;
    p.events = POLLOUT;
    CHECK_EQ(ppoll(&p, 1, NULL, NULL), 1);
    CHECK_EQ(p.revents, POLLNVAL);

    int ep = epoll_create1(EPOLL_CLOEXEC);
    CHECK(ep >= 0);
    struct epoll_event ev = {.events = EPOLLIN};
    CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, q, &ev), EBADF);
    close(ep);

    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(q, &rd);
    CHECK_EQ(select(q + 1, &rd, NULL, NULL, NULL), 1);
    CHECK(FD_ISSET(q, &rd));
    CHECK(pt_now_s() - t0 < 10);

    char b[16];
    CHECK_ERR(read(q, b, sizeof b), EBADF);
    CHECK_ERR(write(q, "x", 1), EBADF);
    /* A kernel mq call that bypasses the names (as the 32-bit time64 entry points would). */
    CHECK_ERR(syscall(SYS_mq_timedsend, q, "x", 1, 0, NULL), EBADF);
    CHECK_ERR(syscall(SYS_mq_timedreceive, q, b, sizeof b, NULL, NULL), EBADF);

    /* The queue works all along. */
    CHECK_EQ(mq_send(q, "hi", 2, 0), 0);
    int d = dup(q);
    CHECK(d >= 0 && d != q);
    CHECK_ERR(mq_receive(d, b, sizeof b, NULL), EBADF);
    CHECK_EQ(close(d), 0);
    CHECK_EQ(mq_receive(q, b, sizeof b, NULL), 2);

    /* close() closes the queue: its number is free again and no longer a queue. */
    CHECK_EQ(close(q), 0);
    CHECK_ERR(mq_send(q, "hi", 2, 0), EBADF);
    CHECK_ERR(fcntl(q, F_GETFD), EBADF);
    int f = open("/dev/null", O_RDONLY);
    CHECK_EQ(f, q); /* the lowest free number, as after a kernel queue's close */
    CHECK_ERR(mq_send(f, "hi", 2, 0), EBADF);
    CHECK_EQ(close(f), 0);
    CHECK_ERR(mq_close(f), EBADF);
    CHECK_EQ(mq_unlink("/poll"), 0);
    return 0;
}
