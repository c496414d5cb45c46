/* Across execve the descriptors are gone, as the kernel's (it opens every mqd_t
 * close-on-exec): the new image, still under the preload, gets EBADF for the old number,
 * and reopens the queue by name to find the message. */
#include <sys/wait.h>

#include "pt.h"

int main(int argc, char **argv)
{
    if (argc == 3) { /* after exec: argv[1] the old descriptor, argv[2] the queue dir */
        mqd_t old = atoi(argv[1]);
        CHECK_ERR(fcntl(old, F_GETFD), EBADF);
        CHECK_ERR(mq_send(old, "x", 1, 0), EBADF);
        struct mq_attr a;
        CHECK_ERR(mq_getattr(old, &a), EBADF);
        CHECK_EQ(strcmp(getenv("VIGIL_MQ_DIR"), argv[2]), 0);
        mqd_t q = mq_open("/exec", O_RDONLY);
        CHECK(q != (mqd_t)-1);
        char b[16];
        CHECK_EQ(mq_receive(q, b, sizeof b, NULL), 6);
        CHECK(!memcmp(b, "before", 6));
        CHECK_EQ(mq_close(q), 0);
        CHECK_EQ(mq_unlink("/exec"), 0);
        return 0;
    }
    pt_setup();
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 16};
    mqd_t q = mq_open("/exec", O_RDWR | O_CREAT, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil("/exec"));
    CHECK_EQ(mq_send(q, "before", 6, 0), 0);
    char num[16];
    snprintf(num, sizeof num, "%d", (int)q);
    /* A child execs this program again (the parent stays, to remove the directory). */
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], num, privdir, (char *)NULL);
        _exit(127);
    }
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(mq_close(q), 0);
    return 0;
}
