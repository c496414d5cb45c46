/* run: start a command, copy what it writes (stdout and stderr, both on one socket) to
 * our stdout with each line prefixed by the seconds since the start, and exit with its
 * status: a timestamping wrapper.
 *
 *   run CMD [ARG...]      e.g.  run sh -c 'echo hi; sleep 1; echo there >&2; exit 3'
 *
 * What it shows: vigil_proc_start with a socketpair for the child's stdout
 * (VIGIL_PROC_SOCKET) and its stderr on the same socket (VIGIL_PROC_AS fd 1: 2>&1); the
 * parent's end handed to vigil_sock_open and received in the loop's buffers; the exit
 * callback.
 * An exec failure (no such command) is the start's error, not a child exiting 127. */
#include <vigil.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static vigil_sock out;
static int status = -1, eof, at_line_start = 1;
static int64_t t0_ns;

static void finish(vigil_loop *loop)
{
    if (eof && status >= 0)
        vigil_loop_stop(loop);
}

static void on_output(vigil_loop *loop, vigil_sock *s, ssize_t n, vigil_buf *buf)
{
    (void)s;
    if (n <= 0) { /* end of the stream (or an error): the child closed its side */
        eof = 1;
        finish(loop);
        return;
    }
    double secs = (double)(vigil_loop_now(loop) - t0_ns) / 1e9;
    for (ssize_t i = 0; i < n; i++) {
        if (at_line_start)
            printf("[%10.3f] ", secs);
        putchar(buf->data[i]);
        at_line_start = buf->data[i] == '\n';
    }
    fflush(stdout);
    vigil_buf_put(loop, buf);
}

static void on_exit_(vigil_loop *loop, vigil_proc *p, int exit_status, int term_signal)
{
    (void)p;
    if (term_signal)
        fprintf(stderr, "run: killed by signal %d (%s)\n", term_signal, strsignal(term_signal));
    status = exit_status < 0 ? 255 : term_signal ? 128 + term_signal : exit_status;
    finish(loop);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: run CMD [ARG...]\n");
        return 2;
    }
    vigil_loop *loop;
    if (vigil_loop_new(&loop, NULL) < 0)
        return 1;
    struct vigil_proc_options o;
    vigil_proc_options_init(&o);
    o.file = argv[1];
    o.argv = argv + 1;
    o.flags = VIGIL_PROC_SEARCH_PATH;
    o.stdio[1].mode = VIGIL_PROC_SOCKET;
    o.stdio[2].mode = VIGIL_PROC_AS; /* stderr: the same socket, the shell's 2>&1 */
    o.stdio[2].fd = 1;
    vigil_proc child = {0};
    t0_ns = vigil_loop_now(loop);
    int r = vigil_proc_start(loop, &child, &o, on_exit_);
    if (r < 0) {
        fprintf(stderr, "run: %s: %s\n", argv[1], strerror(-r));
        vigil_loop_free(loop);
        return 127;
    }
    vigil_sock_open(loop, &out, child.stdio_fd[1]);
    vigil_sock_recv_start(loop, &out, on_output);
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT);
    vigil_sock_close(loop, &out, NULL);
    vigil_loop_free(loop);
    return status;
}
