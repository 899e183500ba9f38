/*
 * seed_test0.cl: the first test of the first local_malloc analyser, written
 * again: blocks of 40 and 60 bytes live at once, then one of 80 alone. The
 * arena is their peak: 100 bytes.
 */
#include "seed.h"

#define FIRST 40

__kernel void entry(void)
{
    __local void *block;

    block = local_malloc(FIRST);
    block = local_malloc(FIRST + 20);
    local_free(60);
    local_free(FIRST);

    block = local_malloc(2 * FIRST);
    local_free(80);
}
