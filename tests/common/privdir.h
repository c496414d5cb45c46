/* A private directory for one test's files (its queues: the mq and preload tests), on
 * tmpfs where there is one, exported in an environment variable (VIGIL_MQ_DIR) so that
 * the library and the test's children use it, and removed with its files when the
 * process that made it exits (not when a forked child does): parallel runs never
 * collide and nothing is left behind. */
#ifndef VIGIL_TEST_PRIVDIR_H
#define VIGIL_TEST_PRIVDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char privdir[128];
static pid_t privdir_owner;

static void privdir_remove(void)
{
    if (getpid() != privdir_owner || !privdir[0])
        return;
    DIR *d = opendir(privdir);
    if (d) {
        struct dirent *de;
        char p[512];
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            snprintf(p, sizeof p, "%s/%s", privdir, de->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(privdir);
}

/* Makes the directory NAME-XXXXXX under /dev/shm (or /tmp), sets ENV to it, returns it. */
static inline const char *privdir_make(const char *name, const char *env)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(privdir, sizeof privdir, "%s/%s-XXXXXX", base, name);
    CHECK(mkdtemp(privdir) != NULL);
    privdir_owner = getpid();
    CHECK(setenv(env, privdir, 1) == 0);
    atexit(privdir_remove);
    return privdir;
}

#endif
