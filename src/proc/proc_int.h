/* src/proc/: child processes (include/vigil/proc.h). One job per file:
 *   start.c  the API's start: validation, stdio socketpairs, the clone, a failed
 *            child's reaping; the per-loop state (the child stack, the live list)
 *   child.c  the code that runs in the child between clone and execve (shares the
 *            parent's memory: raw system calls only, no sanitizer, no libc state)
 *   exit.c   the pidfd watcher and the reaping, kill, and what vigil_loop_free does
 * May call: src/loop (fd watchers, the module slot), src/sys (system calls). Loop thread
 * only.
 */
#ifndef VIGIL_PROC_INT_H
#define VIGIL_PROC_INT_H

#include "vigil/proc.h"
#include "loop/loop.h"
#include "sys/list.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/syscall.h>

/* The library's view of a vigil_proc (its private_ words given names). */
struct vigil__proc {
    void *data;
    pid_t pid;
    int stdio_fd[3];
    vigil_io io;                  /* watches the pidfd */
    vigil_proc_exit_cb cb;
    int pidfd;                    /* -1 when inactive */
    uint32_t state;               /* VIGIL__P_* */
    struct vigil__proc *next, *prev; /* the loop's live children */
    uint64_t reserved_[2];
};

VIGIL__HLIST_DEFINE(vigil__proc_list, struct vigil__proc, next, prev)
_Static_assert(sizeof(struct vigil__proc) == sizeof(vigil_proc), "vigil_proc: size is ABI");
_Static_assert(offsetof(struct vigil__proc, data) == offsetof(vigil_proc, data) &&
                   offsetof(struct vigil__proc, pid) == offsetof(vigil_proc, pid) &&
                   offsetof(struct vigil__proc, stdio_fd) == offsetof(vigil_proc, stdio_fd),
               "struct vigil__proc must mirror vigil_proc");

#define VIGIL__P_ACTIVE 0x1u

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#define VIGIL__P_PIDFD 3 /* waitid's idtype P_PIDFD (Linux 5.4), not in every libc */

static inline struct vigil__proc *vigil__proc(vigil_proc *p)
{
    return (struct vigil__proc *)(void *)p;
}

/* Per loop. */
struct vigil__procs {
    struct vigil__proc *head;     /* live children, newest first */
    void *stack;                  /* the mapping: a guard page, then the child stack */
    size_t stack_len;
    int max_fd;                   /* close_range fallback: RLIMIT_NOFILE at setup */
    bool closing;                 /* vigil_loop_free is reaping */
};

#define VIGIL__PROC_STACK (64 * 1024)

/* Where the child's fd i comes from (struct vigil__child.src). */
#define VIGIL__SRC_INHERIT (-2)
#define VIGIL__SRC_CLOSE (-1)
#define VIGIL__SRC_AS(j) (-10 - (j)) /* the child's own earlier fd j */
#define VIGIL__SRC_AS_FD(src) (-10 - (src))

/* Everything the child needs, prepared by the parent (on the parent's stack: the
 * parent's thread waits until the child execs or exits, CLONE_VFORK). The child writes
 * err, the parent reads it after clone returns. */
struct vigil__child {
    const char *file;
    char *const *argv;
    char *const *envp;
    const char *cwd;
    const char *path;             /* PATH to search, NULL: execve(file) as given */
    uint32_t flags;
    uid_t uid;
    gid_t gid;
    pid_t pgid;
    int src[3];                   /* fd to dup to 0,1,2, or VIGIL__SRC_* */
    int max_fd;
    uint64_t mask;                /* the child's signal mask (kernel sigset) */
    volatile int err;             /* 0, or the failed step's negative errno */
};

/* child.c: the clone's entry. Never returns: execs, or stores err and exits 127. */
int vigil__proc_child(void *arg);
/* clone(flags) with the child on stack_top running vigil__proc_child(c); *pidfd gets the
 * pidfd with CLONE_PIDFD. The pid, or a negative errno. */
long vigil__proc_clone(unsigned long flags, void *stack_top, int *pidfd, struct vigil__child *c);

/* exit.c */
int vigil__proc_watch(vigil_loop *loop, struct vigil__proc *p);
void vigil__procs_fini(vigil_loop *loop, void *state);
/* waitid(P_PIDFD) retried on EINTR: 0 (si filled) or a negative errno. */
int vigil__proc_waitid(int pidfd, siginfo_t *si, int options);

#endif
