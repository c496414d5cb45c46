/* The ring's slow path (ring.h). */
#include "ring.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

int vpy_ring_grow(struct vpy_ring *r, size_t esz, size_t first_cap)
{
    size_t ncap = r->cap ? r->cap * 2 : first_cap;
    char *n = PyMem_RawMalloc(ncap * esz);
    if (!n)
        return -1;
    /* Unwrap: the part from head to the end of the old buffer, then the part that
     * wrapped to its start. */
    size_t first = r->len < r->cap - r->head ? r->len : r->cap - r->head;
    if (r->len) {
        memcpy(n, (char *)r->buf + r->head * esz, first * esz);
        memcpy(n + first * esz, r->buf, (r->len - first) * esz);
    }
    PyMem_RawFree(r->buf);
    r->buf = n;
    r->head = 0;
    r->cap = ncap;
    return 0;
}

void vpy_ring_free(struct vpy_ring *r)
{
    PyMem_RawFree(r->buf);
    r->buf = NULL;
    r->head = r->len = r->cap = 0;
}

void vpy_ring_rotate(struct vpy_ring *r, size_t esz, size_t n)
{
    if (n == 0 || n >= r->len)
        return;
    char *b = r->buf;
    size_t mask = r->cap - 1;
    if (n <= r->len - n) {
        /* Head to tail, n times: the slot behind the tail is free, or, when the ring is
         * full, it is the head's own slot, and moving the head makes it the last. */
        for (size_t i = 0; i < n; i++) {
            memmove(b + ((r->head + r->len) & mask) * esz, b + r->head * esz, esz);
            r->head = (r->head + 1) & mask;
        }
    } else {
        /* Tail to head, len - n times (the mirror image). */
        for (size_t i = n; i < r->len; i++) {
            r->head = (r->head + mask) & mask;
            memmove(b + r->head * esz, b + ((r->head + r->len) & mask) * esz, esz);
        }
    }
}
