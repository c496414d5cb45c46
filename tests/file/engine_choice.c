/* The engine is chosen at run time and reported: AUTO picks uring exactly when the loop
 * runs io_uring; the reason names why not; setting up twice is -EBUSY; forcing uring on
 * a loop without io_uring is -ENOSYS; the pool works before any engine is chosen. */
#include "vt.h"

int main(void)
{
    vigil_loop *loop = vt_loop();
    vigil_file_req *r = vigil_file_req_get(loop); /* no engine needed */
    CHECK(r != NULL);
    vigil_file_req_put(loop, r);
    const char *e = vigil_file_engine(loop);
    CHECK(e != NULL);
    printf("backend %s -> file engine %s (%s)\n", vigil_loop_backend(loop), e, vigil_file_engine_reason(loop));
    const char *forced = getenv("VIGIL_FILE_ENGINE");
    if (!forced || !*forced) {
        if (strcmp(vigil_loop_backend(loop), "uring") == 0)
            CHECK(strcmp(e, "uring") == 0);
        else
            CHECK(strcmp(e, "uring") != 0 && vigil_file_engine_reason(loop)[0] != 0);
    }
    struct vigil_file_options o;
    vigil_file_options_init(&o);
    CHECK_EQ(vigil_file_setup(loop, &o), -EBUSY);
    CHECK_EQ(vigil_loop_free(loop), 0);

    loop = vt_loop();
    o.engine = VIGIL_FILE_ENGINE_URING;
    int s = vigil_file_setup(loop, &o);
    if (strcmp(vigil_loop_backend(loop), "uring") == 0)
        CHECK_EQ(s, 0);
    else
        CHECK_EQ(s, -ENOSYS);
    CHECK_EQ(vigil_loop_free(loop), 0);

    loop = vt_loop();
    o.engine = VIGIL_FILE_ENGINE_THREADS;
    o.threads = -1;
    CHECK_EQ(vigil_file_setup(loop, &o), -EINVAL);
    o.threads = 2;
    CHECK_EQ(vigil_file_setup(loop, &o), 0);
    CHECK(strcmp(vigil_file_engine(loop), "threads") == 0);
    CHECK_EQ(vigil_loop_free(loop), 0);
    return 0;
}
