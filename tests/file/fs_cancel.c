/* File-system calls cancelled, and in flight when the loop is freed: every callback
 * runs exactly once, with the call's result (the directory was made) or -ECANCELED (it
 * was not), and what each says agrees with the tree afterwards. Whether a call was
 * still queued is the engine's timing: either answer passes, a wrong one fails. */
#include "ft.h"

#include <stdbool.h>
#include <sys/stat.h>

#define N 48

static int calls[N];
static int64_t res[N];

static void on_done(vigil_loop *loop, vigil_file_req *req, int64_t r)
{
    (void)loop;
    int i = (int)(intptr_t)req->data;
    calls[i]++;
    res[i] = r;
}

static void check_tree(const char *dir, const char *what)
{
    for (int i = 0; i < N; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s/d%02d", dir, i);
        struct stat st;
        bool there = stat(p, &st) == 0;
        if (calls[i] != 1 || !(res[i] == 0 ? there : res[i] == -ECANCELED && !there)) {
            fprintf(stderr, "%s: request %d: %d callbacks, result %lld, directory %s\n", what, i, calls[i],
                    (long long)res[i], there ? "made" : "absent");
            exit(1);
        }
        if (there)
            CHECK_SYS(rmdir(p));
    }
}

int main(void)
{
    char dir[] = "ft_fscancel_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static char paths[N][64];
    static vigil_file_req reqs[N];
    vigil_file_req *v[N];
    for (int i = 0; i < N; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/d%02d", dir, i);
        v[i] = &reqs[i];
    }

    /* cancelled right after submission */
    vigil_loop *loop = ft_loop_threads(1);
    for (int i = 0; i < N; i++) {
        memset(&reqs[i], 0, sizeof reqs[i]);
        reqs[i].data = (void *)(intptr_t)i;
        vigil_file_prep_mkdir(&reqs[i], AT_FDCWD, paths[i], 0755, on_done);
    }
    CHECK_EQ(vigil_file_submit(loop, v, N), N);
    for (int i = N - 1; i >= 0; i--)
        CHECK_EQ(vigil_file_cancel(loop, &reqs[i]), 0);
    int total = 0;
    while (vigil_file_inflight(loop) > 0)
        CHECK(vigil_loop_run(loop, VIGIL_RUN_ONCE) >= 0);
    for (int i = 0; i < N; i++)
        total += calls[i];
    CHECK_EQ(total, N);
    check_tree(dir, "cancel");

    /* in flight when the loop is freed */
    memset(calls, 0, sizeof calls);
    CHECK_EQ(vigil_file_submit(loop, v, N), N);
    CHECK_EQ(vigil_loop_free(loop), 0);
    check_tree(dir, "vigil_loop_free");

    CHECK_SYS(rmdir(dir));
    return 0;
}
