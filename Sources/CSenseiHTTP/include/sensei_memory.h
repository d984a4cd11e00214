#ifndef SENSEI_MEMORY_H
#define SENSEI_MEMORY_H

// glibc's mallopt(M_ARENA_MAX, n): <malloc.h> does not import into Swift.
// Returns mallopt's result (1 on success).
int sensei_limit_malloc_arenas(int arenas);

#endif
