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
