/* vigil_net_cancel: on a send queued behind a blocked one, on the blocked send at the
 * queue's head, and on a connect that gets no answer. Each ends exactly once with
 * -ECANCELED (or its result, had it finished first); the send queued behind the
 * cancelled head is then performed whole once the peer reads. */
#include "nt.h"

#define BIG (4u << 20)
#define SMALL 1000

static int calls[4];
static ssize_t res_of[4];

static void on_done(vigil_loop *loop, vigil_net_req *req, ssize_t res)
{
    (void)loop;
    int i = (int)(intptr_t)req->data;
    calls[i]++;
    res_of[i] = res;
}

int main(void)
{
    alarm(20);
    vigil_loop *loop = vt_loop();
    static unsigned char big[BIG];
    nt_fill(big, BIG, 0);
    int p[2];
    nt_pair(p, 1);
    vigil_sock s = {0};
    CHECK_EQ(vigil_sock_open(loop, &s, p[1]), 0);
    vigil_net_req head = {0}, queued = {0}, last = {0}, conn = {0};
    head.data = (void *)0, queued.data = (void *)1, last.data = (void *)2, conn.data = (void *)3;
    CHECK_EQ(vigil_sock_send(loop, &s, &head, big, BIG, on_done), 0);
    CHECK_EQ(vigil_sock_send(loop, &s, &queued, big, SMALL, on_done), 0);
    CHECK_EQ(vigil_sock_send(loop, &s, &last, big, SMALL, on_done), 0);
    nt_run_for(loop, 30); /* the head blocks: the peer reads nothing */
    CHECK_EQ(calls[0] + calls[1] + calls[2], 0);

    /* The queued one, then the head. */
    CHECK_EQ(vigil_net_cancel(loop, &queued), 0);
    CHECK_EQ(vigil_net_cancel(loop, &queued), 0); /* asked already: no second end */
    CHECK_EQ(calls[1], 0);                          /* never inside the call */
    NT_RUN_UNTIL(loop, calls[1] == 1, 2000);
    CHECK_EQ(res_of[1], -ECANCELED);
    CHECK_EQ(calls[0], 0);
    CHECK_EQ(vigil_net_cancel(loop, &head), 0);
    CHECK_EQ(calls[0], 0);
    NT_RUN_UNTIL(loop, calls[0] == 1, 2000);
    CHECK(res_of[0] == -ECANCELED || res_of[0] == (ssize_t)BIG);
    CHECK_EQ(vigil_net_cancel(loop, &head), -ENOENT);
    CHECK_EQ(vigil_net_cancel(loop, &queued), -ENOENT);

    /* The one behind them goes out whole once the peer reads. */
    CHECK_SYS(fcntl(p[0], F_SETFL, O_NONBLOCK));
    static char sink[1 << 16];
    int64_t end = nt_ms() + 3000;
    while (calls[2] == 0) {
        CHECK(nt_ms() < end);
        CHECK(vigil_loop_run(loop, VIGIL_RUN_NOWAIT) >= 0);
        while (read(p[0], sink, sizeof sink) > 0)
            ;
    }
    CHECK_EQ(res_of[2], SMALL);

    /* A connect nobody answers. */
    int port, fills[8], nfill;
    int l = nt_full_listener(&port, fills, &nfill);
    vigil_sock c = {0};
    int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_SYS(cfd);
    CHECK_EQ(vigil_sock_open(loop, &c, cfd), 0);
    struct sockaddr_in sa = nt_loopback(port);
    CHECK_EQ(vigil_sock_connect(loop, &c, &conn, (struct sockaddr *)&sa, sizeof sa, 0, on_done), 0);
    nt_run_for(loop, 30);
    CHECK_EQ(calls[3], 0);
    CHECK_EQ(vigil_net_cancel(loop, &conn), 0);
    NT_RUN_UNTIL(loop, calls[3] == 1, 2000);
    CHECK(res_of[3] == -ECANCELED || res_of[3] == 0);
    nt_run_for(loop, 20);

    for (int i = 0; i < 4; i++)
        CHECK_EQ(calls[i], 1);
    CHECK_EQ(vigil_sock_close(loop, &s, NULL), 0);
    CHECK_EQ(vigil_sock_close(loop, &c, NULL), 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    for (int i = 0; i < nfill; i++)
        close(fills[i]);
    close(l), close(p[0]);
    printf("head send ended with %zd, connect with %zd on %s\n", res_of[0], res_of[3], nt_backend());
    return 0;
}
