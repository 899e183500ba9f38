/*
 * bandwidth.h: the device's memory bandwidth as the benchmarks of memory-
 * bound apps measure it, so that their "share of the
 * device" columns mean the same thing: a float4 copy kernel
 * (apps/common/kernels/copy.cl) between two persistent buffers, timed by its
 * events.
 */
#ifndef CLFRAME_BENCH_BANDWIDTH_H
#define CLFRAME_BENCH_BANDWIDTH_H

#include <stddef.h>

enum { BENCH_BANDWIDTH_MAX_RUNS = 101 };

/* GB/s (read and write counted): the median of `runs` (1 to 101) timed
 * copies of `bytes` bytes after a warm-up one; 0 after printing why, with
 * program in front, if the copy could not run. */
double bench_copy_bandwidth(size_t bytes, int runs, const char *program);

#endif
