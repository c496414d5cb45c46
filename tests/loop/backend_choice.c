/* Backend choice: VIGIL_BACKEND and options.backend force one and the loop names it;
 * an unknown name or kind is -EINVAL; bad options are refused. */
#include "vt.h"

#include <stdlib.h>

int main(void)
{
    static const char *names[] = {"uring", "epoll", "poll"};
    static const int kinds[] = {VIGIL_BACKEND_URING, VIGIL_BACKEND_EPOLL, VIGIL_BACKEND_POLL};
    vigil_loop *loop;
    unsetenv("VIGIL_BACKEND");
    for (int i = 0; i < 3; i++) {
        struct vigil_loop_options o;
        vigil_loop_options_init(&o);
        o.backend = kinds[i];
        int r = vigil_loop_new(&loop, &o);
        if (r == -ENOSYS) { /* the kernel refuses it (io_uring under seccomp, say) */
            CHECK(i == 0);
            continue;
        }
        CHECK_EQ(r, 0);
        CHECK(strcmp(vigil_loop_backend(loop), names[i]) == 0);
        CHECK_EQ(vigil_loop_free(loop), 0);

        setenv("VIGIL_BACKEND", names[i], 1);
        CHECK_EQ(vigil_loop_new(&loop, NULL), 0);
        CHECK(strcmp(vigil_loop_backend(loop), names[i]) == 0);
        CHECK_EQ(vigil_loop_free(loop), 0);
        unsetenv("VIGIL_BACKEND");
    }
    /* AUTO always gets some backend, with a reason. */
    CHECK_EQ(vigil_loop_new(&loop, NULL), 0);
    CHECK(vigil_loop_backend_reason(loop)[0]);
    printf("auto: %s (%s)\n", vigil_loop_backend(loop), vigil_loop_backend_reason(loop));
    CHECK_EQ(vigil_loop_free(loop), 0);

    setenv("VIGIL_BACKEND", "kqueue", 1);
    CHECK_EQ(vigil_loop_new(&loop, NULL), -EINVAL);
    unsetenv("VIGIL_BACKEND");

    struct vigil_loop_options o;
    vigil_loop_options_init(&o);
    o.backend = 9;
    CHECK_EQ(vigil_loop_new(&loop, &o), -EINVAL);
    vigil_loop_options_init(&o);
    o.reserved[3] = 1;
    CHECK_EQ(vigil_loop_new(&loop, &o), -EINVAL);
    vigil_loop_options_init(&o);
    o.size = 4;
    CHECK_EQ(vigil_loop_new(&loop, &o), -EINVAL);
    vigil_loop_options_init(&o);
    o.flags = 0x80;
    CHECK_EQ(vigil_loop_new(&loop, &o), -EINVAL);
    CHECK_EQ(vigil_loop_new(NULL, NULL), -EINVAL);
    CHECK_EQ(vigil_loop_free(NULL), -EINVAL);
    CHECK(vigil_version() == VIGIL_VERSION_HEX);
    CHECK(strcmp(vigil_version_string(), "0.3.0") == 0);
    return 0;
}
