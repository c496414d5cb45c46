/* Mode bits are enforced by the operating system on the queue's file: a user without
 * read+write permission gets EACCES, one with it may open. As root (which bypasses mode
 * bits) the check runs in a forked child that drops to an unprivileged uid. */
#include "mqt.h"

static int try_open(const char *name)
{
    mqd_t q = vigil_mq_open(name, O_RDONLY);
    if (q != (mqd_t)-1) {
        vigil_mq_close(q);
        return 0;
    }
    return errno;
}

int main(void)
{
    mqt_setup();
    mqd_t a = mqt_create("/private", 4, 8);
    mqd_t b = mqt_create_mode("/public", 4, 8, 0666);
    mqd_t c = mqt_create_mode("/readonly", 4, 8, 0644);
    if (geteuid() != 0) {
        /* Not root: our own queue with no permission at all. */
        CHECK_SYS(chmod(getenv("VIGIL_MQ_DIR"), 0700));
        char p[256];
        snprintf(p, sizeof p, "%s/vigil.mq.private", privdir);
        CHECK_SYS(chmod(p, 0));
        CHECK_EQ(try_open("/private"), EACCES);
        CHECK_EQ(try_open("/public"), 0);
        return 0;
    }
    pid_t pid = mqt_fork_unprivileged();
    if (pid == 0) {
        if (try_open("/private") != EACCES)
            _exit(1);
        /* Read permission alone is not enough: receiving writes the segment. */
        if (try_open("/readonly") != EACCES)
            _exit(2);
        if (try_open("/public") != 0)
            _exit(3);
        _exit(0);
    }
    CHECK_EQ(mqt_wait_unprivileged(pid), 0);
    vigil_mq_close(a);
    vigil_mq_close(b);
    vigil_mq_close(c);
    return 0;
}
