/* The child, from clone(CLONE_VM | CLONE_VFORK) to execve. It runs in the parent's
 * memory, on the loop's child stack, while the parent's thread waits: it may touch only
 * its own stack and the struct vigil__child the parent prepared, and may not call into
 * libc (errno, locks, malloc and sanitizer state are the parent's). Every system call
 * is made raw; a failure is written to c->err before exit_group(127), where the parent
 * reads it after clone returns. No sanitizer instruments this file's functions: their
 * shadow memory and thread state are the parent's too.
 *
 * All signals are blocked (the parent blocked them before clone, the mask is
 * inherited) until the last step sets the child's own mask: no handler of the parent
 * can run here, and every disposition is SIG_DFL by then.
 */
#include "proc/proc_int.h"
#include "sys/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>

#define CHILD __attribute__((noinline, no_sanitize("address", "undefined", "thread")))
#define CHILD_INLINE __attribute__((no_sanitize("address", "undefined", "thread")))

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* A system call with no libc and no instrumented code in between (not even
 * src/sys's wrapper, which a sanitizer build instruments): the result or -errno. */
#if defined(__x86_64__)
__attribute__((always_inline, no_sanitize("address", "undefined", "thread"))) static inline long
sys4(long n, long a, long b, long c, long d)
{
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return r;
}
#else
CHILD_INLINE static long sys4(long n, long a, long b, long c, long d)
{
    return vigil__syscall4(n, a, b, c, d);
}
#endif
CHILD_INLINE static long sys0(long n)
{
    return sys4(n, 0, 0, 0, 0);
}
CHILD_INLINE static long sys3(long n, long a, long b, long c)
{
    return sys4(n, a, b, c, 0);
}

/* The kernel's struct sigaction (rt_sigaction's), not libc's. */
struct kact {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};

/* Every caught or ignored signal back to SIG_DFL (execve would reset the caught ones
 * only, and not before the mask opens). */
CHILD_INLINE static void reset_dispositions(void)
{
    struct kact dfl = {0};
    dfl.handler = (void *)SIG_DFL;
    for (int sig = 1; sig <= 64; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP)
            continue;
        sys4(SYS_rt_sigaction, sig, (long)&dfl, 0, 8);
    }
}

/* fds 0-2 from src[]: sources below 3 are first moved above 2 (close-on-exec), so that
 * placing one never overwrites another's source (stdout <- stderr with stderr <- a
 * socket). Returns 0 or a negative errno. */
CHILD_INLINE static long setup_stdio(const int src[3])
{
    int from[3];
    for (int i = 0; i < 3; i++) {
        from[i] = src[i];
        if (src[i] >= 0 && src[i] < 3 && src[i] != i) {
            long r = sys3(SYS_fcntl, src[i], F_DUPFD_CLOEXEC, 3);
            if (r < 0)
                return r;
            from[i] = (int)r;
        }
    }
    for (int i = 0; i < 3; i++) {
        long r = 0;
        if (from[i] == VIGIL__SRC_CLOSE) {
            sys3(SYS_close, i, 0, 0);
        } else if (from[i] <= VIGIL__SRC_AS(0)) {
            r = sys3(SYS_dup3, VIGIL__SRC_AS_FD(from[i]), i, 0); /* already in place */
        } else if (from[i] == VIGIL__SRC_INHERIT || from[i] == i) {
            /* Kept: make sure it survives execve (an fd 0-2 that is not open stays so). */
            long fl = sys3(SYS_fcntl, i, F_GETFD, 0);
            if (fl > 0 && (fl & FD_CLOEXEC))
                r = sys3(SYS_fcntl, i, F_SETFD, fl & ~FD_CLOEXEC);
        } else {
            r = sys3(SYS_dup3, from[i], i, 0); /* the copy is not close-on-exec */
        }
        if (r < 0)
            return r;
    }
    return 0;
}

CHILD_INLINE static void close_others(int max_fd)
{
    if (sys3(SYS_close_range, 3, ~0U, 0) == 0)
        return;
    for (int fd = 3; fd < max_fd; fd++) /* kernels before 5.9 */
        sys3(SYS_close, fd, 0, 0);
}

/* execvp's search without its shell fallback: each PATH entry in turn (an empty one is
 * the current directory); ENOENT-like errors go on to the next, EACCES is remembered,
 * anything else stops the search. */
