/* Starting a child: validation, the stdio socketpairs, the clone, and the per-loop
 * state (the child stack, the live list). See vigil/proc.h for the contract.
 *
 * Why clone(CLONE_VM | CLONE_VFORK) and not fork: fork copies the parent's page tables
 * (and makes every page copy-on-write, faulted again afterwards), a cost that grows with
 * the parent's memory; the child here borrows the parent's memory until execve gives it
 * its own, so starting costs the same at 16 MiB and at 1 GiB (lab/spawn). The child
 * runs on a stack of its own (the loop's, mapped once), because the parent's frames
 * must survive it. CLONE_PIDFD hands back the pidfd in the same call: no window in
 * which the pid could be reaped and reused before vigil holds the process.
 */
#include "proc/proc_int.h"
#include "sys/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

extern char **environ;

void vigil_proc_options_init(struct vigil_proc_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

int vigil_proc_active(const vigil_proc *p)
{
    return p && (((const struct vigil__proc *)(const void *)p)->state & VIGIL__P_ACTIVE) ? 1 : 0;
}

int vigil_proc_pidfd(const vigil_proc *p)
{
    return vigil_proc_active(p) ? ((const struct vigil__proc *)(const void *)p)->pidfd : -1;
}

/* ------------------------------------------------------------ per-loop state */

static struct vigil__procs *procs_state(vigil_loop *loop)
{
    struct vigil__procs *s = loop->mod[VIGIL__MOD_PROC];
    if (s)
        return s;
    s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* A guard page below the stack: an overflow faults instead of writing the heap. */
    long page = sysconf(_SC_PAGESIZE);
    s->stack_len = VIGIL__PROC_STACK + (size_t)page;
    s->stack = mmap(NULL, s->stack_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (s->stack == MAP_FAILED) {
        free(s);
        return NULL;
    }
    mprotect(s->stack, (size_t)page, PROT_NONE);
    struct rlimit rl;
    s->max_fd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1u << 20)
                    ? (int)rl.rlim_cur
                    : 1 << 20;
    vigil__module_attach(loop, VIGIL__MOD_PROC, s, vigil__procs_fini);
    return s;
}

/* ------------------------------------------------------------------- start */

static bool all_zero(const uint64_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[i])
            return false;
    return true;
}

#define KNOWN_FLAGS                                                                                \
    (VIGIL_PROC_SEARCH_PATH | VIGIL_PROC_SETSID | VIGIL_PROC_SETPGID | VIGIL_PROC_SETUID |        \
     VIGIL_PROC_SETGID)

static int check_options(const struct vigil_proc_options *o)
{
    if (o->size < sizeof *o || !o->file || !o->file[0] || (o->flags & ~KNOWN_FLAGS) ||
        !all_zero(o->reserved, sizeof o->reserved / sizeof o->reserved[0]))
        return -EINVAL;
    if ((o->flags & VIGIL_PROC_SETPGID) && o->pgid < 0)
        return -EINVAL;
    for (int i = 0; i < 3; i++) {
        const struct vigil_proc_stdio *s = &o->stdio[i];
        switch (s->mode) {
        case VIGIL_PROC_INHERIT:
        case VIGIL_PROC_CLOSE:
        case VIGIL_PROC_SOCKET:
            break;
        case VIGIL_PROC_FD:
            if (s->fd < 0)
                return -EINVAL;
            if (fcntl(s->fd, F_GETFD) < 0)
                return -EBADF;
            break;
        case VIGIL_PROC_AS:
            if (s->fd < 0 || s->fd >= i || o->stdio[s->fd].mode == VIGIL_PROC_CLOSE)
                return -EINVAL;
            break;
        default:
            return -EINVAL;
        }
    }
    return 0;
}

/* PATH for the search: the one of envp when the caller gives an environment that
 * sets it, else the parent's, else execvp's default. */
static const char *search_path(const struct vigil_proc_options *o)
{
    if (o->envp) {
        for (char *const *e = o->envp; *e; e++)
            if (!strncmp(*e, "PATH=", 5))
                return *e + 5;
    }
    const char *p = getenv("PATH");
    return p ? p : "/bin:/usr/bin";
}

static void close_pairs(int parent[3], int child[3])
{
    for (int i = 0; i < 3; i++) {
        if (parent[i] >= 0)
            close(parent[i]);
        if (child[i] >= 0)
            close(child[i]);
        parent[i] = child[i] = -1;
    }
}

/* The clone itself, with every signal blocked in this thread around it (the child
 * inherits the full mask and opens its own just before execve). Returns the pid, or a
 * negative errno; *pidfd set on success. */
