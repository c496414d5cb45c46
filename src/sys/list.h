/* Intrusive doubly linked lists, written once: nodes with members next and prev (plain
 * pointers, so a node can mirror a public struct), taken out in O(1). The functions are
 * static inline and typed, defined per node type by a macro (the shape of <sys/queue.h>'s
 * LIST and TAILQ). No locking: the caller's.
 *
 * VIGIL__DLIST_DEFINE(pfx, list_type, node_type): a FIFO, the list type with members
 * head, tail and n (a count):
 *   pfx_push(l, w)    appends w at the tail;
 *   pfx_pop(l)        takes the head off (NULL when empty);
 *   pfx_remove(l, w)  takes w out from wherever it is.
 *
 * VIGIL__HLIST_DEFINE(pfx, node_type, next, prev): a list known by its head pointer alone
 * (order of no matter), linked through the node's members named next and prev:
 *   pfx_add(&head, w)  puts w first;
 *   pfx_del(&head, w)  takes w out from wherever it is.
 *
 * A node taken off has next and prev NULL. The functions are marked unused: a .c file
 * that defines a list for itself uses what it needs (clang warns of the rest).
 */
#ifndef VIGIL_SYS_LIST_H
#define VIGIL_SYS_LIST_H

#include <stddef.h>

#define VIGIL__DLIST_DEFINE(pfx, ltype, ntype) \
    static inline __attribute__((unused)) void pfx##_push(ltype *l, ntype *w) \
    { \
        w->next = NULL; \
        w->prev = l->tail; \
        if (l->tail) \
            l->tail->next = w; \
        else \
            l->head = w; \
        l->tail = w; \
        l->n++; \
    } \
\
    static inline __attribute__((unused)) void pfx##_remove(ltype *l, ntype *w) \
    { \
        if (w->prev) \
            w->prev->next = w->next; \
        else \
            l->head = w->next; \
        if (w->next) \
            w->next->prev = w->prev; \
        else \
            l->tail = w->prev; \
        l->n--; \
        w->next = w->prev = NULL; \
    } \
\
    static inline __attribute__((unused)) ntype *pfx##_pop(ltype *l) \
    { \
        ntype *w = l->head; \
        if (w) \
            pfx##_remove(l, w); \
        return w; \
    }

#define VIGIL__HLIST_DEFINE(pfx, ntype, next, prev) \
    static inline __attribute__((unused)) void pfx##_add(ntype **head, ntype *w) \
    { \
        w->prev = NULL; \
        w->next = *head; \
        if (*head) \
            (*head)->prev = w; \
        *head = w; \
    } \
\
    static inline __attribute__((unused)) void pfx##_del(ntype **head, ntype *w) \
    { \
        if (w->prev) \
            w->prev->next = w->next; \
        else \
            *head = w->next; \
        if (w->next) \
            w->next->prev = w->prev; \
        w->next = w->prev = NULL; \
    }

#endif
