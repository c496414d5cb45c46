/* vigil: child processes.
 *
 * Start a program and learn, in the loop, when it ends:
 *
 *   struct vigil_proc_options o;
 *   vigil_proc_options_init(&o);
 *   o.file = "ls";                               // searched in PATH (no '/' in it)
 *   o.argv = (char *const[]){"ls", "-l", NULL};
 *   o.stdio[1].mode = VIGIL_PROC_SOCKET;         // child's stdout -> a socket of ours
 *   vigil_proc p = {0};                          // caller-owned, zeroed before first use
 *   int r = vigil_proc_start(loop, &p, &o, on_exit); // -ENOENT: no such program
 *   vigil_sock_open(loop, &out, p.stdio_fd[1]); // read what it writes (<vigil/net.h>)
 *   ... on_exit(loop, &p, exit_status, term_signal) runs once, the child reaped
 *
 * How (and what it guarantees):
 *   - The child is made with clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD) on a small
 *     stack of the loop's: no page table is copied, so starting a child costs the same
 *     whatever the parent's resident memory. The calling thread waits until the child
 *     has called execve (or failed), which is when vigil_proc_start returns. A failure
 *     of any step in the child (chdir, setuid, execve: -ENOENT, -EACCES, -ENOEXEC...)
 *     is written by the child into memory the parent reads after it resumes, and is
 *     returned by vigil_proc_start; the failed child is reaped inside the call, and no
 *     callback runs. There is never a child that "exits 127" for vigil's reasons.
 *   - In the child, before execve: every signal disposition is reset to SIG_DFL
 *     (ignored ones too: a parent that ignores SIGPIPE does not pass that on), the
 *     signal mask is set to options.sigmask (empty by default; all signals are blocked
 *     from before the clone until then, so no handler of the parent ever runs in the
 *     child), and every fd but 0, 1 and 2 is closed with close_range(3, ~0U, 0): fds
 *     that other code of the program opened without O_CLOEXEC stay out of the child too.
 *   - The exit is learned through the child's pidfd, watched by an ordinary fd watcher of
 *     the loop (every backend); the child is reaped with waitid(P_PIDFD). vigil installs
 *     no SIGCHLD handler and never calls wait on any child but its own (by pidfd): the
 *     program's own SIGCHLD handler and its waitpid() on children it started itself keep
 *     working. The child is an ordinary child (exit signal SIGCHLD, as from
 *     fork or posix_spawn): the program's SIGCHLD handler runs when it exits too, and a
 *     waitpid(-1) of the program may reap it first; then the exit callback still runs
 *     once, with exit_status -ECHILD (the status went to whoever reaped it). The same
 *     happens when the program sets SIGCHLD to SIG_IGN or SA_NOCLDWAIT (the kernel
 *     reaps children itself). A child without an exit signal (clone's "clone child",
 *     invisible to waitpid(-1)) cannot be had: execve gives every process SIGCHLD.
 *   - A started child keeps vigil_loop_run(VIGIL_RUN_DEFAULT) going until its exit
 *     callback has run.
 *   - vigil_loop_free with children still running: each is sent SIGKILL (by pidfd),
 *     reaped (waitid, which waits until it is gone, normally microseconds after
 *     SIGKILL), and its exit callback runs inside vigil_loop_free with what waitid
 *     reported (term_signal SIGKILL, or its own exit if it had ended already): no
 *     zombie stays behind. A process cannot give its child away, so a child meant to
 *     outlive the loop must detach itself (setsid + a double fork of its own).
 *
 * Loop thread only, as every vigil call but vigil_loop_wakeup. Other threads of the
 * program may run while a child is being started (only the calling thread waits).
 */
#ifndef VIGIL_PROC_H
#define VIGIL_PROC_H
/* Included by vigil.h; may also be included on its own. */

#include "vigil/loop.h"

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vigil_proc vigil_proc;

/* What one of the child's fds 0, 1, 2 is (struct vigil_proc_stdio.mode). */
enum vigil_proc_stdio_mode {
    VIGIL_PROC_INHERIT = 0, /* the parent's fd of that number, as it is (the default) */
    VIGIL_PROC_CLOSE = 1,   /* closed in the child */
    VIGIL_PROC_FD = 2,      /* a dup of .fd (any fd of the parent, 0-2 included) */
    /* One end of a new AF_UNIX SOCK_STREAM socketpair (blocking in the child); the
     * parent's end (close-on-exec, non-blocking) is returned in vigil_proc.stdio_fd[i]
     * and belongs to the caller: hand it to vigil_sock_open (<vigil/net.h>) to receive
     * and send through the loop, or use it with read/write/an fd watcher, and close it
     * when done. A socketpair rather than a pipe: it is a socket, so the sockets API
     * takes it as it is, on every backend, and it carries both directions. */
    VIGIL_PROC_SOCKET = 3,
    /* The same file as the child's own fd .fd, which must be an earlier one (.fd < i):
     * {VIGIL_PROC_AS, 1} for stderr is the shell's 2>&1 (a VIGIL_PROC_FD source always
     * names a fd of the parent). */
    VIGIL_PROC_AS = 4,
};

