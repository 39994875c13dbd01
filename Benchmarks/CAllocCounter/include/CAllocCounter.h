// A process-wide allocation counter for otbench.
//
// counter.c defines malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
// memalign, valloc and pvalloc, so every allocation in the process (Swift runtime,
// libvpx, libopus, glibc itself) goes through it and is forwarded to glibc's own
// allocator (__libc_malloc and friends). glibc 2.36 has no malloc hooks, and
// replacing these symbols is the interposition glibc documents. Only the otbench
// executable links this target: a library must never do this.
#ifndef CALLOCCOUNTER_H
#define CALLOCCOUNTER_H

#include <stdint.h>

/// Allocation calls (malloc, calloc, realloc, the aligned variants) since the last reset.
uint64_t alloc_counter_count(void);

/// Allocation calls made by the calling thread since it started (never reset), so a
/// benchmark can tell one pipeline thread's allocations from the others'.
uint64_t alloc_counter_thread_count(void);

/// free() calls with a non-NULL pointer since the last reset.
uint64_t alloc_counter_frees(void);

/// Sets both counters to zero.
void alloc_counter_reset(void);

#endif
