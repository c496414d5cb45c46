/* Connections the kernel hands over while accepting is stopped are not lost: three
 * clients connect (their connections wait in the backlog), accepting starts and stops
 * before a turn, a turn runs (on io_uring the multishot accept is submitted with its
 * cancellation, and takes the waiting connections first: they are held), accepting
 * starts again: all three are accepted, each the connection of one client, and no client
 * sees its connection reset or closed. Before the fix io_uring closed what it accepted
 * after the stop (found by fuzz/conn_fuzz.c). Then the same with the listener closed
 * instead of started again: no descriptor is left behind. */
#include "nt.h"

#include "fds.h"

static int accepted[8], naccepted;
static void on_accept(vigil_loop *l, vigil_sock *s, int fd)
{
    (void)l, (void)s;
    CHECK(fd >= 0);
    CHECK(naccepted < 8);
    accepted[naccepted++] = fd;
}
static int closed;
static void on_closed(vigil_loop *l, vigil_sock *s) { (void)l, (void)s; closed++; }

static int count_fds(void)
{
    int n = vt_count_fds();
    CHECK(n >= 0);
    return n;
}

static void clients(int port, int *c)
{
    struct sockaddr_in sa = nt_loopback(port);
    for (int i = 0; i < 3; i++) {
        c[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK_SYS(c[i]);
        CHECK_SYS(connect(c[i], (struct sockaddr *)&sa, sizeof sa));
    }
}

int main(void)
{
    alarm(20);
    int fds_start = count_fds();
    vigil_loop *loop = vt_loop();
    int port;
    vigil_sock l = {0};
    CHECK_EQ(vigil_sock_open(loop, &l, nt_listener(16, 0, &port)), 0);
    int c[3];
    clients(port, c);
    CHECK_EQ(vigil_sock_accept_start(loop, &l, on_accept), 0);
    CHECK_EQ(vigil_sock_accept_stop(loop, &l), 0);
    nt_run_for(loop, 20);
    CHECK_EQ(naccepted, 0);
    CHECK_EQ(vigil_sock_accept_start(loop, &l, on_accept), 0);
    CHECK_EQ(naccepted, 0); /* at the completion point, not in the call */
    NT_RUN_UNTIL(loop, naccepted == 3, 3000);
    nt_run_for(loop, 10);
    CHECK_EQ(naccepted, 3);
    for (int i = 0; i < 3; i++) {
        int peer = -1;
        struct sockaddr_in p;
        socklen_t pl = sizeof p;
        CHECK_SYS(getpeername(accepted[i], (struct sockaddr *)&p, &pl));
        for (int k = 0; k < 3; k++)
            if (nt_port_of(c[k]) == ntohs(p.sin_port))
                peer = k;
        CHECK(peer >= 0);
        char x;
        CHECK_EQ(recv(c[peer], &x, 1, MSG_DONTWAIT), -1);
        CHECK(errno == EAGAIN); /* open, not reset, not at end of stream */
    }
    printf("%s: 3 connections made while accepting was stopped, 3 accepted after the start\n", nt_backend());
    for (int i = 0; i < 3; i++)
        close(accepted[i]), close(c[i]);

    /* Held, then the listener closes: what it held is closed with it. */
    CHECK_EQ(vigil_sock_accept_stop(loop, &l), 0);
    nt_run_for(loop, 10);
    clients(port, c);
    CHECK_EQ(vigil_sock_accept_start(loop, &l, on_accept), 0);
    CHECK_EQ(vigil_sock_accept_stop(loop, &l), 0);
    nt_run_for(loop, 20);
    CHECK_EQ(vigil_sock_close(loop, &l, on_closed), 0);
    NT_RUN_UNTIL(loop, closed == 1, 3000);
    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < 3; i++)
        close(c[i]);
    CHECK_EQ(count_fds(), fds_start);
    return 0;
}
