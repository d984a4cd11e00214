#ifndef SENSEI_MEMORY_H
#define SENSEI_MEMORY_H

// glibc's mallopt(M_ARENA_MAX, n): <malloc.h> does not import into Swift.
// Returns mallopt's result (1 on success).
int sensei_limit_malloc_arenas(int arenas);

// glibc's mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes`
// are mapped on their own and unmapped when freed. Setting it also stops
// glibc from raising the threshold after each such free.
int sensei_fix_mmap_threshold(int bytes);

#endif
