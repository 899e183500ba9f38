/*
 * clock.h: the monotonic clock that every timing in the programs, the
 * benchmarks and the players reads (wall time, unaffected by changes to
 * the date); header-only, so that programs linking nothing but clframe
 * can use it.
 */
#ifndef CLFRAME_COMMON_CLOCK_H
#define CLFRAME_COMMON_CLOCK_H

#include <time.h>

static inline double clock_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline double clock_ms(void)
{
    return clock_seconds() * 1e3;
}

#endif /* CLFRAME_COMMON_CLOCK_H */
