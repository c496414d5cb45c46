/* mq_watch: a worker process sends messages with priorities; the parent receives them in
 * its vigil loop through an mq watcher (no thread on io_uring with Linux 6.7+, a helper
 * thread elsewhere). Urgent messages (priority 9) come out first.
 *
 *   ./mq_watch            (the queue lives in /dev/shm, or in $VIGIL_MQ_DIR)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vigil.h>

static mqd_t q;
static int received;

static void on_message(vigil_loop *loop, vigil_mq_watch *w, int revents)
{
    if (revents < 0) {
        fprintf(stderr, "queue: %s\n", strerror(-revents));
        vigil_loop_stop(loop);
        return;
    }
    char buf[64];
    unsigned prio;
    ssize_t n;
    /* Drain what is there; the watcher calls again when more arrives. */
    while ((n = vigil_mq_receive(q, buf, sizeof buf, &prio)) >= 0) {
        printf("prio %u: %.*s\n", prio, (int)n, buf);
        if (++received == 4) {
            vigil_mq_watch_stop(loop, w);
            return;
        }
    }
    if (errno != EAGAIN)
        perror("vigil_mq_receive");
}

int main(void)
{
    struct mq_attr attr = {.mq_maxmsg = 16, .mq_msgsize = 64};
    q = vigil_mq_open("/vigil-example", O_RDWR | O_CREAT | O_NONBLOCK, 0600, &attr);
    if (q == (mqd_t)-1) {
        perror("vigil_mq_open");
        return 1;
    }
    vigil_mq_unlink("/vigil-example"); /* the name is not needed once both have it */

    pid_t pid = fork();
    if (pid == 0) {
        /* The descriptor stays valid in the child. Send while the parent is busy. */
        vigil_mq_send(q, "routine 1", 9, 0);
        vigil_mq_send(q, "routine 2", 9, 0);
        vigil_mq_send(q, "urgent", 6, 9);
        usleep(100000);
        vigil_mq_send(q, "later", 5, 0);
        _exit(0);
    }
    usleep(50000); /* let the first three queue up, to show the priority order */

    vigil_loop *loop;
    int r = vigil_loop_new(&loop, NULL);
    if (r < 0) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(-r));
        return 1;
    }
    vigil_mq_watch w = {0};
    r = vigil_mq_watch_start(loop, &w, q, VIGIL_READ, on_message);
    if (r < 0) {
        fprintf(stderr, "vigil_mq_watch_start: %s\n", strerror(-r));
        return 1;
    }
    printf("loop on %s, %s\n", vigil_loop_backend(loop),
           vigil_mq_watch_threaded(&w) ? "watching with a helper thread" : "watching in io_uring");
    vigil_loop_run(loop, VIGIL_RUN_DEFAULT); /* returns when the watcher stopped */
    vigil_loop_free(loop);
    waitpid(pid, NULL, 0);
    vigil_mq_close(q);
    return 0;
}
