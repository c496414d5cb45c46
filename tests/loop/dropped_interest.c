/* A dropped interest never ends a blocking turn early nor reaches a callback. A socket
 * whose send buffer is full is watched for READ|WRITE (nothing ready), then drops WRITE;
 * another thread drains the peer (the socket becomes writable: the dropped bit fires)
 * and later writes a byte. One RUN_ONCE turn returns only with that byte: its callback
 * sees READ alone. (On io_uring the dropped bit may stay armed in the kernel; its
 * completion must be absorbed inside the turn.) */
#include "vt.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int sv[2];
static int calls, last;

static void on_ev(vigil_loop *l, vigil_io *w, int ev)
{
    (void)l;
    calls++;
    last = ev;
    if (ev & VIGIL_READ) {
        char b[8];
        CHECK(read(w->fd, b, sizeof b) == 1);
    }
}

static void *peer(void *arg)
{
    (void)arg;
    struct timespec d = {0, 20 * 1000000};
    nanosleep(&d, NULL);
    char buf[65536];
    while (read(sv[1], buf, sizeof buf) > 0) { /* drain: sv[0] becomes writable */
    }
    nanosleep(&d, NULL);
    CHECK(write(sv[1], "x", 1) == 1);
    return NULL;
}

int main(void)
{
    vigil_loop *loop = vt_loop();
    CHECK_SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
    for (int round = 0; round < 3; round++) {
        char junk[4096] = {0};
        while (write(sv[0], junk, sizeof junk) > 0) { /* fill: sv[0] is not writable */
        }
        CHECK_EQ(errno, EAGAIN);
        vigil_io w = {0};
        CHECK_EQ(vigil_io_start(loop, &w, sv[0], VIGIL_READ | VIGIL_WRITE, on_ev), 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_NOWAIT), 1); /* registered, nothing ready */
        CHECK_EQ(calls, 0);
        CHECK_EQ(vigil_io_modify(loop, &w, VIGIL_READ), 0);
        pthread_t th;
        CHECK_EQ(pthread_create(&th, NULL, peer, NULL), 0);
        CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_ONCE), 1); /* one turn: ends with the byte */
        CHECK_EQ(pthread_join(th, NULL), 0);
        CHECK_EQ(calls, 1);
        CHECK_EQ(last, VIGIL_READ);
        CHECK_EQ(vigil_io_stop(loop, &w), 0);
        calls = 0;
    }
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
