/* The places where vigil once answered differently from the kernel's queues, each as a
 * fixed case run on both side by side (kernel_oracle.c draws them at random):
 *   - SIGEV_SIGNAL with signal 0 is accepted (the registration fires, sends nothing, and
 *     is removed); 65 is EINVAL;
 *   - a timed call's invalid timespec is EINVAL before anything else: before EBADF for a
 *     closed or wrong-mode descriptor, before EAGAIN, and also when the call would not
 *     block;
 *   - O_CREAT|O_EXCL on an existing name is EEXIST even with invalid attributes or
 *     O_RDWR|O_WRONLY;
 *   - O_RDWR|O_WRONLY: EINVAL on an existing queue, ENOENT on a missing one without
 *     O_CREAT, and with O_CREAT a new queue whose descriptor may neither send nor
 *     receive (EBADF).
 * Skips (77) when the kernel offers no POSIX queues. */
#include "mqt.h"

#include <mqueue.h>
#include <sched.h>
#include <signal.h>

static const char *kname = "/vigil-kcases", *vname = "/kc";

struct ans {
    long r;
    int err;
};

static struct ans ans_of(long r)
{
    return (struct ans){r, r < 0 ? errno : 0};
}

static void same(const char *what, struct ans k, struct ans v)
{
    printf("%-58s kernel %ld %-8s vigil %ld %s\n", what, k.r, k.err ? strerrorname_np(k.err) : "", v.r,
           v.err ? strerrorname_np(v.err) : "");
    if ((k.r < 0) != (v.r < 0) || k.err != v.err) {
        fprintf(stderr, "DIFFER: %s\n", what);
        exit(1);
    }
}

static struct ans open_k(int flags, struct mq_attr *a)
{
    errno = 0;
    mqd_t d = mq_open(kname, flags, 0600, a);
    return d == (mqd_t)-1 ? (struct ans){-1, errno} : (struct ans){(long)d, 0};
}

static struct ans open_v(int flags, struct mq_attr *a)
{
    errno = 0;
    mqd_t d = vigil_mq_open(vname, flags, 0600, a);
    return d == (mqd_t)-1 ? (struct ans){-1, errno} : (struct ans){(long)d, 0};
}

int main(void)
{
    mqt_setup();
    if (unshare(CLONE_NEWIPC) != 0) { /* else unique names in the machine's namespace */
    }
    mq_unlink(kname);
    struct mq_attr attr = {.mq_maxmsg = 2, .mq_msgsize = 16}, bad = {.mq_maxmsg = 0, .mq_msgsize = 16};
    struct ans k = open_k(O_RDWR | O_CREAT | O_EXCL, &attr), v = open_v(O_RDWR | O_CREAT | O_EXCL, &attr);
    if (k.r < 0) {
        char why[128];
        snprintf(why, sizeof why, "the kernel's POSIX queues are not available: %s", strerror(k.err));
        vt_skip(why);
    }
    same("create", k, v);
    mqd_t kq = (mqd_t)k.r, vq = (mqd_t)v.r;
    signal(SIGUSR1, SIG_IGN);

    struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = 0};
    same("notify SIGEV_SIGNAL signal 0", ans_of(mq_notify(kq, &ev)), ans_of(vigil_mq_notify(vq, &ev)));
    same("a send fires it (nothing sent), the registration goes", ans_of(mq_send(kq, "a", 1, 0)),
         ans_of(vigil_mq_send(vq, "a", 1, 0)));
    same("so a new registration is accepted", ans_of(mq_notify(kq, &ev)), ans_of(vigil_mq_notify(vq, &ev)));
    same("unregister", ans_of(mq_notify(kq, NULL)), ans_of(vigil_mq_notify(vq, NULL)));
    ev.sigev_signo = 65;
    same("notify SIGEV_SIGNAL signal 65", ans_of(mq_notify(kq, &ev)), ans_of(vigil_mq_notify(vq, &ev)));

    struct timespec badts = {.tv_sec = 0, .tv_nsec = 1000000000L};
    char buf[16];
    same("timedsend, room, bad timespec", ans_of(mq_timedsend(kq, "b", 1, 0, &badts)),
         ans_of(vigil_mq_timedsend(vq, "b", 1, 0, &badts)));
    same("timedreceive, a message, bad timespec", ans_of(mq_timedreceive(kq, buf, 16, NULL, &badts)),
         ans_of(vigil_mq_timedreceive(vq, buf, 16, NULL, &badts)));
    same("timedreceive, bad timespec, closed descriptor",
         ans_of(mq_timedreceive((mqd_t)999, buf, 16, NULL, &badts)),
         ans_of(vigil_mq_timedreceive((mqd_t)999, buf, 16, NULL, &badts)));
    struct mq_attr nb = {.mq_flags = O_NONBLOCK};
    mq_setattr(kq, &nb, NULL);
    vigil_mq_setattr(vq, &nb, NULL);
    same("receive drains the one message", ans_of(mq_receive(kq, buf, 16, NULL)), ans_of(vigil_mq_receive(vq, buf, 16, NULL)));
    same("timedreceive, empty O_NONBLOCK, bad timespec", ans_of(mq_timedreceive(kq, buf, 16, NULL, &badts)),
         ans_of(vigil_mq_timedreceive(vq, buf, 16, NULL, &badts)));

    same("O_CREAT|O_EXCL, existing, invalid attributes", open_k(O_RDWR | O_CREAT | O_EXCL, &bad),
         open_v(O_RDWR | O_CREAT | O_EXCL, &bad));
    same("O_CREAT|O_EXCL, existing, O_RDWR|O_WRONLY", open_k(O_ACCMODE | O_CREAT | O_EXCL, &attr),
         open_v(O_ACCMODE | O_CREAT | O_EXCL, &attr));
    same("O_RDWR|O_WRONLY, existing", open_k(O_ACCMODE, NULL), open_v(O_ACCMODE, NULL));
    same("close", ans_of(mq_close(kq)), ans_of(vigil_mq_close(vq)));
    same("unlink", ans_of(mq_unlink(kname)), ans_of(vigil_mq_unlink(vname)));
    same("O_RDWR|O_WRONLY, missing, no O_CREAT", open_k(O_ACCMODE, NULL), open_v(O_ACCMODE, NULL));
    k = open_k(O_ACCMODE | O_CREAT, &attr);
    v = open_v(O_ACCMODE | O_CREAT, &attr);
    same("O_RDWR|O_WRONLY|O_CREAT, missing: created", k, v);
    same("  ... its descriptor cannot send", ans_of(mq_send((mqd_t)k.r, "c", 1, 0)),
         ans_of(vigil_mq_send((mqd_t)v.r, "c", 1, 0)));
    same("  ... nor receive", ans_of(mq_receive((mqd_t)k.r, buf, 16, NULL)),
         ans_of(vigil_mq_receive((mqd_t)v.r, buf, 16, NULL)));
    struct mq_attr ka, va;
    same("  ... but getattr works", ans_of(mq_getattr((mqd_t)k.r, &ka)), ans_of(vigil_mq_getattr((mqd_t)v.r, &va)));
    mq_close((mqd_t)k.r);
    vigil_mq_close((mqd_t)v.r);
    mq_unlink(kname);
    vigil_mq_unlink(vname);
    printf("kernel_cases: every case answered as the kernel does\n");
    return 0;
}
