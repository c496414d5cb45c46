/* A watcher hears readiness of its fd, for reading and for writing, and nothing after
 * it is stopped; modify changes what it hears. */
#include "vt.h"

#include <unistd.h>

static int reads, writes, last;

static void on_read(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)loop;
    last = ev;
    reads++;
    char buf[1]; /* one byte per callback: what is left must be reported again */
    CHECK(read(w->fd, buf, sizeof buf) == 1);
}

static void on_write(vigil_loop *loop, vigil_io *w, int ev)
{
    (void)loop;
    (void)w;
    CHECK(ev & VIGIL_WRITE);
    writes++;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    int p[2];
    CHECK_SYS(pipe(p));
    vigil_io r = {0}, wr = {0};
    CHECK_EQ(vigil_io_start(loop, &r, p[0], VIGIL_READ, on_read), 0);
    CHECK(vigil_io_active(&r));

    /* Nothing ready: a non-blocking turn calls nothing. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(reads, 0);

    CHECK_SYS(write(p[1], "x", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(reads, 1);
    CHECK(last & VIGIL_READ);

    /* Level-triggered: data left unread is reported again. */
    CHECK_SYS(write(p[1], "xy", 2));
    for (int i = 0; i < 2; i++)
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(reads, 3);

    /* A pipe's write end is writable at once. */
    CHECK_EQ(vigil_io_start(loop, &wr, p[1], VIGIL_WRITE, on_write), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(writes, 1);

    /* Modify to READ on the write end: it never becomes readable. */
    CHECK_EQ(vigil_io_modify(loop, &wr, VIGIL_READ), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(writes, 1);
    CHECK_EQ(vigil_io_modify(loop, &wr, VIGIL_WRITE), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1);
    CHECK_EQ(writes, 2);

    /* Stopped watchers hear nothing. */
    int before = reads;
    CHECK_EQ(vigil_io_stop(loop, &r), 0);
    CHECK_EQ(vigil_io_stop(loop, &r), 0); /* stopping twice is fine */
    CHECK_EQ(vigil_io_stop(loop, &wr), 0);
    CHECK_SYS(write(p[1], "z", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 0);
    CHECK_EQ(reads, before);
    CHECK_EQ(writes, 2);
    CHECK(!vigil_io_active(&r));

    /* Restart after stop. */
    CHECK_EQ(vigil_io_start(loop, &r, p[0], VIGIL_READ, on_read), 0);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(reads, before + 1);

    CHECK_EQ(vigil_loop_free(loop), 0);
    close(p[0]);
    close(p[1]);
    return 0;
}
