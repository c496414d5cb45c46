/* lab/resolve: glibc's getaddrinfo_a (its own helper threads), completions collected
 * with gai_suspend. */
#include "rs.h"

#include <netdb.h>

static struct rs R;

int main(int argc, char **argv)
{
    rs_args(&R, argc, argv, "glibc");
    int n = R.inflight;
    struct gaicb *cbs = calloc((size_t)n, sizeof *cbs);
    struct gaicb **list = calloc((size_t)n, sizeof *list);
    char (*names)[64] = calloc((size_t)n, 64);
    int *idx = calloc((size_t)n, sizeof *idx);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rs_begin(&R);
    int busy = 0;
    for (int s = 0; s < n; s++)
        list[s] = NULL;
    for (;;) {
        /* Fill the free slots. */
        for (int s = 0; s < n && R.next < R.names; s++) {
            if (list[s])
                continue;
            int i = R.next++;
            rs_name(i, names[s], sizeof names[s]);
            memset(&cbs[s], 0, sizeof cbs[s]);
            cbs[s].ar_name = names[s];
            cbs[s].ar_request = &hints;
            idx[s] = i;
            list[s] = &cbs[s];
            R.start_ns[i] = bench_now_ns();
            struct gaicb *one = &cbs[s];
            int e = getaddrinfo_a(GAI_NOWAIT, &one, 1, NULL);
            if (e != 0) {
                fprintf(stderr, "getaddrinfo_a: %s\n", gai_strerror(e));
                return 1;
            }
            busy++;
        }
        if (busy == 0)
            break;
        gai_suspend((const struct gaicb *const *)list, n, NULL);
        for (int s = 0; s < n; s++) {
            if (!list[s])
                continue;
            int e = gai_error(&cbs[s]);
            if (e == EAI_INPROGRESS)
                continue;
            int k = 0;
            for (struct addrinfo *a = cbs[s].ar_result; a; a = a->ai_next)
                k++;
            rs_end(&R, idx[s], e == 0, k);
            if (cbs[s].ar_result)
                freeaddrinfo(cbs[s].ar_result);
            list[s] = NULL;
            busy--;
        }
    }
    return rs_report(&R);
}
