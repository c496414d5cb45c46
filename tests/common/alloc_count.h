/* Counts heap allocations made by this process, for the "steady state allocates
 * nothing" tests. Under AddressSanitizer or ThreadSanitizer the sanitizer owns malloc,
 * so we count through its allocator hooks (both runtimes call them); otherwise we
 * interpose malloc/calloc/realloc/free over glibc's. Interposing under a sanitizer
 * mixes two heaps: aligned_alloc (not interposed) comes from the sanitizer's, our free
 * hands it to glibc's, which aborts ("free(): invalid pointer").
 * Include in exactly one translation unit (the test's main file). */
#ifndef VIGIL_ALLOC_COUNT_H
#define VIGIL_ALLOC_COUNT_H

#include <stdatomic.h>
#include <stddef.h>

static atomic_long vt_allocs, vt_frees;

/* gcc says __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers __has_feature. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VT_SANITIZED 1
#endif
#endif

#ifdef VT_SANITIZED
/* From the sanitizer runtime (GCC ships no header for it). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void vt_malloc_hook(const volatile void *p, size_t n) { (void)p; (void)n; atomic_fetch_add(&vt_allocs, 1); }
static void vt_free_hook(const volatile void *p) { if (p) atomic_fetch_add(&vt_frees, 1); }
static inline void vt_alloc_count_start(void)
{
    static int installed;
    if (!installed)
        __sanitizer_install_malloc_and_free_hooks(vt_malloc_hook, vt_free_hook);
    installed = 1;
}
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) { atomic_fetch_add(&vt_allocs, 1); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { atomic_fetch_add(&vt_allocs, 1); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { atomic_fetch_add(&vt_allocs, 1); return __libc_realloc(p, n); }
void free(void *p) { if (p) atomic_fetch_add(&vt_frees, 1); __libc_free(p); }
static inline void vt_alloc_count_start(void) {}
#endif

static inline long vt_alloc_count(void) { return atomic_load(&vt_allocs) + atomic_load(&vt_frees); }

#endif
