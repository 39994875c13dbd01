/* Counts malloc/realloc/posix_memalign/aligned_alloc calls per thread and exports
 * otk_thread_allocations() for tests that assert a hot path allocates nothing
 * (AdaptiveEncoderAllocationTests). Build and use:
 *   gcc -shared -fPIC -O2 -o /tmp/libotkcount.so scripts/thread-alloc-counter.c -ldl
 *   LD_PRELOAD=/tmp/libotkcount.so swift test --skip-build --filter AdaptiveEncoderAllocationTests
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
static __thread unsigned long long counter;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_memalign)(void **, size_t, size_t);
unsigned long long otk_thread_allocations(void) { return counter; }
void *malloc(size_t n) { if (!real_malloc) real_malloc = dlsym(RTLD_NEXT, "malloc"); counter++; return real_malloc(n); }
void *realloc(void *p, size_t n) { if (!real_realloc) real_realloc = dlsym(RTLD_NEXT, "realloc"); counter++; return real_realloc(p, n); }
int posix_memalign(void **p, size_t a, size_t n) { if (!real_memalign) real_memalign = dlsym(RTLD_NEXT, "posix_memalign"); counter++; return real_memalign(p, a, n); }
void *aligned_alloc(size_t a, size_t n) { static void *(*real)(size_t, size_t); if (!real) real = dlsym(RTLD_NEXT, "aligned_alloc"); counter++; return real(a, n); }
