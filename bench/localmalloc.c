/*
 * localmalloc.c: what local_malloc's rewrite costs a build.
 *
 * The workload is bench/kernels/local_scratch.cl: group reductions and a
 * scan whose scratch comes from local_malloc (two kernels, five functions,
 * 100 lines). Each run points the program cache at a new empty folder and
 * makes both kernels on a new context, which rewrites the source (libclang)
 * and compiles it; then again on another context, which loads the binary
 * from the cache and so rewrites nothing. A rewrite runs libclang in a
 * child process (localmalloc.c), so each one pays for starting it and
 * opening libclang. Every run checks the kernels' results against the host.
 *
 * usage: bench-localmalloc [runs]   (default 5)
 * PoCL's own kernel cache is off (POCL_KERNEL_CACHE=0), as in bench-cache,
 * so that the compile is a compile.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkdtemp */
#endif
#include "bench.h"
#include "clframe.h"
#include "internal.h"               /* the context's rewrite counters */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const clframe_source bench_kernel_sources[];

static const char *const WORKLOAD = "bench/kernels/local_scratch.cl";
enum { GROUP = 64, GROUPS = 40, N = GROUP * GROUPS - 7, MAX_RUNS = 100 };

typedef struct timing {
    double build_ms, rewrite_ms;
    unsigned rewrites;
    uint64_t hits;
} timing;

/* Both kernels on a new context, run and checked against the host. */
static int run_once(timing *t)
{
    static float in[N];
    static cl_float2 out[GROUPS];
    static int ones[GROUP * GROUPS], prefix[GROUP * GROUPS];
    clctx *ctx = clctx_new(NULL);
    if (!ctx)
        return -1;
    double t0 = bench_ms();
    clkernel *stats = clkernel_file(ctx, WORKLOAD, "stats", NULL);
    clkernel *scan = stats ? clkernel_file(ctx, WORKLOAD, "scan", NULL) : NULL;
    t->build_ms = bench_ms() - t0;
    t->rewrite_ms = ctx->local_malloc_ms;
    t->rewrites = ctx->local_malloc_rewrites;
    t->hits = clctx_get_stats(ctx).cache_hits;
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 37) % 101);
    for (int i = 0; i < GROUP * GROUPS; i++)
        ones[i] = 1;
    int rc = scan ? 0 : -1;
    if (rc == 0)
        rc = clkernel_global(stats, GROUP * GROUPS) ||
             clkernel_local(stats, GROUP) ||
             clkernel_call(stats, CLARG_IN(in, N), CLARG_OUT(out, GROUPS),
                           CLARG((cl_int)N)) ||
             clkernel_global(scan, GROUP * GROUPS) ||
             clkernel_local(scan, GROUP) ||
             clkernel_call(scan, CLARG_IN(ones, GROUP * GROUPS),
                           CLARG_OUT(prefix, GROUP * GROUPS));
    for (int g = 0; rc == 0 && g < GROUPS; g++) {
        float sum = 0, max = 0;
        for (int i = g * GROUP; i < (g + 1) * GROUP && i < N; i++) {
            sum += in[i];
            max = fmaxf(max, in[i]);
        }
        if (fabsf(out[g].s[0] - sum) > 1e-3f * sum || out[g].s[1] != max) {
            fprintf(stderr, "bench-localmalloc: group %d: %g %g, expected "
                    "%g %g\n", g, out[g].s[0], out[g].s[1], sum, max);
            rc = -1;
        }
    }
    for (int i = 0; rc == 0 && i < GROUP * GROUPS; i++)
        if (prefix[i] != i % GROUP) {
            fprintf(stderr, "bench-localmalloc: scan[%d] = %d\n", i,
                    prefix[i]);
            rc = -1;
        }
    clkernel_free(stats);
    clkernel_free(scan);
    clctx_free(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (argc > 2 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench-localmalloc [runs (1 to %d)]\n",
                MAX_RUNS);
        return 2;
    }
    setenv("POCL_KERNEL_CACHE", "0", 1);
    unsetenv("CLFRAME_CACHE");
    clframe_add_sources(bench_kernel_sources);
    char home[] = "/tmp/bench-localmalloc-XXXXXX";
    if (!mkdtemp(home)) {
        perror("bench-localmalloc: mkdtemp");
        return 1;
    }
    double miss[MAX_RUNS], hit[MAX_RUNS], rewrite[MAX_RUNS];
    int rc = 0;
    for (int r = 0; r < runs && rc == 0; r++) {
        char dir[300];
        snprintf(dir, sizeof dir, "%s/run%d", home, r);
        setenv("XDG_CACHE_HOME", dir, 1);
        timing a, b;
        rc = run_once(&a) || run_once(&b) || a.rewrites != 1 ||
             b.rewrites != 0 || b.hits == 0;
        miss[r] = a.build_ms;
        rewrite[r] = a.rewrite_ms;
        hit[r] = b.build_ms;
    }
    if (rc) {
        fprintf(stderr, "bench-localmalloc: a run failed: %s\n",
                clframe_last_error());
        return 1;
    }
    char cleanup[400];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", home);
    if (system(cleanup) != 0)
        fprintf(stderr, "bench-localmalloc: could not remove %s\n", home);
    double rewrite_ms = median_of(rewrite, runs);
    double miss_ms = median_of(miss, runs), hit_ms = median_of(hit, runs);
    printf("bench-localmalloc: %s on %s, %d runs (medians)\n", WORKLOAD,
           clctx_device_name(NULL), runs);
    printf("| build | ms |\n|---|---:|\n");
    printf("| rewrite (a child process: libclang opened, parse, edits) | "
           "%.1f |\n", rewrite_ms);
    printf("| build on a cache miss (rewrite and compile) | %.1f |\n",
           miss_ms);
    printf("| build from the cache (no rewrite) | %.1f |\n", hit_ms);
    printf("rewrite / miss: %.1f%%\n", 100 * rewrite_ms / miss_ms);
    return 0;
}
