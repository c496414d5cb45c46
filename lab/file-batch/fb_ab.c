/* file-batch diagnostic (not a system of the benchmark; bench.py does not run it): the
 * file-batch shape (random reads, depth 256, refilled in groups of --batch) through
 * several systems in ONE process, alternating short windows of a fixed number of
 * completions (A B C A B C ...), so that every system sees the same machine at nearly
 * the same moments. On the shared 2-core VM the separate programs' CPU per I/O moves by
 * 20-50% from one second to the next; windows a few milliseconds apart pair far better.
 *
 *   fb_ab --path FILE --file unwritten|cached [--systems a,b,...] [--batch 32]
 *         [--windows 200] [--ios 4096] [--registered 1]
 *
 * Systems:
 *   vigil          vigil's io_uring engine on its uring backend, as fb_vigil
 *   liburing       as fb_liburing: one io_uring_submit per group, ring of depth entries
 *   liburing-big   the same with vigil's backend's ring sizes (SQ 1024, CQ 4096)
 *   liburing-turn  the groups of one refill submitted in one io_uring_submit_and_wait
 *                  with the wait (vigil's pattern: one enter per turn)
 *   liburing-turn-big  both
 *   liburing-bigsq, liburing-bigcq  only the SQ ring (1024), only the CQ ring (4096)
 *   vigil@LIB      vigil as above, from the shared library LIB loaded with dlmopen into a
 *                  namespace of its own: two builds of the library compared side by side
 *                  (vigil@build-a/libvigil.so,vigil@build-b/libvigil.so)
 * The CPU of a window is the calling thread's (CLOCK_THREAD_CPUTIME_ID): every read of
 * these files completes inside io_uring_enter, in this thread. Prints, per system, the
 * median and the 10th-90th percentiles of its windows' CPU ns per I/O, and the median of
 * the per-round ratios to the first system. */
#include "bench.h"

#include "vigil.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include "uring_flags.h"
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH 256
#define MAX_SYS 8

static int fd, direct, registered, batch = 32;
static size_t bs;
static uint64_t nblocks;
static char *mem;
static int freeslots[DEPTH], nfree;
static long done;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static int64_t offset_next(void)
{
    uint64_t x = rng;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    rng = x;
    return (int64_t)(((x * 0x2545f4914f6cdd1dull) >> 11) % nblocks * bs);
}

static void io_done(int slot, long res)
{
    if (res != (long)bs) {
        fprintf(stderr, "read returned %ld\n", res);
        exit(1);
    }
    freeslots[nfree++] = slot;
    done++;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The library's calls a vigil system makes: the linked library's, or a dlmopen'd one's. */
struct vapi {
    void (*loop_options_init)(struct vigil_loop_options *);
    int (*loop_new)(vigil_loop **, const struct vigil_loop_options *);
    void (*file_options_init)(struct vigil_file_options *);
    int (*file_setup)(vigil_loop *, const struct vigil_file_options *);
    int (*register_files)(vigil_loop *, const int *, unsigned);
    int (*register_buffers)(vigil_loop *, const struct iovec *, unsigned);
    vigil_file_req *(*req_get)(vigil_loop *);
    void (*req_put)(vigil_loop *, vigil_file_req *);
    int (*submit)(vigil_loop *, vigil_file_req *const *, int);
    int (*run)(vigil_loop *, enum vigil_run_mode);
};

struct sys {
    const char *name;
    struct vapi v;
    void (*init)(struct sys *s);
    void (*submit)(struct sys *s, const int *slots, int n);
    void (*wait)(struct sys *s);
    struct io_uring ring;
    int big, turn;
    vigil_loop *loop;
    double *cpu;
    double user_ns, sys_ns, ios; /* rusage of the thread over every window (tick-sampled split) */
};

/* ---- liburing and its variants ---- */

static void lu_init(struct sys *s)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    unsigned entries = DEPTH;
    if (s->big & 1) /* "big" or "bigsq": vigil's SQ ring size */
        entries = 1024;
    if (s->big & 2) { /* "big" or "bigcq": vigil's CQ ring size */
        p.flags |= IORING_SETUP_CQSIZE;
        p.cq_entries = 4096;
    }
    int r = io_uring_queue_init_params(entries, &s->ring, &p);
    if (r < 0) {
        fprintf(stderr, "%s: io_uring_queue_init: %s\n", s->name, strerror(-r));
        exit(1);
    }
    if (registered) {
        struct iovec iov = {mem, (size_t)DEPTH * bs};
        if (io_uring_register_files(&s->ring, &fd, 1) < 0 || io_uring_register_buffers(&s->ring, &iov, 1) < 0) {
            fprintf(stderr, "%s: register failed\n", s->name);
            exit(1);
        }
    }
}

