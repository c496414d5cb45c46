/* spawn, the kernel's calls by hand (system "kernel"):
 *   posix_spawn  glibc's posix_spawn (clone(CLONE_VM | CLONE_VFORK) inside) with the
 *                child setup vigil does: every fd from 3 closed (addclosefrom_np), the
 *                signal mask emptied and every disposition reset (SETSIGMASK,
 *                SETSIGDEF with the full set); then pidfd_open, the pidfd in an epoll
 *                set, waitid(P_PIDFD) when it turns readable
 *   fork         fork, execve in the child, waitpid(-1) in the parent: the page tables
 *                are copied, the cost grows with the parent's memory */
#include "sp.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

extern char **environ;

static struct sp_point pt;
static char *const cargv[] = {SP_PROG, NULL};
static int64_t started_at[SP_MAX_INFLIGHT];

/* --------------------------------------------------------------- posix_spawn */

static posix_spawnattr_t attr;
static posix_spawn_file_actions_t fa;
static int pidfds[SP_MAX_INFLIGHT];
static int ep;

static void ps_start(int i)
{
    pid_t pid;
    started_at[i] = bench_now_ns();
    int r = posix_spawn(&pid, SP_PROG, &fa, &attr, cargv, environ);
    if (r) {
        fprintf(stderr, "posix_spawn: %s\n", strerror(r));
        exit(1);
    }
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) {
        perror("pidfd_open");
        exit(1);
    }
    pidfds[i] = fd;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        perror("epoll_ctl");
        exit(1);
    }
}

static void ps_point(int inflight)
{
    int running = 0;
    for (int i = 0; i < inflight; i++, running++)
        ps_start(i);
    while (running) {
        struct epoll_event ev[SP_MAX_INFLIGHT];
        int n = epoll_wait(ep, ev, SP_MAX_INFLIGHT, -1);
        if (n < 0 && errno == EINTR)
            continue;
        for (int k = 0; k < n; k++) {
            int i = (int)ev[k].data.u32;
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid((idtype_t)3 /* P_PIDFD */, (id_t)pidfds[i], &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
                continue;
            close(pidfds[i]); /* leaves the epoll set with it */
            if (si.si_code != CLD_EXITED || si.si_status != 0) {
                fprintf(stderr, "child: code %d status %d\n", si.si_code, si.si_status);
                exit(1);
            }
            sp_ended(&pt, started_at[i]);
            if (sp_more(&pt))
                ps_start(i);
            else
                running--;
        }
    }
}

/* ---------------------------------------------------------------------- fork */

static pid_t pids[SP_MAX_INFLIGHT];

static void fk_start(int i)
{
    started_at[i] = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        execve(SP_PROG, cargv, environ);
        _exit(127);
    }
    pids[i] = pid;
}

static void fk_point(int inflight)
{
    int running = 0;
    for (int i = 0; i < inflight; i++, running++)
        fk_start(i);
    while (running) {
        int st;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            perror("waitpid");
            exit(1);
        }
        int i = 0;
        while (i < inflight && pids[i] != pid)
            i++;
        if (i == inflight || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "child %d: status %#x\n", (int)pid, st);
            exit(1);
        }
        sp_ended(&pt, started_at[i]);
        if (sp_more(&pt))
            fk_start(i);
        else
            running--;
    }
}

int main(int argc, char **argv)
{
    struct sp_args a = sp_parse(argc, argv);
    int is_fork = !strcmp(a.cas, "fork");
    if (!is_fork && strcmp(a.cas, "posix_spawn")) {
        fprintf(stderr, "--case posix_spawn|fork\n");
        return 2;
    }
    sp_grow(a.rss_mb);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    ep = epoll_create1(EPOLL_CLOEXEC);
    for (int k = 0; k < a.n_inflight; k++) {
        sp_begin(&pt, a.ms, a.inflight[k]);
        if (is_fork)
            fk_point(a.inflight[k]);
        else
            ps_point(a.inflight[k]);
        sp_emit(&pt, "kernel", a.cas, a.inflight[k], a.rss_mb, NULL);
    }
    return 0;
}
