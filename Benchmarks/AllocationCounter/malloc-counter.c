// Counts heap allocations in a whole process, for Benchmarks/allocations.sh.
//
// Loaded with LD_PRELOAD, it answers malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign and valloc by counting the call and handing it to glibc's own allocator
// (`__libc_*`, so no dlsym and no recursion). The count lives in a file the benchmark maps
// too (MALLOC_COUNTER_FILE, 16 bytes: allocations, then reallocations, little-endian), so it
// can be read at any moment without stopping or signalling the process: read it, send
// requests, wait until the server is idle, read it again.
//
// An allocation is every call that may return new memory: realloc of NULL counts as an
// allocation, realloc of a block as a reallocation (the second counter), free not at all.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

// Until the constructor has mapped the file (the loader allocates before it runs), counts go
// to these, and are not reported: the measurement is always a difference of two reads.
static uint64_t early[2];
static uint64_t *counters = early;

__attribute__((constructor)) static void map_counter_file(void) {
    const char *path = getenv("MALLOC_COUNTER_FILE");
    if (path == NULL) return;
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, 2 * sizeof(uint64_t)) == 0) {
        void *mapped = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapped != MAP_FAILED) counters = mapped;
    }
    close(fd);
}

static inline void count(int which) { __atomic_fetch_add(&counters[which], 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) { count(0); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(0); return __libc_calloc(n, size); }
void *realloc(void *pointer, size_t size) { count(pointer == NULL ? 0 : 1); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { count(0); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(0); return __libc_memalign(alignment, size); }
void *valloc(size_t size) { count(0); return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    // posix_memalign's own checks: a power of two, a multiple of sizeof(void *).
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return 22; // EINVAL
    count(0);
    void *memory = __libc_memalign(alignment, size);
    if (memory == NULL) return 12; // ENOMEM
    *result = memory;
    return 0;
}
