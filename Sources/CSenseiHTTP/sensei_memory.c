#include "sensei_memory.h"

#include <malloc.h>

int sensei_limit_malloc_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}
