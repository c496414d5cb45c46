/* lab/resolve: glibc's getaddrinfo_a (its own helper threads); each request notifies its
 * end with SIGEV_THREAD, which queues the request and writes an eventfd the main thread
 * blocks on: how a loop would take getaddrinfo_a's completions. */
#include "rs.h"

#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

static struct rs R;
static struct gaicb *cbs;
static char (*names)[64];
static int *idx;
static int efd;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int *doneq, ndone;
static struct addrinfo hints;

static void notify(union sigval v)
{
    pthread_mutex_lock(&mu);
    doneq[ndone++] = v.sival_int;
    pthread_mutex_unlock(&mu);
    uint64_t one = 1;
    ssize_t w = write(efd, &one, sizeof one);
    (void)w;
}

static void submit(int s)
{
    int i = R.next++;
    rs_name(i, names[s], sizeof names[s]);
    memset(&cbs[s], 0, sizeof cbs[s]);
    cbs[s].ar_name = names[s];
    cbs[s].ar_request = &hints;
    idx[s] = i;
    R.start_ns[i] = bench_now_ns();
    struct gaicb *one = &cbs[s];
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = notify;
    sev.sigev_value.sival_int = s;
    int e = getaddrinfo_a(GAI_NOWAIT, &one, 1, &sev);
    if (e != 0) {
        fprintf(stderr, "getaddrinfo_a: %s\n", gai_strerror(e));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    rs_args(&R, argc, argv, "glibc");
    int n = R.inflight;
    cbs = calloc((size_t)n, sizeof *cbs);
    names = calloc((size_t)n, 64);
    idx = calloc((size_t)n, sizeof *idx);
    doneq = calloc((size_t)n, sizeof *doneq);
    efd = eventfd(0, EFD_CLOEXEC);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rs_begin(&R);
    for (int s = 0; s < n && R.next < R.names; s++)
        submit(s);
    int *mine = calloc((size_t)n, sizeof *mine);
    while (R.done < R.names) {
        uint64_t v;
        if (read(efd, &v, sizeof v) < 0)
            return 1;
        pthread_mutex_lock(&mu);
        int k = ndone;
        memcpy(mine, doneq, (size_t)k * sizeof *mine);
        ndone = 0;
        pthread_mutex_unlock(&mu);
        for (int j = 0; j < k; j++) {
            int s = mine[j];
            int e = gai_error(&cbs[s]);
            int cnt = 0;
            for (struct addrinfo *a = e == 0 ? cbs[s].ar_result : NULL; a; a = a->ai_next)
                cnt++;
            rs_end(&R, idx[s], e == 0, cnt);
            if (e == 0 && cbs[s].ar_result)
                freeaddrinfo(cbs[s].ar_result);
            if (R.next < R.names)
                submit(s);
        }
    }
    return rs_report(&R);
}
