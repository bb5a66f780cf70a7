// A recycling allocator for one nghttp2 session.
//
// nghttp2 allocates and frees the same few small objects for every request (the stream, its
// outbound items, header buffers): about ten system allocations per request. The session
// lives on one event loop, so its blocks can be kept on per-size free lists without a lock
// and handed out again: after the first requests a connection allocates nothing more.
//
// Each block carries a 16-byte header naming its size class (keeping the payload 16-byte
// aligned), because nghttp2's free callback is not told the size. Sizes above the largest
// class go to the system allocator as they come. What the pool keeps is bounded in bytes
// across all classes (POOL_KEEP_BYTES), so an idle connection holds at most that much. The
// budget is shared rather than split per class because a request's blocks are of uneven
// sizes: with 100 streams in flight, four of each request's ten blocks are 256-byte blocks
// (100 KiB), while most other classes keep nothing. 256 KiB covers about 120 streams in flight.
#include "memory_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    HEADER_SIZE = 16,
    SMALLEST_SHIFT = 5,                 // 32 bytes
    CLASSES = 10,                       // 32 B ... 16 KiB
    POOL_KEEP_BYTES = 256 * 1024,
    LARGE = 0xFF,
};

typedef struct block_header {
    uint32_t size_class;                // 0 ..< CLASSES, or LARGE
    uint32_t unused[3];
} block_header;

typedef struct free_block {
    struct free_block *next;
} free_block;

struct mockapns_memory_pool {
    free_block *free_lists[CLASSES];
    size_t kept_bytes;
    size_t outstanding;
    size_t system_allocations;
};

static size_t class_size(uint32_t size_class) { return (size_t)1 << (size_class + SMALLEST_SHIFT); }

// The smallest class holding `size` bytes, or LARGE.
static uint32_t class_for(size_t size) {
    for (uint32_t size_class = 0; size_class < CLASSES; size_class++) {
        if (size <= class_size(size_class)) return size_class;
    }
    return LARGE;
}

static block_header *header_of(void *pointer) { return (block_header *)((char *)pointer - HEADER_SIZE); }

mockapns_memory_pool *mockapns_memory_pool_create(void) {
    return calloc(1, sizeof(mockapns_memory_pool));
}

void mockapns_memory_pool_destroy(mockapns_memory_pool *pool) {
    if (pool == NULL) return;
    for (int size_class = 0; size_class < CLASSES; size_class++) {
        free_block *block = pool->free_lists[size_class];
        while (block != NULL) {
            free_block *next = block->next;
            free(header_of(block));
            block = next;
        }
    }
    free(pool);
}

void *mockapns_memory_pool_malloc(size_t size, void *user) {
    mockapns_memory_pool *pool = user;
    uint32_t size_class = class_for(size);
    if (size_class != LARGE && pool->free_lists[size_class] != NULL) {
        free_block *block = pool->free_lists[size_class];
        pool->free_lists[size_class] = block->next;
        pool->kept_bytes -= class_size(size_class);
        pool->outstanding++;
        return block;
    }
    if (size > SIZE_MAX - HEADER_SIZE) return NULL;
    size_t payload = size_class == LARGE ? size : class_size(size_class);
    block_header *header = malloc(HEADER_SIZE + payload);
    if (header == NULL) return NULL;
    header->size_class = size_class;
    pool->outstanding++;
    pool->system_allocations++;
    return (char *)header + HEADER_SIZE;
}

void mockapns_memory_pool_free(void *pointer, void *user) {
    if (pointer == NULL) return;
    mockapns_memory_pool *pool = user;
    block_header *header = header_of(pointer);
    uint32_t size_class = header->size_class;
    pool->outstanding--;
    if (size_class == LARGE || pool->kept_bytes + class_size(size_class) > POOL_KEEP_BYTES) {
        free(header);
        return;
    }
    free_block *block = pointer;
    block->next = pool->free_lists[size_class];
    pool->free_lists[size_class] = block;
    pool->kept_bytes += class_size(size_class);
}

void *mockapns_memory_pool_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *pointer = mockapns_memory_pool_malloc(count * size, user);
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

void *mockapns_memory_pool_realloc(void *pointer, size_t size, void *user) {
    if (pointer == NULL) return mockapns_memory_pool_malloc(size, user);
    if (size == 0) {
        mockapns_memory_pool_free(pointer, user);
        return NULL;
    }
    uint32_t size_class = header_of(pointer)->size_class;
    if (size_class != LARGE && size <= class_size(size_class)) return pointer;
    if (size_class == LARGE) {
        // The system allocator may grow it in place; the class stays LARGE.
        if (size > SIZE_MAX - HEADER_SIZE) return NULL;
        block_header *grown = realloc(header_of(pointer), HEADER_SIZE + size);
        return grown == NULL ? NULL : (char *)grown + HEADER_SIZE;
    }
    void *moved = mockapns_memory_pool_malloc(size, user);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, class_size(size_class));
    mockapns_memory_pool_free(pointer, user);
    return moved;
}

size_t mockapns_memory_pool_outstanding(const mockapns_memory_pool *pool) { return pool->outstanding; }

size_t mockapns_memory_pool_system_allocations(const mockapns_memory_pool *pool) { return pool->system_allocations; }

size_t mockapns_memory_pool_kept_bytes(const mockapns_memory_pool *pool) { return pool->kept_bytes; }

size_t mockapns_memory_pool_keep_limit(void) { return POOL_KEEP_BYTES; }