static void lu_submit(struct sys *s, const int *slots, int n)
{
    for (int i = 0; i < n; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
        char *buf = mem + (size_t)slots[i] * bs;
        if (registered) {
            io_uring_prep_read_fixed(sqe, 0, buf, (unsigned)bs, (uint64_t)offset_next(), 0);
            sqe->flags |= IOSQE_FIXED_FILE;
        } else {
            io_uring_prep_read(sqe, fd, buf, (unsigned)bs, (uint64_t)offset_next());
        }
        io_uring_sqe_set_data64(sqe, (uint64_t)slots[i]);
    }
    if (!s->turn && io_uring_submit(&s->ring) != n) {
        fprintf(stderr, "%s: io_uring_submit failed\n", s->name);
        exit(1);
    }
}

static void lu_wait(struct sys *s)
{
    struct io_uring_cqe *cqe;
    if (s->turn) {
        if (io_uring_sq_ready(&s->ring) && io_uring_submit_and_wait(&s->ring, 1) < 0)
            exit(1);
    }
    if (io_uring_peek_cqe(&s->ring, &cqe) != 0) {
        int r;
        while ((r = io_uring_wait_cqe(&s->ring, &cqe)) == -EINTR) {
        }
        if (r < 0)
            exit(1);
    }
    struct io_uring_cqe *cqes[DEPTH * 4];
    unsigned n = io_uring_peek_batch_cqe(&s->ring, cqes, DEPTH * 4);
    for (unsigned i = 0; i < n; i++)
        io_done((int)cqes[i]->user_data, cqes[i]->res);
    io_uring_cq_advance(&s->ring, n);
}

/* ---- vigil ---- */

static void on_read(vigil_loop *l, vigil_file_req *req, int64_t res)
{
    int slot = (int)(intptr_t)req->data;
    vigil_file_req_put(l, req);
    io_done(slot, (long)res);
}

static struct sys *dl_cur; /* the dlmopen'd system whose loop runs (its put) */

static void on_read_dl(vigil_loop *l, vigil_file_req *req, int64_t res)
{
    int slot = (int)(intptr_t)req->data;
    dl_cur->v.req_put(l, req);
    io_done(slot, (long)res);
}

static void api_linked(struct vapi *v)
{
    v->loop_options_init = vigil_loop_options_init, v->loop_new = vigil_loop_new;
    v->file_options_init = vigil_file_options_init, v->file_setup = vigil_file_setup;
    v->register_files = vigil_file_register_files, v->register_buffers = vigil_file_register_buffers;
    v->req_get = vigil_file_req_get, v->req_put = vigil_file_req_put, v->submit = vigil_file_submit;
    v->run = vigil_loop_run;
}

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(1);
    }
    return p;
}

