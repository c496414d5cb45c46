/* The fuzz drivers' replay of kept inputs (driver.c, net_driver.c): a file, or every
 * file of a directory (not dot files, not README*), each read whole (up to 64 KiB) and
 * handed to run. A path that cannot be read ends the program, unless missing_ok and it
 * does not exist (a kept directory not made yet). Returns the number of inputs run. */
#ifndef VIGIL_FUZZ_REPLAY_H
#define VIGIL_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static long fuzz_replay(const char *path, void (*run)(uint8_t *in, size_t n), int missing_ok)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        if (missing_ok)
            return 0;
        perror(path);
        exit(1);
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            perror(path);
            exit(1);
        }
        long count = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || !strncmp(e->d_name, "README", 6))
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            count += fuzz_replay(p, run, missing_ok);
        }
        closedir(d);
        return count;
    }
    static uint8_t buf[1 << 16];
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    run(buf, n);
    return 1;
}

#endif
