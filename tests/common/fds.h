/* How many file descriptors this process has open (/proc/self/fd), or -1 if it cannot
 * be read: a test that closes what it opened ends with the count it began with. No vigil
 * header: the fuzz harnesses use it too (fuzz/conn_fuzz.c). */
#ifndef VIGIL_TEST_FDS_H
#define VIGIL_TEST_FDS_H

#include <dirent.h>

static inline int vt_count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* not the one opendir holds */
}

#endif
