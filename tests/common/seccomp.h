/* Refusing one system call in this process only (a seccomp filter: nothing machine-wide
 * changes), as a kernel too old for it or a container's policy would: the call fails
 * with the errno given, every other call is allowed. Skips (77) where seccomp filters
 * are refused. */
#ifndef VIGIL_TEST_SECCOMP_H
#define VIGIL_TEST_SECCOMP_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vt.h"

static inline void vt_refuse_syscall(unsigned nr, int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        vt_skip("PR_SET_NO_NEW_PRIVS refused");
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
        vt_skip("seccomp filters refused here");
}

#endif