static void api_dl(struct vapi *v, const char *lib)
{
    void *h = dlmopen(LM_ID_NEWLM, lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlmopen %s: %s\n", lib, dlerror());
        exit(1);
    }
    *(void **)&v->loop_options_init = sym(h, "vigil_loop_options_init");
    *(void **)&v->loop_new = sym(h, "vigil_loop_new");
    *(void **)&v->file_options_init = sym(h, "vigil_file_options_init");
    *(void **)&v->file_setup = sym(h, "vigil_file_setup");
    *(void **)&v->register_files = sym(h, "vigil_file_register_files");
    *(void **)&v->register_buffers = sym(h, "vigil_file_register_buffers");
    *(void **)&v->req_get = sym(h, "vigil_file_req_get");
    *(void **)&v->req_put = sym(h, "vigil_file_req_put");
    *(void **)&v->submit = sym(h, "vigil_file_submit");
    *(void **)&v->run = sym(h, "vigil_loop_run");
}

static void vg_init(struct sys *s)
{
    struct vigil_loop_options lo;
    s->v.loop_options_init(&lo);
    lo.backend = VIGIL_BACKEND_URING;
    struct vigil_file_options fo;
    s->v.file_options_init(&fo);
    fo.engine = VIGIL_FILE_ENGINE_URING;
    if (s->v.loop_new(&s->loop, &lo) < 0 || s->v.file_setup(s->loop, &fo) < 0) {
        fprintf(stderr, "vigil: no io_uring\n");
        exit(1);
    }
    if (registered) {
        struct iovec iov = {mem, (size_t)DEPTH * bs};
        if (s->v.register_files(s->loop, &fd, 1) < 0 || s->v.register_buffers(s->loop, &iov, 1) < 0) {
            fprintf(stderr, "vigil: register failed\n");
            exit(1);
        }
    }
}

static void vg_submit(struct sys *s, const int *slots, int n)
{
    vigil_file_req *v[DEPTH];
    vigil_file_cb cb = s->big ? on_read_dl : on_read; /* big: a dlmopen'd library */
    for (int i = 0; i < n; i++) {
        vigil_file_req *req = s->v.req_get(s->loop);
        req->data = (void *)(intptr_t)slots[i];
        char *buf = mem + (size_t)slots[i] * bs;
        if (registered) {
            vigil_file_prep_read(req, 0, buf, bs, offset_next(), cb);
            req->flags = VIGIL_FILE_FIXED_FILE | VIGIL_FILE_FIXED_BUF;
        } else {
            vigil_file_prep_read(req, fd, buf, bs, offset_next(), cb);
        }
        v[i] = req;
    }
    if (s->v.submit(s->loop, v, n) != n) {
        fprintf(stderr, "vigil: submit failed\n");
        exit(1);
    }
}

static void vg_wait(struct sys *s)
{
    dl_cur = s;
    if (s->v.run(s->loop, VIGIL_RUN_ONCE) < 0)
        exit(1);
}

/* ---- the driver ---- */

static void fill(struct sys *s)
{
    while (nfree >= batch) {
        nfree -= batch;
        s->submit(s, &freeslots[nfree], batch);
    }
}

static void drain(struct sys *s)
{
    while (nfree < DEPTH)
        s->wait(s);
}

/* One window: ios completions from an idle start, then drained (so the next system
 * starts from an idle state too). Returns the thread's CPU ns per I/O. */
static double tv_ns(struct timeval t)
{
    return (double)t.tv_sec * 1e9 + (double)t.tv_usec * 1e3;
}

static double window(struct sys *s, long ios)
{
    struct rusage r0, r1;
    getrusage(RUSAGE_THREAD, &r0);
    int64_t c0 = thread_cpu_ns();
    long d0 = done;
    while (done - d0 < ios) {
        fill(s);
        s->wait(s);
    }
    drain(s);
    int64_t c1 = thread_cpu_ns();
    getrusage(RUSAGE_THREAD, &r1);
    s->user_ns += tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime);
    s->sys_ns += tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime);
    s->ios += (double)(done - d0);
    return (double)(c1 - c0) / (double)(done - d0);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(double *v, long n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(long)((double)(n - 1) * q)];
}

