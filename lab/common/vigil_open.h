/* Opens a vigil loop on the backend a lab program was asked for (--backend), or exits 77
 * with the reason when this kernel (or its policy) does not offer it. */
#ifndef VIGIL_LAB_VIGIL_OPEN_H
#define VIGIL_LAB_VIGIL_OPEN_H

#include <vigil.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vigil_loop *lab_vigil_open(const char *backend)
{
    struct vigil_loop_options opt;
    vigil_loop_options_init(&opt);
    if (!backend || !strcmp(backend, "auto"))
        opt.backend = VIGIL_BACKEND_AUTO;
    else if (!strcmp(backend, "uring"))
        opt.backend = VIGIL_BACKEND_URING;
    else if (!strcmp(backend, "epoll"))
        opt.backend = VIGIL_BACKEND_EPOLL;
    else if (!strcmp(backend, "poll"))
        opt.backend = VIGIL_BACKEND_POLL;
    else {
        fprintf(stderr, "unknown backend %s\n", backend);
        exit(2);
    }
    vigil_loop *loop;
    int rc = vigil_loop_new(&loop, &opt);
    if (rc == -ENOSYS || rc == -EPERM) {
        fprintf(stderr, "skip: vigil's %s backend is not offered here: %s\n", backend, strerror(-rc));
        exit(77);
    }
    if (rc < 0) {
        fprintf(stderr, "vigil_loop_new(%s): %s\n", backend, strerror(-rc));
        exit(1);
    }
    if (opt.backend != VIGIL_BACKEND_AUTO && strcmp(vigil_loop_backend(loop), backend) != 0) {
        fprintf(stderr, "skip: asked for %s, vigil runs %s (%s)\n", backend, vigil_loop_backend(loop),
                vigil_loop_backend_reason(loop));
        exit(77);
    }
    return loop;
}

#endif
