/* An unmodified program's queue is vigil's: open with attributes past the kernel's
 * defaults, send and receive in priority order, getattr, close, reopen, unlink. Built
 * four ways (CMakeLists.txt): with -lrt, without, with _FORTIFY_SOURCE (a two-argument
 * mq_open becomes __mq_open_2), and bound to the pre-2.34 symbol versions
 * (mq_*@GLIBC_2.3.4, what programs linked against librt on older systems ask for). */
#include "pt.h"

#ifdef PT_OLD_VERSIONS
__asm__(".symver mq_open,mq_open@GLIBC_2.3.4");
__asm__(".symver mq_close,mq_close@GLIBC_2.3.4");
__asm__(".symver mq_unlink,mq_unlink@GLIBC_2.3.4");
__asm__(".symver mq_send,mq_send@GLIBC_2.3.4");
__asm__(".symver mq_receive,mq_receive@GLIBC_2.3.4");
__asm__(".symver mq_getattr,mq_getattr@GLIBC_2.3.4");
#endif

int main(void)
{
    pt_setup();
    /* 64 messages of 16 KiB: more and larger than the kernel gives without privilege. */
    struct mq_attr a = {.mq_maxmsg = 64, .mq_msgsize = 16384};
    mqd_t q = mq_open("/basic", O_RDWR | O_CREAT | O_EXCL, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil("/basic"));
    CHECK(fcntl(q, F_GETFD) == FD_CLOEXEC); /* a file descriptor, close-on-exec */

    static const struct { const char *text; unsigned prio; } in[] = {
        {"low", 1}, {"high", 9}, {"mid-a", 5}, {"mid-b", 5}, {"zero", 0}};
    for (unsigned i = 0; i < sizeof in / sizeof in[0]; i++)
        CHECK_EQ(mq_send(q, in[i].text, strlen(in[i].text), in[i].prio), 0);
    CHECK_EQ(mq_getattr(q, &a), 0);
    CHECK_EQ(a.mq_maxmsg, 64);
    CHECK_EQ(a.mq_msgsize, 16384);
    CHECK_EQ(a.mq_curmsgs, 5);
    CHECK_EQ(a.mq_flags, 0);

    static const char *order[] = {"high", "mid-a", "mid-b", "low", "zero"};
    static const unsigned prios[] = {9, 5, 5, 1, 0};
    static char buf[16384];
    for (unsigned i = 0; i < 5; i++) {
        unsigned prio = 99;
        ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
        CHECK_EQ(n, (ssize_t)strlen(order[i]));
        CHECK(!memcmp(buf, order[i], (size_t)n));
        CHECK_EQ(prio, prios[i]);
    }
    /* A full-size message. */
    memset(buf, 'x', sizeof buf);
    CHECK_EQ(mq_send(q, buf, sizeof buf, 3), 0);
    CHECK_EQ(mq_receive(q, buf, sizeof buf, NULL), (ssize_t)sizeof buf);
    CHECK_ERR(mq_send(q, buf, sizeof buf + 1, 0), EMSGSIZE);
    CHECK_ERR(mq_receive(q, buf, 100, NULL), EMSGSIZE);
    CHECK_EQ(mq_close(q), 0);
    CHECK_ERR(mq_close(q), EBADF);

    /* Reopened by name without O_CREAT, flags not known at compile time: a fortified
     * build calls __mq_open_2. */
    volatile int wronly = O_WRONLY;
    q = mq_open("/basic", wronly);
    CHECK(q != (mqd_t)-1);
    CHECK_EQ(mq_send(q, "again", 5, 0), 0);
    CHECK_ERR(mq_receive(q, buf, sizeof buf, NULL), EBADF); /* write-only descriptor */
    mqd_t r = mq_open("/basic", O_RDONLY);
    CHECK(r != (mqd_t)-1 && r != q);
    CHECK_EQ(mq_receive(r, buf, sizeof buf, NULL), 5);
    CHECK_EQ(mq_close(q), 0);
    CHECK_EQ(mq_close(r), 0);
    CHECK_EQ(mq_unlink("/basic"), 0);
    CHECK_ERR(mq_unlink("/basic"), ENOENT);
    CHECK_ERR(mq_open("/basic", O_RDONLY), ENOENT);
    CHECK_ERR(mq_open("noslash", O_RDONLY), EINVAL);
    return 0;
}
