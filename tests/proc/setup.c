/* What the child starts with: only fds 0-2 of the parent's (fds opened without
 * O_CLOEXEC stay out: the child lists its /proc/self/fd), every signal disposition at
 * SIG_DFL and the mask asked for (the parent ignores SIGPIPE and SIGUSR2 and blocks
 * SIGUSR1: the child's /proc/self/status shows SigIgn 0 and SigBlk as asked), the cwd
 * asked for, a new session or process group (its /proc/self/stat), and, as root, the
 * uid and gid asked for. */
#include "pt.h"

#include <sys/stat.h>

static unsigned long long field_hex(const char *status, const char *name)
{
    const char *s = strstr(status, name);
    CHECK(s);
    return strtoull(s + strlen(name), NULL, 16);
}

/* Fields 1 (pid), 5 (pgrp), 6 (session) of a /proc/<pid>/stat line. */
static void stat_ids(const char *stat, long *pid, long *pgrp, long *sid)
{
    *pid = strtol(stat, NULL, 10);
    const char *s = strrchr(stat, ')');
    CHECK(s);
    char state;
    long ppid;
    CHECK_EQ(sscanf(s + 1, " %c %ld %ld %ld", &state, &ppid, pgrp, sid), 4);
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    struct pt_exit e;

    /* Leaky fds: a pipe and /dev/null opened without O_CLOEXEC, moved high. */
    int pf[2];
    CHECK_SYS(pipe(pf));
    CHECK_SYS(dup2(pf[0], 100));
    CHECK_SYS(dup2(pf[1], 101));
    int nul = open("/dev/null", O_RDONLY);
    CHECK_SYS(nul);
    CHECK_SYS(dup2(nul, 102));
    {
        /* ls names its own fds 0-2 and the one it reads the directory with (3). */
        char *const argv[] = {"ls", "/proc/self/fd", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        char *out = pt_output(loop, &o, &e);
        CHECK_EQ(e.status, 0);
        int n = 0;
        for (char *t = strtok(out, "\n"); t; t = strtok(NULL, "\n"), n++) {
            int fd = atoi(t);
            if (fd > 3) {
                fprintf(stderr, "fd %d of the parent reached the child\n", fd);
                return 1;
            }
        }
        CHECK(n >= 3);
        free(out);
    }

    /* Signals: ignored and blocked in the parent. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGUSR2, SIG_IGN);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
    {
        char *const argv[] = {"cat", "/proc/self/status", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        char *out = pt_output(loop, &o, &e);
        CHECK_EQ(e.status, 0);
        CHECK_EQ(field_hex(out, "SigIgn:"), 0);
        CHECK_EQ(field_hex(out, "SigBlk:"), 0);
        free(out);
        /* The mask asked for. */
        sigset_t want;
        sigemptyset(&want);
        sigaddset(&want, SIGHUP);
        sigaddset(&want, SIGTERM);
        o = pt_opts(argv);
        o.sigmask = &want;
        out = pt_output(loop, &o, &e);
        CHECK_EQ(field_hex(out, "SigBlk:"), (1ull << (SIGHUP - 1)) | (1ull << (SIGTERM - 1)));
        CHECK_EQ(field_hex(out, "SigIgn:"), 0);
        free(out);
    }
    /* The parent's own mask and dispositions are as they were. */
    sigset_t now;
    CHECK_EQ(pthread_sigmask(SIG_SETMASK, NULL, &now), 0);
    CHECK(sigismember(&now, SIGUSR1));
    CHECK(!sigismember(&now, SIGHUP));
    struct sigaction sa;
    CHECK_SYS(sigaction(SIGPIPE, NULL, &sa));
    CHECK(sa.sa_handler == SIG_IGN);
    CHECK_EQ(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);

    {   /* cwd */
        char *const argv[] = {"pwd", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.cwd = "/proc";
        char *out = pt_output(loop, &o, &e);
        CHECK_EQ(e.status, 0);
        CHECK(!strcmp(out, "/proc\n"));
        free(out);
    }
    {   /* session and process group */
        char *const argv[] = {"cat", "/proc/self/stat", NULL};
        long pid, pgrp, sid;
        struct vigil_proc_options o = pt_opts(argv);
        char *out = pt_output(loop, &o, &e);
        stat_ids(out, &pid, &pgrp, &sid);
        CHECK_EQ(pgrp, getpgrp());
        CHECK_EQ(sid, getsid(0));
        free(out);
        o = pt_opts(argv);
        o.flags |= VIGIL_PROC_SETSID;
        out = pt_output(loop, &o, &e);
        stat_ids(out, &pid, &pgrp, &sid);
        CHECK_EQ(sid, pid);
        CHECK_EQ(pgrp, pid);
        free(out);
        o = pt_opts(argv);
        o.flags |= VIGIL_PROC_SETPGID;
        out = pt_output(loop, &o, &e);
        stat_ids(out, &pid, &pgrp, &sid);
        CHECK_EQ(pgrp, pid);
        CHECK_EQ(sid, getsid(0));
        free(out);
    }
    {   /* uid and gid: as root, nobody's; otherwise our own (allowed), and root's is -EPERM */
        char *const argv[] = {"id", NULL};
        struct vigil_proc_options o = pt_opts(argv);
        o.flags |= VIGIL_PROC_SETUID | VIGIL_PROC_SETGID;
        uid_t uid = geteuid() == 0 ? 65534 : geteuid();
        gid_t gid = geteuid() == 0 ? 65534 : getegid();
        o.uid = uid;
        o.gid = gid;
        char *out = pt_output(loop, &o, &e);
        CHECK_EQ(e.status, 0);
        char want[64];
        snprintf(want, sizeof want, "uid=%u(", (unsigned)uid);
        CHECK(strstr(out, want) == out);
        snprintf(want, sizeof want, " gid=%u(", (unsigned)gid);
        CHECK(strstr(out, want));
        if (geteuid() == 0)
            CHECK(!strstr(out, "groups=0("));
        free(out);
        if (geteuid() != 0) {
            static vigil_proc p;
            o = pt_opts(argv);
            o.flags |= VIGIL_PROC_SETUID;
            o.uid = 0;
            CHECK_EQ(vigil_proc_start(loop, &p, &o, pt_on_exit), -EPERM);
        }
    }
    close(100);
    close(101);
    close(102);
    close(pf[0]);
    close(pf[1]);
    close(nul);
    pt_no_children();
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
