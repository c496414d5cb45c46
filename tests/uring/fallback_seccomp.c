/* When io_uring_setup is refused (as Docker's default seccomp profile does, with
 * EPERM), AUTO falls back to epoll and says why, a forced io_uring loop fails with
 * -ENOSYS (or -EPERM), and epoll_ctl_batch still works (on its epoll path). The refusal
 * is a seccomp filter installed in this process only: nothing machine-wide changes. */
#include "seccomp.h"
#include "vt.h"
#include "vigil/epoll1.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

int vigil__epoll1_path(void);

int main(void)
{
    /* The test chooses backends itself. */
    unsetenv("VIGIL_BACKEND");
    unsetenv("VIGIL_EPOLL1_PATH");
    vt_refuse_syscall(__NR_io_uring_setup, EPERM);
    CHECK_EQ(syscall(__NR_io_uring_setup, 8, NULL), -1);
    CHECK_EQ(errno, EPERM);

    vigil_loop *loop = NULL;
    CHECK_EQ(vigil_loop_new(&loop, NULL), 0);
    printf("AUTO: %s (%s)\n", vigil_loop_backend(loop), vigil_loop_backend_reason(loop));
    CHECK(strcmp(vigil_loop_backend(loop), "epoll") == 0);
    CHECK(strstr(vigil_loop_backend_reason(loop), "io_uring_setup") != NULL);
    CHECK(strstr(vigil_loop_backend_reason(loop), strerror(EPERM)) != NULL);
    /* ... and it works: an eventfd becomes ready. */
    int efd = eventfd(1, EFD_CLOEXEC);
    CHECK_SYS(efd);
    CHECK_EQ(vigil_loop_free(loop), 0);

    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.backend = VIGIL_BACKEND_URING;
    loop = NULL;
    int r = vigil_loop_new(&loop, &o);
    printf("forced uring: %s\n", strerror(-r));
    CHECK(r == -ENOSYS || r == -EPERM);
    CHECK(loop == NULL);

    /* epoll_ctl_batch falls back to one epoll_ctl per command. */
    CHECK_EQ(vigil__epoll1_path(), 2);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    struct vigil_epoll_ctl_cmd c[2] = {{.op = EPOLL_CTL_ADD, .fd = efd, .events = EPOLLIN, .data = 5, .result = 9},
                                 {.op = EPOLL_CTL_MOD, .fd = efd, .events = EPOLLIN, .data = 6, .result = 9}};
    CHECK_EQ(vigil_epoll_ctl_batch(epfd, 0, 2, c), 2);
    CHECK_EQ(c[0].result, 0);
    CHECK_EQ(c[1].result, 0);
    struct epoll_event ev;
    CHECK_EQ(epoll_wait(epfd, &ev, 1, 0), 1);
    CHECK_EQ(ev.data.u64, 6);
    return 0;
}
