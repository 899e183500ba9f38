/*
 * bandwidth.h: the device's memory bandwidth as the benchmarks of memory-
 * bound apps (heat, Laplace) measure it, so that their "share of the
 * device" columns mean the same thing: a float4 copy kernel
 * (kernels/bench/copy.cl) between two persistent buffers, timed by its
 * events.
 */
#ifndef CLFRAME_BENCH_BANDWIDTH_H
#define CLFRAME_BENCH_BANDWIDTH_H

#include "clframe.h"
#include "common/median.h"

#include <stdio.h>
#include <stdlib.h>

enum { BENCH_BANDWIDTH_MAX_RUNS = 101 };

/* GB/s (read and write counted): the median of `runs` (1 to 101) timed
 * copies of `bytes` bytes after a warm-up one; 0 after printing why, with
 * program in front, if the copy could not run. */
static inline double bench_copy_bandwidth(size_t bytes, int runs,
                                          const char *program)
{
    size_t n = bytes / 16;
    clkernel *k = clkernel_file(NULL, "kernels/bench/copy.cl", "copy_float4",
                                NULL);
    float *host = calloc(n, 16);
    clarg in = CLARG_TYPED("float4", (cl_float4 *)host, n, CLARG_NO_COPY);
    clarg out = CLARG_TYPED("float4", (cl_float4 *)host, n, CLARG_NO_COPY);
    double ms[BENCH_BANDWIDTH_MAX_RUNS];
    if (runs > BENCH_BANDWIDTH_MAX_RUNS)
        runs = BENCH_BANDWIDTH_MAX_RUNS;
    int rc = k && host && runs > 0 ? 0 : -1;
    if (rc == 0)
        rc = clarg_persist(&in, NULL);
    if (rc == 0)
        rc = clarg_persist(&out, NULL);
    if (rc == 0)
        rc = clarg_write(&in);
    if (rc == 0)
        rc = clkernel_global(k, n);
    if (rc == 0)
        rc = clkernel_set_timing(k, 1);
    for (int r = -1; r < runs && rc == 0; r++) {  /* r = -1: warm-up */
        rc = clkernel_call(k, in, out);
        if (r >= 0)
            ms[r] = clkernel_last_ms(k);
    }
    clarg_release(&in);
    clarg_release(&out);
    clkernel_free(k);
    free(host);
    if (rc) {
        fprintf(stderr, "%s: copy kernel: %s\n", program, clframe_last_error());
        return 0;
    }
    return 2.0 * (double)(n * 16) / (median_of(ms, runs) * 1e6);
}

#endif
