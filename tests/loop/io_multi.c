/* Several watchers on one fd: each hears the events it asked for, in start order. */
#include "vt.h"

#include <sys/socket.h>
#include <unistd.h>

static char order[16];
static int norder;

static void cb_a(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; CHECK(ev & VIGIL_READ); order[norder++] = 'a'; }
static void cb_b(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; CHECK(ev & VIGIL_WRITE); CHECK(!(ev & VIGIL_READ)); order[norder++] = 'b'; }
static void cb_c(vigil_loop *l, vigil_io *w, int ev) { (void)l; (void)w; CHECK(ev & VIGIL_READ); order[norder++] = 'c'; }

int main(void)
{
    vigil_loop *loop = vt_loop();
    int sv[2];
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    vigil_io a = {0}, b = {0}, c = {0};
    CHECK_EQ(vigil_io_start(loop, &a, sv[0], VIGIL_READ, cb_a), 0);
    CHECK_EQ(vigil_io_start(loop, &b, sv[0], VIGIL_WRITE, cb_b), 0);
    CHECK_EQ(vigil_io_start(loop, &c, sv[0], VIGIL_READ, cb_c), 0);

    /* Only writable: b alone. */
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(norder, 1);
    CHECK_EQ(order[0], 'b');

    /* Readable and writable: a, b, c in start order. */
    norder = 0;
    CHECK_SYS(write(sv[1], "x", 1));
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(norder, 3);
    CHECK(memcmp(order, "abc", 3) == 0);

    /* Stop the middle one: a and c keep hearing reads. */
    CHECK_EQ(vigil_io_stop(loop, &b), 0);
    norder = 0;
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1);
    CHECK_EQ(norder, 2);
    CHECK(memcmp(order, "ac", 2) == 0);

    CHECK_EQ(vigil_loop_free(loop), 0);
    close(sv[0]);
    close(sv[1]);
    return 0;
}
