/* libFuzzer harness for the shared-memory queue: the input scribbles on a valid queue
 * image (as a hostile process with write access could), then drives operations on it.
 * Whatever the bytes, the library must return errors (EBADMSG), never crash, never
 * read or write outside the image (ASan watches), never hang.
 *
 * Input: a list of 8-byte records.
 *   op < 128: scribble   [op, region, off16, value32]  region picks header, waiter
 *                        records, priority heads (biased to the used ones) or slots;
 *                        value32 is stored at the 4-aligned offset
 *   op >= 128: operation [op, a, b, c, ...]             send / receive / getattr /
 *                        check / notify, on the scribbled image
 * Built two ways: with clang's -fsanitize=fuzzer (target mq_fuzz, when the compiler
 * offers it) and with driver.c, a deterministic random driver that ctest runs under
 * ASan/UBSan.
 */
#include "mq/mq_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define F_MAXMSG 16
#define F_MSGSIZE 64

static unsigned char *pristine, *work;
static size_t image_bytes;

static void *map_image(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        abort();
    return p;
}

/* A queue with messages at several priorities, a free list and a fresh tail. */
static void build_pristine(void)
{
    image_bytes = vigil__mq_bytes(F_MAXMSG, F_MSGSIZE);
    pristine = map_image(image_bytes);
    work = map_image(image_bytes);
    if (vigil__mq_format(pristine, image_bytes, F_MAXMSG, F_MSGSIZE) < 0)
        abort();
    struct vigil__mq q;
    if (vigil__mq_attach(&q, pristine, image_bytes) < 0)
        abort();
    char m[F_MSGSIZE];
    for (int i = 0; i < 12; i++) {
        memset(m, 'a' + i, sizeof m);
        if (vigil__mq_send(&q, m, (size_t)(i * 5 % F_MSGSIZE), (unsigned)(i % 4) * 3, NULL, 1) < 0)
            abort();
    }
    for (int i = 0; i < 3; i++)
        if (vigil__mq_receive(&q, m, sizeof m, NULL, NULL, 1) < 0)
            abort();
}

static void scribble(const uint8_t *r)
{
    uint32_t off = (uint32_t)r[2] | (uint32_t)r[3] << 8, val;
    memcpy(&val, r + 4, 4);
    struct vigil__mq_hdr *h = (struct vigil__mq_hdr *)work;
    size_t base, span;
    switch (r[1] & 3) {
    case 0: /* header, mostly the mutable part after the lock */
        base = (r[1] & 4) ? offsetof(struct vigil__mq_hdr, curmsgs) : 0;
        span = sizeof *h - base;
        break;
    case 1:
        base = h->off_recs;
        span = VIGIL__MQ_NREC * sizeof(struct vigil__mq_rec);
        break;
    case 2: /* heads of the priorities in use (0..9) or anywhere */
        base = h->off_heads;
        span = (r[1] & 4) ? 16 * sizeof(struct vigil__mq_head) : VIGIL__MQ_NPRIO * sizeof(struct vigil__mq_head);
        break;
    default:
        base = h->off_slots;
        span = image_bytes - base;
        break;
    }
    /* The identity fields were read at build time from the same constants; a
     * scribble there is caught by attach. Small values hit the boundaries. */
    if (r[1] & 8)
        val &= 0x1f;
    size_t at = base + ((size_t)off * 4) % span;
    at &= ~(size_t)3;
    if (at + 4 <= image_bytes)
        memcpy(work + at, &val, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Outcomes, so the driver can show the harness reaches both the good and bad paths. */
unsigned long mq_fuzz_ok, mq_fuzz_badmsg, mq_fuzz_other, mq_fuzz_unattached;

static void tally(long r)
{
    if (r >= 0)
        mq_fuzz_ok++;
    else if (r == -EBADMSG)
        mq_fuzz_badmsg++;
    else
        mq_fuzz_other++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!pristine)
        build_pristine();
    memcpy(work, pristine, image_bytes);
    size_t n = size / 8;
    /* Scribbles first (all records with op < 128), then operations. */
    for (size_t i = 0; i < n; i++)
        if (data[i * 8] < 128)
            scribble(data + i * 8);
    struct vigil__mq q;
    if (vigil__mq_attach(&q, work, image_bytes) < 0) {
        mq_fuzz_unattached++;
        return 0;
    }
    q.trylock_only = 1; /* a scribbled "held" lock must not hang the harness */
    q.no_signal = 1;    /* a scribbled registration must not signal real processes */
    char buf[F_MSGSIZE];
    char why[128];
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = data + i * 8;
        if (r[0] < 128)
            continue;
        switch (r[0] % 5) {
        case 0:
            memset(buf, r[3], sizeof buf);
            tally(vigil__mq_send(&q, buf, (size_t)r[1] % (F_MSGSIZE + 2),
                                 (unsigned)r[2] | (unsigned)(r[4] & 0x7f) << 8, NULL, 1));
            break;
        case 1: {
            unsigned prio;
            ssize_t len = vigil__mq_receive(&q, buf, sizeof buf, &prio, NULL, 1);
            if (len > F_MSGSIZE)
                abort(); /* a length the caller's buffer cannot hold */
            tally(len);
            break;
        }
        case 2:
            tally(vigil__mq_curmsgs(&q));
            break;
        case 3:
            if (r[1] < 16) /* the full walk is slow: now and then */
                tally(vigil__mq_check(&q, why, sizeof why));
            break;
        default: {
            struct sigevent ev;
            memset(&ev, 0, sizeof ev);
            ev.sigev_notify = SIGEV_NONE;
            vigil__mq_notify_set(&q, (int32_t)(r[1] + 1), (r[2] & 1) ? &ev : NULL, r[3]);
            break;
        }
        }
    }
    return 0;
}
