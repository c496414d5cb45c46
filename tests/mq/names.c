/* Name rules of mq_open(3): leading '/', "/" alone, extra slashes, too long. */
#include "mqt.h"
#include <limits.h>

static void expect_err(const char *name, int oflag, int err)
{
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 8};
    errno = 0;
    mqd_t q = vigil_mq_open(name, oflag, 0600, &a);
    if (q != (mqd_t)-1 || errno != err) {
        fprintf(stderr, "open(\"%.40s\"): got %d errno %s, want %s\n", name, (int)q, strerror(errno), strerror(err));
        exit(1);
    }
}

int main(void)
{
    mqt_setup();
    expect_err("noslash", O_RDWR | O_CREAT, EINVAL);
    expect_err("/", O_RDWR | O_CREAT, ENOENT);
    expect_err("/a/b", O_RDWR | O_CREAT, EACCES);
    char name[NAME_MAX + 8];
    name[0] = '/';
    memset(name + 1, 'x', NAME_MAX - 9);
    name[NAME_MAX - 8] = 0; /* 246 characters after '/': the longest */
    mqd_t q = mqt_create(name, 4, 8);
    CHECK_SYS(vigil_mq_close(q));
    CHECK_SYS(vigil_mq_unlink(name));
    name[NAME_MAX - 8] = 'x';
    name[NAME_MAX - 7] = 0; /* one more */
    expect_err(name, O_RDWR | O_CREAT, ENAMETOOLONG);
    errno = 0;
    CHECK_EQ(vigil_mq_unlink("noslash"), -1);
    CHECK_EQ(errno, EINVAL);
    errno = 0;
    CHECK_EQ(vigil_mq_unlink(name), -1);
    CHECK_EQ(errno, ENAMETOOLONG);
    return 0;
}