CHILD_INLINE static long exec_search(const struct vigil__child *c)
{
    char buf[PATH_MAX];
    size_t flen = 0;
    while (c->file[flen])
        flen++;
    if (flen >= NAME_MAX + 1)
        return -ENAMETOOLONG;
    long err = -ENOENT;
    bool eacces = false;
    const char *p = c->path;
    for (;;) {
        const char *end = p;
        while (*end && *end != ':')
            end++;
        size_t dlen = (size_t)(end - p);
        if (dlen + 1 + flen + 1 <= sizeof buf) {
            size_t n = 0;
            for (size_t i = 0; i < dlen; i++)
                buf[n++] = p[i];
            if (dlen)
                buf[n++] = '/';
            for (size_t i = 0; i < flen; i++)
                buf[n++] = c->file[i];
            buf[n] = 0;
            err = sys3(SYS_execve, (long)buf, (long)c->argv, (long)c->envp);
            switch (-err) {
            case EACCES:
                eacces = true;
                break;
            case ENOENT:
            case ENOTDIR:
            case ESTALE:
            case ENODEV:
            case ETIMEDOUT:
                break;
            default:
                return err;
            }
        }
        if (!*end)
            break;
        p = end + 1;
    }
    return eacces ? -EACCES : err;
}

CHILD int vigil__proc_child(void *arg)
{
    struct vigil__child *c = arg;
    long r = 0;
    reset_dispositions();
    if ((c->flags & VIGIL_PROC_SETSID) && (r = sys0(SYS_setsid)) < 0)
        goto fail;
    if ((c->flags & VIGIL_PROC_SETPGID) && (r = sys3(SYS_setpgid, 0, c->pgid, 0)) < 0)
        goto fail;
    if (c->flags & VIGIL_PROC_SETGID) {
        /* Drop supplementary groups where allowed (root); an unprivileged caller may
         * still switch to a gid it holds. */
        r = sys3(SYS_setgroups, 0, 0, 0);
        if (r < 0 && r != -EPERM)
            goto fail;
        if ((r = sys3(SYS_setgid, (long)c->gid, 0, 0)) < 0)
            goto fail;
    }
    /* Raw setuid/setgid change this one thread: right here, the child has no other
     * (libc's wrappers would signal the parent's threads instead). */
    if ((c->flags & VIGIL_PROC_SETUID) && (r = sys3(SYS_setuid, (long)c->uid, 0, 0)) < 0)
        goto fail;
    if (c->cwd && (r = sys3(SYS_chdir, (long)c->cwd, 0, 0)) < 0)
        goto fail;
    if ((r = setup_stdio(c->src)) < 0)
        goto fail;
    close_others(c->max_fd);
    sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&c->mask, 0, 8);
    if (c->path)
        r = exec_search(c);
    else
        r = sys3(SYS_execve, (long)c->file, (long)c->argv, (long)c->envp);
fail:
    c->err = (int)(r < 0 ? r : -EIO);
    for (;;)
        sys3(SYS_exit_group, 127, 0, 0);
    return 0;
}

/* The clone itself. On x86_64 a raw system call, not libc's clone(): sanitizer runtimes
 * intercept clone() and treat the child as a fork (TSan's runs its after-fork code in
 * the child, which here shares the parent's memory and would corrupt its state). The
 * new stack holds the entry and its argument; the child pops them, calls the entry
 * (which never returns: it execs or exits) and, should it return, exits. Elsewhere
 * libc's clone(). Returns the pid or a negative errno. */
#if defined(__x86_64__)
CHILD long vigil__proc_clone(unsigned long flags, void *stack_top, int *pidfd, struct vigil__child *c)
{
    void **sp = (void **)stack_top;
    *--sp = (void *)vigil__proc_child;
    *--sp = c;
    long ret;
    register long r10 __asm__("r10") = 0; /* child_tid */
    register long r8 __asm__("r8") = 0;   /* tls */
    __asm__ volatile("syscall\n\t"
                     "testq %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     /* the child, on the new stack (16-byte aligned once both are popped) */
                     "xorl %%ebp, %%ebp\n\t"
                     "popq %%rdi\n\t"
                     "popq %%rax\n\t"
                     "callq *%%rax\n\t"
                     "movl %%eax, %%edi\n\t"
                     "movl $231, %%eax\n\t" /* exit_group */
                     "syscall\n\t"
                     "hlt\n\t"
                     "1:\n\t"
                     : "=a"(ret)
                     : "0"((long)SYS_clone), "D"(flags), "S"(sp), "d"(pidfd), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return ret;
}
#else
#include <sched.h>
CHILD long vigil__proc_clone(unsigned long flags, void *stack_top, int *pidfd, struct vigil__child *c)
{
    int pid = clone(vigil__proc_child, stack_top, (int)flags, c, pidfd, NULL, NULL);
    return pid < 0 ? -errno : pid;
}
#endif
