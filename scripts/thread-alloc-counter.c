/* Counts malloc/calloc/realloc/posix_memalign/aligned_alloc/memalign calls per thread and
 * exports otk_thread_allocations() for tests that assert a hot path allocates nothing
 * (the AllocationTests suites in Tests/OTMediaTests). scripts/test builds it and runs the
 * swift tests with it preloaded:
 *   cc -shared -fPIC -O2 -o .build/libotkcount.so scripts/thread-alloc-counter.c
 *   LD_PRELOAD=$PWD/.build/libotkcount.so swift test --skip-build --filter AllocationTests
 * It forwards to glibc's own __libc_* entry points (no dlsym, which itself allocates).
 * Cost: one thread-local increment per allocation.
 */
#include <stddef.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static __thread unsigned long long counter;
unsigned long long otk_thread_allocations(void) { return counter; }
void *malloc(size_t n) { counter++; return __libc_malloc(n); }
void *calloc(size_t c, size_t n) { counter++; return __libc_calloc(c, n); }
void *realloc(void *p, size_t n) { counter++; return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { counter++; return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { counter++; return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) {
  if (a < sizeof(void *) || (a & (a - 1)) != 0) return 22; /* EINVAL */
  counter++;
  void *q = __libc_memalign(a, n);
  if (!q) return 12; /* ENOMEM */
  *p = q;
  return 0;
}
