#ifndef ATTUNE_ALLOC_COUNTER_H
#define ATTUNE_ALLOC_COUNTER_H
#include <stdint.h>

/// Number of heap allocations (malloc, calloc, realloc, memalign family) made by the
/// whole process so far. Only meaningful in an executable that links this target,
/// because the counting works by interposing the allocator symbols.
uint64_t attune_alloc_count(void);

#endif
