/*
 * bandwidth.c: the device's copy bandwidth for the benchmarks (bandwidth.h).
 */
#include "bandwidth.h"
#include "error.h"

#include "clframe.h"
#include "median.h"

#include <stdio.h>
#include <stdlib.h>

/* apps/common/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source common_kernel_sources[];

double bench_copy_bandwidth(size_t bytes, int runs, const char *program)
{
    size_t n = bytes / 16;
    clkernel *k = clframe_add_sources(common_kernel_sources) ? NULL
                  : clkernel_file(NULL, "apps/common/kernels/copy.cl",
                                  "copy_float4", NULL);
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
        fprintf(stderr, "%s: copy kernel: %s\n", program, app_last_error());
        return 0;
    }
    return 2.0 * (double)(n * 16) / (median_of(ms, runs) * 1e6);
}

