// Interposes glibc's allocator so the benchmark can report heap allocations per
// operation. An executable's own definitions win over libc's for every shared
// object in the process, including the Swift runtime.
#define _GNU_SOURCE
#include "AllocCounter.h"
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t counter;

uint64_t attune_alloc_count(void) { return __atomic_load_n(&counter, __ATOMIC_RELAXED); }

static inline void count(void) { __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED); }

void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    count();
    void *p = __libc_memalign(a, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}
