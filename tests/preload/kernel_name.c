/* Kernel queues are not visible under the preload; a name that exists as a kernel queue
 * (made here with the system call itself, as a program without the preload would) is
 * refused by mq_open with EEXIST, whatever the flags, so a preloaded and a plain program
 * never each wait on a queue of their own. Other names are vigil's and never reach the
 * kernel. */
#include "pt.h"

int main(void)
{
    pt_setup();
    char name[64];
    snprintf(name, sizeof name, "/vigil-preload-k%d", (int)getpid());
    struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 16};
    long k = syscall(SYS_mq_open, name + 1, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &a);
    if (k < 0 && (errno == ENOSYS || errno == EPERM || errno == EACCES || errno == ENOSPC ||
                  errno == EMFILE || errno == ENOMEM)) {
        fprintf(stderr, "no kernel message queues here (%s)\n", strerror(errno));
        return 77;
    }
    CHECK(k >= 0);
    CHECK_ERR(mq_open(name, O_RDONLY), EEXIST);
    CHECK_ERR(mq_open(name, O_RDWR | O_CREAT, 0600, &a), EEXIST);
    CHECK_ERR(mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &a), EEXIST);
    /* mq_unlink is vigil's: the kernel queue stays, there is no vigil one to remove. */
    CHECK_ERR(mq_unlink(name), ENOENT);
    CHECK(pt_kernel_has(name));
    syscall(SYS_close, k);
    CHECK_EQ(syscall(SYS_mq_unlink, name + 1), 0);

    /* Gone from the kernel: the name is vigil's to use. */
    mqd_t q = mq_open(name, O_RDWR | O_CREAT, 0600, &a);
    CHECK(q != (mqd_t)-1);
    CHECK(pt_is_vigil(name));
    CHECK_EQ(mq_close(q), 0);
    CHECK_EQ(mq_unlink(name), 0);
    return 0;
}
