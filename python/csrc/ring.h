/* The one FIFO ring of the extension: the loop's ready queue, a transport's write queue
 * and its receive ring. Elements of any fixed size; the capacity is a power of two, so
 * an index wraps with a mask; it doubles when full and never shrinks.
 *
 * Memory comes from PyMem_Raw*, which needs no GIL: the receive ring grows inside a
 * vigil callback, which runs while the loop thread has released the GIL. A ring has one
 * user at a time (the loop thread), so it takes no lock. */
#ifndef VIGIL_PY_RING_H
#define VIGIL_PY_RING_H

#include <stddef.h>

struct vpy_ring {
    void *buf;
    size_t head, len, cap;
};

/* Doubles the capacity (first_cap the first time), keeping the order. -1 when out of
 * memory: the ring is unchanged and no exception is set (callers without the GIL). */
int vpy_ring_grow(struct vpy_ring *r, size_t esz, size_t first_cap);

/* Releases the memory; the elements must have been taken out (or need no release). */
void vpy_ring_free(struct vpy_ring *r);

/* The i-th element from the head, as a T lvalue. */
#define VPY_RING_AT(r, T, i) (((T *)(r)->buf)[((r)->head + (i)) & ((r)->cap - 1)])

/* A slot at the tail for one more element, or NULL (out of memory, nothing set). */
static inline void *vpy_ring_push(struct vpy_ring *r, size_t esz, size_t first_cap)
{
    if (r->len == r->cap && vpy_ring_grow(r, esz, first_cap) < 0)
        return NULL;
    void *slot = (char *)r->buf + ((r->head + r->len) & (r->cap - 1)) * esz;
    r->len++;
    return slot;
}

/* Drops the head element (the caller has read it with VPY_RING_AT(r, T, 0)). */
static inline void vpy_ring_drop(struct vpy_ring *r)
{
    r->head = (r->head + 1) & (r->cap - 1);
    r->len--;
}

/* Moves the first n elements behind the others, keeping each group's order: [a b | c d e]
 * becomes [c d e | a b]. In place (no memory is needed, so it cannot fail), min(n,
 * len - n) element copies: the cheaper end moves. */
void vpy_ring_rotate(struct vpy_ring *r, size_t esz, size_t n);

#endif
