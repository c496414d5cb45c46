/* Batches of every shape in one turn: a batch that fits the io_uring engine's free
 * submission slots (taken at once), one that does not (the rest of the ring's room,
 * then slot by slot with a flush), and one that mixes reads with a call the engine hands
 * to its threads (chmod) and an fsync, pool requests with the caller's own. On every
 * engine: each request completes once, with its data, and nothing stays in flight. */
#include "ft.h"

#define N1 1000 /* fits the uring backend's 1024 slots */
#define N2 100  /* does not, after N1 */
#define NR (N1 + N2 + 3)
static int done, reads_ok;
static unsigned char seen[NR];
static uint64_t out[NR];
static int64_t chmod_res = 1, fsync_res = 1;

static void on_read(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    int i = (int)(intptr_t)req->data;
    CHECK(i >= 0 && i < NR);
    CHECK_EQ(res, 8);
    CHECK_EQ(out[i], (uint64_t)i * 2654435761u);
    CHECK_EQ(seen[i], 0);
    seen[i] = 1;
    reads_ok++;
    done++;
    vigil_file_req_put(loop, req); /* refused for the caller's own: harmless */
}

static void on_chmod(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    chmod_res = res;
    done++;
    vigil_file_req_put(loop, req);
}

static void on_fsync(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    fsync_res = res;
    done++;
    vigil_file_req_put(loop, req);
}

static vigil_file_req *pool_read(vigil_loop *loop, int fd, int i)
{
    vigil_file_req *r = vigil_file_req_get(loop);
    CHECK(r != NULL);
    vigil_file_prep_read(r, fd, &out[i], 8, (int64_t)i * 8, on_read);
    r->data = (void *)(intptr_t)i;
    return r;
}

int main(void)
{
    vigil_loop *loop = ft_loop();
    int fd = ft_tmpfile(0);
    static uint64_t data[NR];
    for (int i = 0; i < NR; i++)
        data[i] = (uint64_t)i * 2654435761u;
    CHECK(pwrite(fd, data, sizeof data, 0) == (ssize_t)sizeof data);
    CHECK_SYS(fchmod(fd, 0600));

    /* 1: pool requests, as many as the ring's room holds. */
    static vigil_file_req *v[N1];
    for (int i = 0; i < N1; i++)
        v[i] = pool_read(loop, fd, i);
    CHECK_EQ(vigil_file_submit(loop, v, N1), N1);

    /* 2: the caller's own requests, more than the ring has left in this turn. */
    static vigil_file_req own[N2 + 1];
    for (int i = 0; i < N2; i++) {
        vigil_file_prep_read(&own[i], fd, &out[N1 + i], 8, (int64_t)(N1 + i) * 8, on_read);
        own[i].data = (void *)(intptr_t)(N1 + i);
        v[i] = &own[i];
    }
    CHECK_EQ(vigil_file_submit(loop, v, N2), N2);

    /* 3: read, chmod (the threads), read (the caller's), fsync, read. */
    int base = N1 + N2;
    vigil_file_req *m[5];
    m[0] = pool_read(loop, fd, base);
    m[1] = vigil_file_req_get(loop);
    CHECK(m[1] != NULL);
    vigil_file_prep_chmod(m[1], fd, NULL, 0640, 0, on_chmod);
    vigil_file_prep_read(&own[N2], fd, &out[base + 1], 8, (int64_t)(base + 1) * 8, on_read);
    own[N2].data = (void *)(intptr_t)(base + 1);
    m[2] = &own[N2];
    m[3] = vigil_file_req_get(loop);
    CHECK(m[3] != NULL);
    vigil_file_prep_fsync(m[3], fd, 0, on_fsync);
    m[4] = pool_read(loop, fd, base + 2);
    CHECK_EQ(vigil_file_submit(loop, m, 5), 5);
    CHECK_EQ(vigil_file_inflight(loop), (unsigned)(N1 + N2 + 5));

    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(done, NR + 2);
    CHECK_EQ(reads_ok, NR);
    for (int i = 0; i < NR; i++)
        CHECK_EQ(seen[i], 1);
    CHECK_EQ(chmod_res, 0);
    CHECK_EQ(fsync_res, 0);
    struct stat st;
    CHECK_SYS(fstat(fd, &st));
    CHECK_EQ(st.st_mode & 0777, 0640u);
    CHECK_EQ(vigil_file_inflight(loop), 0u);

    /* The same again from the pool alone, now warm: the requests put back come out again. */
    done = reads_ok = 0;
    memset(seen, 0, sizeof seen);
    memset(out, 0, sizeof out);
    for (int i = 0; i < N1; i++)
        v[i] = pool_read(loop, fd, i);
    CHECK_EQ(vigil_file_submit(loop, v, N1), N1);
    CHECK_EQ(vigil_loop_run(loop, VIGIL_RUN_DEFAULT), 0);
    CHECK_EQ(reads_ok, N1);
    close(fd);
    vigil_loop_free(loop);
    return 0;
}
