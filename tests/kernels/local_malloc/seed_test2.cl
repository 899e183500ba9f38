/*
 * seed_test2.cl: the test of the first local_malloc analyser where
 * functions return with a block still live, written again: each of two
 * functions keeps 20 bytes, which stay allocated until the kernel ends, so
 * the arena holds both: 40 bytes (and a warning names each block).
 */
#include "seed.h"

void keeps_one(int unused)
{
    __local void *block = local_malloc(20);
}

void keeps_another(void)
{
    __local void *block = local_malloc(20);
}

__kernel void entry(void)
{
    keeps_one(10);
    keeps_another();
}