struct vigil_proc_stdio {
    int mode; /* enum vigil_proc_stdio_mode */
    int fd;   /* VIGIL_PROC_FD: the parent's fd to give the child; VIGIL_PROC_AS: the
                 child's earlier fd (0 or 1) */
};

/* Flags (vigil_proc_options.flags). */
#define VIGIL_PROC_SEARCH_PATH 0x01u /* search .file in PATH when it has no '/' (execvp's
                                        rule): PATH of .envp if it sets one, else the
                                        parent's, else "/bin:/usr/bin" */
#define VIGIL_PROC_SETSID 0x02u      /* the child starts a new session (setsid) */
#define VIGIL_PROC_SETPGID 0x04u     /* the child joins process group .pgid (0: a new
                                        group led by the child) */
#define VIGIL_PROC_SETUID 0x08u      /* setuid(.uid) in the child */
#define VIGIL_PROC_SETGID 0x10u      /* setgid(.gid) and setgroups(0) in the child */

struct vigil_proc_options {
    uint32_t size;             /* sizeof(struct vigil_proc_options); set by _init */
    uint32_t flags;            /* VIGIL_PROC_* */
    const char *file;          /* the program: a path, or a name (VIGIL_PROC_SEARCH_PATH) */
    char *const *argv;         /* NULL-terminated; NULL: {file, NULL} */
    char *const *envp;         /* NULL-terminated; NULL: the parent's environ */
    const char *cwd;           /* NULL: the parent's */
    uid_t uid;                 /* VIGIL_PROC_SETUID */
    gid_t gid;                 /* VIGIL_PROC_SETGID */
    pid_t pgid;                /* VIGIL_PROC_SETPGID */
    const sigset_t *sigmask;   /* the child's signal mask; NULL: none blocked */
    struct vigil_proc_stdio stdio[3]; /* fds 0, 1, 2 of the child; zero: inherited */
    uint64_t reserved[8];      /* zero */
};

VIGIL_EXPORT void vigil_proc_options_init(struct vigil_proc_options *opt);

/* exit_status >= 0: the child exited with that code (term_signal 0), or term_signal > 0:
 * it was ended by that signal (exit_status 0). exit_status < 0: a negative errno, the
 * status is unknown: -ECHILD when something else reaped the child first (a waitpid(-1)
 * of the program, SIGCHLD set to SIG_IGN). Runs once per start, in the loop thread,
 * after the child is reaped and its pidfd closed: p may be started again or freed in it. */
typedef void (*vigil_proc_exit_cb)(vigil_loop *loop, vigil_proc *p, int exit_status, int term_signal);

struct vigil_proc {
    void *data;           /* the caller's */
    pid_t pid;            /* read-only: the child's pid while it runs (0 after its exit) */
    int stdio_fd[3];      /* read-only after start: the parent's socket end for each
                             VIGIL_PROC_SOCKET entry, -1 for the others (the caller's) */
    uint64_t private_[14]; /* the library's */
};

/* Starts a child (see the header's comment for how). 0 on success: the child runs, p is
 * active, cb will run once. A negative errno on failure, nothing started and nothing
 * left open: -EINVAL (NULL loop/p/opt/cb/file, an empty file, unknown flags or stdio
 * mode, a VIGIL_PROC_FD entry with a negative fd, a VIGIL_PROC_AS entry not naming an
 * earlier fd, nonzero reserved, size too small),
 * -EBADF (a VIGIL_PROC_FD fd that is not open), -EBUSY (p is active), -ECANCELED (the
 * loop is being freed), what socketpair/clone report (-EMFILE, -EAGAIN at
 * RLIMIT_NPROC, -ENOMEM), and what failed in the child: chdir's, setuid's, setgid's,
 * setsid's or setpgid's error, or execve's (-ENOENT no such file, or not found in any
 * PATH directory; -EACCES not executable, or only non-executable matches in PATH;
 * -ENOEXEC not a format the kernel runs: no shell fallback, unlike execvp). */
VIGIL_EXPORT int vigil_proc_start(vigil_loop *loop, vigil_proc *p, const struct vigil_proc_options *opt,
                                  vigil_proc_exit_cb cb);

/* Sends signal sig to the running child through its pidfd (pidfd_send_signal: never to
 * a process that reused its pid). sig 0 checks that it can be signalled. -ESRCH when p
 * is not active (never started, or its exit callback has run), -EINVAL for a bad
 * signal number, else what pidfd_send_signal reports. A child that has exited but whose
 * callback has not run yet takes the signal silently (0). */
VIGIL_EXPORT int vigil_proc_kill(vigil_loop *loop, vigil_proc *p, int sig);

/* 1 from a successful start until the exit callback is called, else 0. */
VIGIL_EXPORT int vigil_proc_active(const vigil_proc *p);

/* The child's pidfd while active (close-on-exec; owned by vigil: do not close or wait
 * on it; poll it, or pass it to pidfd_getfd, setns...), else -1. */
VIGIL_EXPORT int vigil_proc_pidfd(const vigil_proc *p);

#ifdef __cplusplus
}
#endif
#endif