int main(int argc, char **argv)
{
    const char *path = NULL, *file = NULL, *systems = "vigil,liburing";
    long windows = 200, ios = 4096;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--path"))
            path = v;
        else if (!strcmp(k, "--file"))
            file = v;
        else if (!strcmp(k, "--systems"))
            systems = v;
        else if (!strcmp(k, "--batch"))
            batch = atoi(v);
        else if (!strcmp(k, "--windows"))
            windows = atol(v);
        else if (!strcmp(k, "--ios"))
            ios = atol(v);
        else if (!strcmp(k, "--registered"))
            registered = atoi(v);
    }
    if (!path || !file || batch < 1 || batch > DEPTH) {
        fprintf(stderr, "usage: fb_ab --path FILE --file unwritten|cached [--systems a,b] [--batch 32] "
                        "[--windows 200] [--ios 4096] [--registered 1]\n");
        return 2;
    }
    direct = strcmp(file, "cached") != 0;
    bs = direct ? 8192 : 512;
    fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        perror(path);
        return 1;
    }
    nblocks = (uint64_t)st.st_size / bs;
    if (posix_memalign((void **)&mem, 4096, DEPTH * bs))
        return 1;
    memset(mem, 0, DEPTH * bs);
    for (int i = 0; i < DEPTH; i++)
        freeslots[i] = i;
    nfree = DEPTH;

    static struct sys sys[MAX_SYS];
    int ns = 0;
    char *list = strdup(systems);
    for (char *t = strtok(list, ","); t && ns < MAX_SYS; t = strtok(NULL, ",")) {
        struct sys *s = &sys[ns++];
        s->name = t;
        if (!strcmp(t, "vigil")) {
            s->init = vg_init, s->submit = vg_submit, s->wait = vg_wait;
            api_linked(&s->v);
        } else if (!strncmp(t, "vigil@", 6)) {
            s->init = vg_init, s->submit = vg_submit, s->wait = vg_wait;
            s->big = 1; /* marks a dlmopen'd library */
            api_dl(&s->v, t + 6);
        } else if (!strncmp(t, "liburing", 8)) {
            s->init = lu_init, s->submit = lu_submit, s->wait = lu_wait;
            s->big = strstr(t, "bigsq") ? 1 : strstr(t, "bigcq") ? 2 : strstr(t, "big") ? 3 : 0;
            s->turn = strstr(t, "turn") != NULL;
        } else {
            fprintf(stderr, "unknown system %s\n", t);
            return 2;
        }
        s->init(s);
        s->cpu = calloc((size_t)windows, sizeof *s->cpu);
        window(s, ios); /* warm-up */
        s->user_ns = s->sys_ns = s->ios = 0;
    }
    double *ratio[MAX_SYS];
    for (int i = 0; i < ns; i++)
        ratio[i] = calloc((size_t)windows, sizeof(double));
    for (long w = 0; w < windows; w++) {
        for (int j = 0; j < ns; j++) {
            int i = (int)((w + j) % ns); /* the order rotates */
            sys[i].cpu[w] = window(&sys[i], ios);
        }
        for (int i = 0; i < ns; i++)
            ratio[i][w] = sys[i].cpu[w] / sys[0].cpu[w];
    }
    printf("file %s batch %d registered %d: %ld windows of %ld I/Os each, CPU ns per I/O (thread)\n", file, batch,
           registered, windows, ios);
    for (int i = 0; i < ns; i++) {
        double p10 = pct(sys[i].cpu, windows, 0.1), p50 = pct(sys[i].cpu, windows, 0.5),
               p90 = pct(sys[i].cpu, windows, 0.9);
        double r50 = pct(ratio[i], windows, 0.5), r25 = pct(ratio[i], windows, 0.25),
               r75 = pct(ratio[i], windows, 0.75);
        printf("  %-18s p50 %7.1f  (p10 %7.1f p90 %7.1f)   / %s: median %.3f (quartiles %.3f-%.3f)"
               "   rusage user %.1f sys %.1f\n",
               sys[i].name, p50, p10, p90, sys[0].name, r50, r25, r75, sys[i].user_ns / sys[i].ios,
               sys[i].sys_ns / sys[i].ios);
    }
    return 0;
}