static pid_t clone_child(struct vigil__procs *s, struct vigil__child *c, int *pidfd)
{
    uint64_t all = ~(uint64_t)0, old = 0;
    /* Raw: libc's sigprocmask refuses to block its own internal signals, which could
     * then reach the child (with the parent's handler) before it resets them. */
    vigil__syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8);
    /* Exit signal SIGCHLD: execve sets it anyway (de_thread), so a child without one
     * cannot be had -- measured: clone with exit signal 0, then exec, still sends
     * SIGCHLD and is auto-reaped under SIG_IGN. */
    unsigned long flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD;
    char *top = (char *)s->stack + s->stack_len;
    *pidfd = -1;
    long ret = vigil__proc_clone(flags, top, pidfd, c);
    pid_t pid = ret < 0 ? -1 : (pid_t)ret;
    int err = ret < 0 ? (int)ret : 0;
    if (err == -EINVAL) {
        /* Kernels before 5.2 (no CLONE_PIDFD): clone, then pidfd_open while the child
         * is still ours (not reaped: only a waitpid(-1) of another thread could). */
        ret = vigil__proc_clone(flags & ~(unsigned long)CLONE_PIDFD, top, NULL, c);
        pid = ret < 0 ? -1 : (pid_t)ret;
        err = ret < 0 ? (int)ret : 0;
        if (pid > 0) {
            *pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
            if (*pidfd < 0) {
                err = -errno;
                siginfo_t si;
                waitid(P_PID, (id_t)pid, &si, WEXITED | __WALL);
            }
        }
    }
    vigil__syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8);
    return err < 0 ? err : pid;
}

int vigil_proc_start(vigil_loop *loop, vigil_proc *pp, const struct vigil_proc_options *o, vigil_proc_exit_cb cb)
{
    if (!loop || !pp || !o || !cb)
        return -EINVAL;
    struct vigil__proc *p = vigil__proc(pp);
    if (p->state & VIGIL__P_ACTIVE)
        return -EBUSY;
    int r = check_options(o);
    if (r < 0)
        return r;
    struct vigil__procs *s = procs_state(loop);
    if (!s)
        return -ENOMEM;
    if (s->closing)
        return -ECANCELED;

    struct vigil__child c = {0};
    char *const def_argv[2] = {(char *)o->file, NULL};
    c.file = o->file;
    c.argv = o->argv ? o->argv : def_argv;
    c.envp = o->envp ? o->envp : environ;
    c.cwd = o->cwd;
    c.path = (o->flags & VIGIL_PROC_SEARCH_PATH) && !strchr(o->file, '/') ? search_path(o) : NULL;
    c.flags = o->flags;
    c.uid = o->uid;
    c.gid = o->gid;
    c.pgid = o->pgid;
    c.max_fd = s->max_fd;
    if (o->sigmask)
        memcpy(&c.mask, o->sigmask, sizeof c.mask); /* the kernel's 64 bits lead sigset_t */

    int parent[3] = {-1, -1, -1}, child[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        switch (o->stdio[i].mode) {
        case VIGIL_PROC_INHERIT:
            c.src[i] = VIGIL__SRC_INHERIT;
            break;
        case VIGIL_PROC_CLOSE:
            c.src[i] = VIGIL__SRC_CLOSE;
            break;
        case VIGIL_PROC_FD:
            c.src[i] = o->stdio[i].fd;
            break;
        case VIGIL_PROC_AS:
            c.src[i] = VIGIL__SRC_AS(o->stdio[i].fd);
            break;
        default: { /* VIGIL_PROC_SOCKET */
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                r = -errno;
                close_pairs(parent, child);
                return r;
            }
            parent[i] = sv[0];
            child[i] = sv[1];
            c.src[i] = sv[1];
            int fl = fcntl(sv[0], F_GETFL);
            fcntl(sv[0], F_SETFL, fl | O_NONBLOCK);
            break;
        }
        }
    }

    int pidfd;
    pid_t pid = clone_child(s, &c, &pidfd);
    for (int i = 0; i < 3; i++) {
        if (child[i] >= 0)
            close(child[i]);
        child[i] = -1;
    }
    if (pid < 0) {
        close_pairs(parent, child);
        return pid;
    }
    if (c.err) {
        /* The child failed before execve and has exited: reap it here, no callback. */
        siginfo_t si;
        vigil__proc_waitid(pidfd, &si, WEXITED | __WALL);
        close(pidfd);
        close_pairs(parent, child);
        return c.err;
    }

    p->pidfd = pidfd;
    p->pid = pid;
    p->cb = cb;
    memset(&p->io, 0, sizeof p->io);
    r = vigil__proc_watch(loop, p);
    if (r < 0) {
        siginfo_t si;
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        vigil__proc_waitid(pidfd, &si, WEXITED | __WALL);
        close(pidfd);
        close_pairs(parent, child);
        p->pidfd = -1;
        p->pid = 0;
        return r;
    }
    for (int i = 0; i < 3; i++)
        p->stdio_fd[i] = parent[i];
    p->state = VIGIL__P_ACTIVE;
    vigil__proc_list_add(&s->head, p);
    return 0;
}
