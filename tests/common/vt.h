/* Small helpers shared by the test programs. A test is one program per behaviour:
 * exit 0 pass, 1 fail (with the failing check printed), 77 skip (with the reason).
 */
#ifndef VIGIL_TEST_H
#define VIGIL_TEST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "vigil.h"

#define VT_SKIP 77

static inline void vt_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    exit(VT_SKIP);
}

/* vigil_loop_new, or a skip (77) naming the backend the kernel refused and why. */
static inline vigil_loop *vt_loop_new_or_skip(const struct vigil_loop_options *o, const char *backend)
{
    vigil_loop *loop = NULL;
    int r = vigil_loop_new(&loop, o);
    if (r == -ENOSYS || r == -EPERM) {
        char why[160];
        snprintf(why, sizeof why, "backend %s not available here: %s", backend, strerror(-r));
        vt_skip(why);
    }
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        exit(1);
    }
    return loop;
}

/* A loop on the backend VIGIL_BACKEND names; skips (77) when the kernel refuses it. */
static inline vigil_loop *vt_loop_opts(struct vigil_loop_options *o)
{
    const char *want = getenv("VIGIL_BACKEND");
    vigil_loop *loop = vt_loop_new_or_skip(o, want ? want : "auto");
    if (want && *want && strcmp(want, vigil_loop_backend(loop)) != 0) {
        fprintf(stderr, "asked for backend %s, got %s\n", want, vigil_loop_backend(loop));
        exit(1);
    }
    return loop;
}

static inline vigil_loop *vt_loop(void)
{
    return vt_loop_opts(NULL);
}

/* A loop on one backend (enum vigil_backend_kind, not AUTO), whatever VIGIL_BACKEND
 * says; skips (77) with the reason when the kernel refuses it. */
static inline vigil_loop *vt_loop_backend(int kind)
{
    static const char *const names[] = {"auto", "uring", "epoll", "poll"};
    CHECK(kind > VIGIL_BACKEND_AUTO && kind <= VIGIL_BACKEND_POLL);
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.backend = kind;
    vigil_loop *loop = vt_loop_new_or_skip(&o, names[kind]);
    if (strcmp(names[kind], vigil_loop_backend(loop)) != 0) {
        fprintf(stderr, "asked for backend %s, got %s\n", names[kind], vigil_loop_backend(loop));
        exit(1);
    }
    return loop;
}

/* What a vt_on_read watcher has read: callbacks, bytes in all, and the last byte. */
struct vt_reads {
    long calls;
    long bytes;
    char last;
};

/* An io callback for a watcher whose data points to a struct vt_reads: the event must be
 * readiness to read (not an error); it reads what is there (at least one byte, at most
 * 16) and counts. */
static inline void vt_on_read(vigil_loop *l, vigil_io *w, int ev)
{
    (void)l;
    CHECK(ev > 0 && (ev & VIGIL_READ));
    char b[16];
    ssize_t n = read(w->fd, b, sizeof b);
    CHECK(n > 0);
    struct vt_reads *r = w->data;
    r->calls++;
    r->bytes += n;
    r->last = b[n - 1];
}

/* An io callback for a watcher that must never be called: the test fails at once. */
static inline void vt_on_never(vigil_loop *l, vigil_io *w, int ev)
{
    (void)l;
    fprintf(stderr, "the watcher of fd %d was called (%d): it must never be\n", w->fd, ev);
    exit(1);
}

/* Writes one byte into wfd and runs one turn (which must leave watchers active): the
 * vt_on_read watcher counting into r is called once and reads exactly that byte. */
static inline void vt_byte_reaches(vigil_loop *loop, int wfd, char byte, const struct vt_reads *r)
{
    long calls = r->calls, bytes = r->bytes;
    CHECK_SYS(write(wfd, &byte, 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(r->calls, calls + 1);
    CHECK_EQ(r->bytes, bytes + 1);
    CHECK_EQ(r->last, byte);
}

/* Raises RLIMIT_NOFILE to at least n, or skips (77) when the hard limit forbids it. */
static inline void vt_nofile_at_least(rlim_t n)
{
    struct rlimit rl;
    CHECK_SYS(getrlimit(RLIMIT_NOFILE, &rl));
    if (rl.rlim_cur >= n)
        return;
    rl.rlim_cur = rl.rlim_max < n ? rl.rlim_max : n;
    setrlimit(RLIMIT_NOFILE, &rl);
    CHECK_SYS(getrlimit(RLIMIT_NOFILE, &rl));
    if (rl.rlim_cur < n) {
        char why[160];
        snprintf(why, sizeof why, "RLIMIT_NOFILE is %llu, below the %llu this test needs, and the hard limit forbids raising it",
                 (unsigned long long)rl.rlim_cur, (unsigned long long)n);
        vt_skip(why);
    }
}

/* Forks a child that runs child() and exits (_exit) with what it returns; returns its
 * pid to the parent. */
static inline pid_t vt_spawn(int (*child)(void))
{
    pid_t pid = fork();
    CHECK_SYS(pid);
    if (pid == 0)
        _exit(child());
    return pid;
}

/* Waits for a child: its exit status, or minus the signal that killed it. */
static inline int vt_child_exit(pid_t pid)
{
    int st;
    CHECK_SYS(waitpid(pid, &st, 0));
    if (WIFSIGNALED(st))
        return -WTERMSIG(st);
    CHECK(WIFEXITED(st));
    return WEXITSTATUS(st);
}

#endif
