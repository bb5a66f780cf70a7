#ifndef MOCKAPNS_MEMORY_POOL_H
#define MOCKAPNS_MEMORY_POOL_H
// A recycling allocator for one nghttp2 session (see memory_pool.c). Its four functions have
// the shapes of nghttp2_mem's, so Swift can hand them to nghttp2_session_server_new3 with the
// pool as mem_user_data; the pool is single-threaded, like the session it serves.
#include <stddef.h>

typedef struct mockapns_memory_pool mockapns_memory_pool;

/// A new, empty pool; NULL when out of memory.
mockapns_memory_pool *mockapns_memory_pool_create(void);
/// Frees the pool and every block it keeps. Every block handed out must have been returned.
void mockapns_memory_pool_destroy(mockapns_memory_pool *pool);

void *mockapns_memory_pool_malloc(size_t size, void *pool);
void mockapns_memory_pool_free(void *pointer, void *pool);
void *mockapns_memory_pool_calloc(size_t count, size_t size, void *pool);
void *mockapns_memory_pool_realloc(void *pointer, size_t size, void *pool);

/// Blocks the pool has handed out and not had back (for tests).
size_t mockapns_memory_pool_outstanding(const mockapns_memory_pool *pool);
/// Blocks the pool has taken from the system allocator, over its life (for tests).
size_t mockapns_memory_pool_system_allocations(const mockapns_memory_pool *pool);
/// Bytes of free blocks the pool keeps for reuse now (for tests).
size_t mockapns_memory_pool_kept_bytes(const mockapns_memory_pool *pool);
/// The most bytes of free blocks a pool keeps (for tests).
size_t mockapns_memory_pool_keep_limit(void);

#endif
