/* Errors found only when a turn applies its batch -- an fd closed since start, a
 * regular file epoll refuses -- reach that watcher's callback once, as a negative
 * errno, and stop it; other watchers go on. */
#include "vt.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static int file_err, file_calls, closed_err, closed_calls;
static struct vt_reads good;

static void on_file(vigil_loop *l, vigil_io *w, int ev) { (void)l; CHECK(!vigil_io_active(w)); file_err = ev; file_calls++; }
static void on_closed(vigil_loop *l, vigil_io *w, int ev) { (void)l; CHECK(!vigil_io_active(w)); closed_err = ev; closed_calls++; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    char path[] = "/tmp/vigil-test-XXXXXX";
    int f = mkstemp(path);
    CHECK_SYS(f);
    unlink(path);
    int p[2], q[2];
    CHECK_SYS(pipe(p));
    CHECK_SYS(pipe(q));
    vigil_io wf = {0}, wc = {0}, wg = {.data = &good};
    CHECK_EQ(vigil_io_start(loop, &wf, f, VIGIL_READ, on_file), 0);
    CHECK_EQ(vigil_io_start(loop, &wc, q[0], VIGIL_READ, on_closed), 0);
    CHECK_EQ(vigil_io_start(loop, &wg, p[0], VIGIL_READ, vt_on_read), 0);
    close(q[0]); /* closed between start and the turn that applies it */
    CHECK_SYS(write(p[1], "x", 1));

    for (int i = 0; i < 3; i++)
        vigil_loop_run(loop, VIGIL_RUN_NOWAIT);
    CHECK_EQ(file_calls, 1);
    CHECK_EQ(file_err, -EPERM);
    CHECK_EQ(closed_calls, 1);
    CHECK_EQ(closed_err, -EBADF);
    CHECK_EQ(good.calls, 1);
    CHECK(!vigil_io_active(&wf) && !vigil_io_active(&wc) && vigil_io_active(&wg));

    /* The good watcher is unaffected afterwards too. */
    vt_byte_reaches(loop, p[1], 'y', &good);
    CHECK_EQ(good.calls, 2);
    CHECK_EQ(file_calls, 1);
    CHECK_EQ(closed_calls, 1);

    CHECK_EQ(vigil_loop_free(loop), 0);
    close(f);
    close(p[0]);
    close(p[1]);
    close(q[1]);
    return 0;
}
