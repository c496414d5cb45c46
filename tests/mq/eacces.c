/* Mode bits are enforced by the operating system on the queue's file: a user without
 * read+write permission gets EACCES, one with it may open. As root (which bypasses mode
 * bits) the check runs in a forked child that drops to an unprivileged uid. */
#include "mqt.h"
#include <sys/wait.h>

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
    struct mq_attr at = {.mq_maxmsg = 4, .mq_msgsize = 8};
    mode_t old = umask(0);
    mqd_t b = vigil_mq_open("/public", O_RDWR | O_CREAT | O_EXCL, 0666, &at);
    mqd_t c = vigil_mq_open("/readonly", O_RDWR | O_CREAT | O_EXCL, 0644, &at);
    umask(old);
    CHECK(b != (mqd_t)-1 && c != (mqd_t)-1);
    if (geteuid() != 0) {
        /* Not root: our own queue with no permission at all. */
        CHECK_SYS(chmod(getenv("VIGIL_MQ_DIR"), 0700));
        char p[256];
        snprintf(p, sizeof p, "%s/vigil.mq.private", mqt_dir);
        CHECK_SYS(chmod(p, 0));
        CHECK_EQ(try_open("/private"), EACCES);
        CHECK_EQ(try_open("/public"), 0);
        return 0;
    }
    /* Let the unprivileged child reach the files. */
    CHECK_SYS(chmod(mqt_dir, 0711));
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0) {
        if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
            _exit(77);
        if (try_open("/private") != EACCES)
            _exit(1);
        /* Read permission alone is not enough: receiving writes the segment. */
        if (try_open("/readonly") != EACCES)
            _exit(2);
        if (try_open("/public") != 0)
            _exit(3);
        _exit(0);
    }
    int st;
    CHECK_SYS(waitpid(pid, &st, 0));
    CHECK(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77)
        vt_skip("cannot drop to uid 65534 here (setresuid refused)");
    CHECK_EQ(WEXITSTATUS(st), 0);
    vigil_mq_close(a);
    vigil_mq_close(b);
    vigil_mq_close(c);
    return 0;
}
