/* 1,000 children of /bin/true started and reaped concurrently, up to 64 at a time (a
 * new one started from each exit callback): each callback runs once with status 0,
 * and at the end no child is left (waitid(P_ALL, WNOHANG|WNOWAIT) says ECHILD, and
 * /proc/self/task/<tid>/children is empty) and the fd count is what it was. */
#include "pt.h"

#define TOTAL 1000
#define INFLIGHT 64

static vigil_proc procs[INFLIGHT];
static int started, ended, inflight, max_inflight;
static struct vigil_proc_options opts;

static void on_exit_(vigil_loop *l, vigil_proc *p, int status, int sig);

static void start_one(vigil_loop *l, vigil_proc *p)
{
    int r = vigil_proc_start(l, p, &opts, on_exit_);
    if (r < 0) {
        fprintf(stderr, "start %d: %s\n", started, strerror(-r));
        exit(1);
    }
    started++;
    if (++inflight > max_inflight)
        max_inflight = inflight;
}

static void on_exit_(vigil_loop *l, vigil_proc *p, int status, int sig)
{
    CHECK(!vigil_proc_active(p));
    CHECK_EQ(status, 0);
    CHECK_EQ(sig, 0);
    ended++;
    inflight--;
    if (started < TOTAL)
        start_one(l, p); /* the struct is free again inside its own callback */
}

int main(void)
{
    alarm(60);
    int fds0 = vt_count_fds();
    vigil_loop *loop = vt_loop();
    static char *const argv[] = {"/bin/true", NULL};
    opts = pt_opts(argv);
    for (int i = 0; i < INFLIGHT; i++)
        start_one(loop, &procs[i]);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(started, TOTAL);
    CHECK_EQ(ended, TOTAL);
    CHECK_EQ(inflight, 0);
    CHECK(max_inflight == INFLIGHT);
    pt_no_children();
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)gettid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        CHECK_EQ(read(fd, buf, sizeof buf), 0);
        close(fd);
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    CHECK_EQ(vt_count_fds(), fds0);
    return 0;
}
