// Counts heap allocations in a whole process, for Benchmarks/allocations.sh.
//
// Loaded with LD_PRELOAD, it answers malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign and valloc by counting the call and handing it to glibc's own allocator
// (`__libc_*`, so no dlsym and no recursion). A release server links jemalloc (Package.swift),
// whose entry points would otherwise come next: so this library also answers every way back
// into an allocator that a program can take (free, malloc_usable_size, C++'s operators new and
// delete), and the whole process allocates from glibc while it is measured. Which allocator
// serves a call does not change how many calls there are. The count lives in a file the benchmark maps
// too (MALLOC_COUNTER_FILE, 16 bytes: allocations, then reallocations, little-endian), so it
// can be read at any moment without stopping or signalling the process: read it, send
// requests, wait until the server is idle, read it again.
//
// An allocation is every call that may return new memory: realloc of NULL counts as an
// allocation, realloc of a block as a reallocation (the second counter), free not at all.
#define _GNU_SOURCE
#include <dlfcn.h>
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
extern void __libc_free(void *pointer);

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

void free(void *pointer) { __libc_free(pointer); }
void cfree(void *pointer) { __libc_free(pointer); }
void *pvalloc(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    count(0);
    return __libc_memalign(page, size == 0 ? page : (size + page - 1) / page * page);
}

// glibc's own, by its symbol version: jemalloc's unversioned one is next in line otherwise.
size_t malloc_usable_size(void *pointer) {
    static size_t (*glibc_usable_size)(void *);
    if (glibc_usable_size == NULL) {
        glibc_usable_size = (size_t (*)(void *))dlvsym(RTLD_NEXT, "malloc_usable_size", "GLIBC_2.2.5");
        if (glibc_usable_size == NULL) abort();
    }
    return pointer == NULL ? 0 : glibc_usable_size(pointer);
}

// C++'s operators new and delete (the Swift runtime's C++ uses them), by their mangled names.
static void *counted_new(size_t size) {
    count(0);
    void *memory = __libc_malloc(size == 0 ? 1 : size);
    if (memory == NULL) abort();
    return memory;
}
static void *counted_aligned_new(size_t size, size_t alignment) {
    count(0);
    void *memory = __libc_memalign(alignment, size == 0 ? 1 : size);
    if (memory == NULL) abort();
    return memory;
}
void *_Znwm(size_t size) { return counted_new(size); }
void *_Znam(size_t size) { return counted_new(size); }
void *_ZnwmRKSt9nothrow_t(size_t size, const void *tag) { (void)tag; count(0); return __libc_malloc(size == 0 ? 1 : size); }
void *_ZnamRKSt9nothrow_t(size_t size, const void *tag) { (void)tag; count(0); return __libc_malloc(size == 0 ? 1 : size); }
void *_ZnwmSt11align_val_t(size_t size, size_t alignment) { return counted_aligned_new(size, alignment); }
void *_ZnamSt11align_val_t(size_t size, size_t alignment) { return counted_aligned_new(size, alignment); }
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t alignment, const void *tag) {
    (void)tag; count(0); return __libc_memalign(alignment, size == 0 ? 1 : size);
}
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t size, size_t alignment, const void *tag) {
    (void)tag; count(0); return __libc_memalign(alignment, size == 0 ? 1 : size);
}
void _ZdlPv(void *pointer) { __libc_free(pointer); }
void _ZdaPv(void *pointer) { __libc_free(pointer); }
void _ZdlPvm(void *pointer, size_t size) { (void)size; __libc_free(pointer); }
void _ZdaPvm(void *pointer, size_t size) { (void)size; __libc_free(pointer); }
void _ZdlPvRKSt9nothrow_t(void *pointer, const void *tag) { (void)tag; __libc_free(pointer); }
void _ZdaPvRKSt9nothrow_t(void *pointer, const void *tag) { (void)tag; __libc_free(pointer); }
void _ZdlPvSt11align_val_t(void *pointer, size_t alignment) { (void)alignment; __libc_free(pointer); }
void _ZdaPvSt11align_val_t(void *pointer, size_t alignment) { (void)alignment; __libc_free(pointer); }
void _ZdlPvmSt11align_val_t(void *pointer, size_t size, size_t alignment) { (void)size; (void)alignment; __libc_free(pointer); }
void _ZdaPvmSt11align_val_t(void *pointer, size_t size, size_t alignment) { (void)size; (void)alignment; __libc_free(pointer); }
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *pointer, size_t alignment, const void *tag) {
    (void)alignment; (void)tag; __libc_free(pointer);
}
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *pointer, size_t alignment, const void *tag) {
    (void)alignment; (void)tag; __libc_free(pointer);
}
