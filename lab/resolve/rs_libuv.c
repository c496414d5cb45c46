/* lab/resolve: libuv's uv_getaddrinfo (glibc's getaddrinfo on libuv's thread pool). */
#include "rs.h"

#include <netdb.h>
#include <uv.h>

static struct rs R;
static uv_getaddrinfo_t *reqs;
static uv_loop_t *loop;

static void start(int slot);

static void done(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    int i = (int)(intptr_t)req->data;
    int n = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next)
        n++;
    rs_end(&R, i, status == 0, n);
    uv_freeaddrinfo(res);
    start((int)(req - reqs));
}

static void start(int slot)
{
    if (R.next >= R.names)
        return;
    int i = R.next++;
    char name[64];
    rs_name(i, name, sizeof name);
    reqs[slot].data = (void *)(intptr_t)i;
    R.start_ns[i] = bench_now_ns();
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (uv_getaddrinfo(loop, &reqs[slot], done, name, NULL, &hints) != 0) {
        fprintf(stderr, "uv_getaddrinfo failed\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    rs_args(&R, argc, argv, "libuv");
    loop = uv_default_loop();
    reqs = calloc((size_t)R.inflight, sizeof *reqs);
    rs_begin(&R);
    for (int s = 0; s < R.inflight; s++)
        start(s);
    uv_run(loop, UV_RUN_DEFAULT);
    return rs_report(&R);
}
