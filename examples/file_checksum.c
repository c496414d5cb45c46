/* Reads a file with 8 reads in flight, in the loop, and prints an FNV-1a checksum of
 * its bytes and the file engine vigil chose.
 *
 *   ./file_checksum FILE            (VIGIL_FILE_ENGINE=uring|aio|threads to force one)
 *
 * Each read comes from the loop's request pool and is returned in its callback; a
 * finished read starts the next one, until the end of the file. Blocks can finish out
 * of order, so each block's checksum is kept and the blocks are folded in order at the
 * end. */
#include <vigil.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 65536
#define INFLIGHT 8

struct job {
    int fd;
    int64_t size, next;      /* file size, next offset to read */
    uint64_t *sums;          /* one checksum per block */
    char bufs[INFLIGHT][BLOCK];
    int error;
};

static uint64_t fnv1a(const unsigned char *p, size_t n, uint64_t h)
{
    while (n--)
        h = (h ^ *p++) * 0x100000001b3ull;
    return h;
}

static void start_next(vigil_loop *loop, struct job *j, vigil_file_req *req, int slot);

static void on_read(vigil_loop *loop, vigil_file_req *req, int64_t res)
{
    struct job *j = vigil_loop_data(loop);
    int slot = (int)(intptr_t)req->data;
    if (res < 0) {
        fprintf(stderr, "read: %s\n", strerror((int)-res));
        j->error = 1;
    } else {
        /* a short read at the end of the file is simply the last block */
        j->sums[req->offset / BLOCK] = fnv1a((const unsigned char *)req->buf, (size_t)res, 0xcbf29ce484222325ull);
    }
    start_next(loop, j, req, slot);
}

static void start_next(vigil_loop *loop, struct job *j, vigil_file_req *req, int slot)
{
    if (j->error || j->next >= j->size) {
        vigil_file_req_put(loop, req);
        return;
    }
    req->data = (void *)(intptr_t)slot;
    vigil_file_prep_read(req, j->fd, j->bufs[slot], BLOCK, j->next, on_read);
    j->next += BLOCK;
    int r = vigil_file_start(loop, req);
    if (r < 0) {
        fprintf(stderr, "vigil_file_start: %s\n", strerror(-r));
        j->error = 1;
        vigil_file_req_put(loop, req);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    static struct job j;
    j.fd = open(argv[1], O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (j.fd < 0 || fstat(j.fd, &st) < 0) {
        perror(argv[1]);
        return 1;
    }
    j.size = st.st_size;
    j.sums = calloc((size_t)(j.size / BLOCK + 1), sizeof *j.sums);
    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.data = &j;
    vigil_loop *loop;
    int r = vigil_loop_new(&loop, &o);
    if (r < 0 || !j.sums) {
        fprintf(stderr, "vigil_loop_new: %s\n", strerror(r < 0 ? -r : ENOMEM));
        return 1;
    }
    for (int i = 0; i < INFLIGHT; i++) {
        vigil_file_req *req = vigil_file_req_get(loop);
        if (req)
            start_next(loop, &j, req, i);
    }
    r = vigil_loop_run(loop, VIGIL_RUN_DEFAULT); /* returns when the last read is done */
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t b = 0; b * BLOCK < j.size; b++)
        h = fnv1a((const unsigned char *)&j.sums[b], sizeof j.sums[b], h);
    const char *engine = vigil_file_engine(loop); /* NULL: none could run (see its reason) */
    printf("%016llx  %s  (%lld bytes, file engine %s on the %s backend)\n", (unsigned long long)h, argv[1],
           (long long)j.size, engine ? engine : vigil_file_engine_reason(loop), vigil_loop_backend(loop));
    vigil_loop_free(loop);
    free(j.sums);
    close(j.fd);
    return r < 0 || j.error ? 1 : 0;
}
