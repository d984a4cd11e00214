#include "sensei_memory.h"

#include <malloc.h>

int sensei_limit_malloc_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}

int sensei_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
