/*
 * laplace.c (bin/bench-laplace): the Laplace table of `make bench`.
 *
 * For each n x n size, the seed's problem (border at 0, a centred n/4
 * square at 1) is iterated `iterations` times by every version: the OpenCL
 * ones timed by their kernels' event times (a warm-up run first builds the
 * kernels), the C ones by the loop's wall time, and only where one run of
 * the reference is expected to take under SLOW_S seconds. Each is the
 * median of `runs` runs and is checked against the reference bit for bit
 * where the reference ran.
 *
 * Effective bandwidth counts what one iteration must move at least, 9 bytes
 * per cell: read a float and a mask byte, write a float (neighbours come
 * from caches or local memory). The device's bandwidth is measured in the
 * same run by apps/common/kernels/copy.cl's float4 copy (apps/common/bandwidth.h); the
 * table gives each version's share of it. The fast and rows versions make
 * several iterations per memory pass, so their share can exceed 100 %.
 * The header names fast's tile (LAPLACE_TILE sets another, for tuning).
 *
 * usage: bench-laplace [sizes=200,1000] [iterations=100] [runs=3]
 *                      [versions=all]
 * versions is a comma-separated list (double,fast) for tuning runs; without
 * the reference, outputs are not checked.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "laplace/laplace.h"
#include "common/bandwidth.h"
#include "median.h"
#include "common/clock.h"
#include "common/parse.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 101, MAX_SIZES = 32, BYTES_PER_CELL = 9 };
static const double SLOW_S = 10.0;
/* The reference's rough speed, for deciding whether to run it (cells per
 * second on one core; a slow machine just waits longer). */
static const double REFERENCE_CELLS_PER_S = 3e8;

/* Times version v on copies of start; *ms is the median, *ok whether every
 * result equals want (when given). With want NULL and keep non-NULL, the
 * last result is kept there (the reference's). 0 or a code. */
static int time_version(const laplace_grid *start, unsigned iterations,
                        laplace_version v, int runs, const laplace_grid *want,
                        laplace_grid *keep, double *ms, int *ok)
{
    double t[MAX_RUNS];
    int opencl = app_version_uses_opencl(&laplace_versions, v), n = 0;
    laplace_plan plan = {iterations, 0.0f, 1};
    *ok = 1;
    for (int i = -opencl; i < runs; i++) {
        laplace_grid g;
        laplace_stats stats = {.timing.want_kernel_time = opencl};
        laplace_plan warm = {1, 0.0f, 1};
        int rc = laplace_grid_copy(&g, start);
        double t0 = clock_seconds();
        if (rc == 0)
            rc = laplace_solve(&g, i < 0 ? &warm : &plan, v, NULL, &stats);
        double s = clock_seconds() - t0;
        if (rc) {
            laplace_grid_free(&g);
            return rc;
        }
        if (i >= 0) {
            t[n++] = opencl ? stats.timing.kernel_ms : s * 1e3;
            if (want)
                *ok &= memcmp(g.phi, want->phi, (size_t)g.nx * g.ny * 4) == 0;
        }
        int last = i == runs - 1 || (i >= 0 && s > SLOW_S);
        if (keep && last)
            *keep = g;
        else
            laplace_grid_free(&g);
        if (last)
            break;
    }
    *ms = median_of(t, n);
    return 0;
}

/* One table block for an n x n grid. */
static int bench_size(unsigned n, unsigned iterations, int runs,
                      double device_gbs, const int selected[])
{
    laplace_grid start, want = {0};
    int rc = laplace_grid_make(&start, n, n, 0.0f, 1.0f, n / 4, n / 4);
    if (rc)
        return rc;
    double cells = (double)n * n * iterations;
    int have_ref = selected[LAPLACE_REFERENCE] &&
                   cells / REFERENCE_CELLS_PER_S < SLOW_S;
    for (int v = 0; v < LAPLACE_VERSION_COUNT && rc == 0; v++) {
        if (!selected[v] ||
            (!app_version_uses_opencl(&laplace_versions, v) && !have_ref))
            continue;
        double ms;
        int ok;
        rc = time_version(&start, iterations, v, runs,
                          v == LAPLACE_REFERENCE || !have_ref ? NULL : &want,
                          v == LAPLACE_REFERENCE ? &want : NULL, &ms, &ok);
        if (rc)
            break;
        double gbs = BYTES_PER_CELL * cells / (ms * 1e6);
        printf("| %u x %u | %s | %.2f | %.0f | %.1f | %.0f%% | %s |\n", n, n,
               app_version_name(&laplace_versions, v), ms, iterations / (ms * 1e-3), gbs,
               100 * gbs / device_gbs, v == LAPLACE_REFERENCE ? "(ref)"
               : !have_ref ? "-" : ok ? "yes" : "NO");
    }
    laplace_grid_free(&start);
    laplace_grid_free(&want);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES];
    int nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "200,1000", 3,
                                 40000, sizes, MAX_SIZES);
    unsigned iterations = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10)
                                   : 100;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    int selected[LAPLACE_VERSION_COUNT];
    int bad_list = app_versions_select(&laplace_versions,
                                       argc > 4 ? argv[4] : NULL, selected);
    if (nsizes == 0 || iterations < 1 || runs < 1 || runs > MAX_RUNS ||
        argc > 5 || bad_list) {
        if (nsizes == 0 || bad_list)
            fprintf(stderr, "bench-laplace: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-laplace [sizes=200,1000 (each 3..40000)"
                "] [iterations=100] [runs=3 (1..%d)] [versions=all]\n",
                MAX_RUNS);
        return 2;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-laplace: %s\n", app_last_error());
        return 1;
    }
    unsigned biggest = 0;
    for (int i = 0; i < nsizes; i++)
        biggest = sizes[i] > biggest ? (unsigned)sizes[i] : biggest;
    /* Big enough that the last-level cache cannot help. */
    size_t grid_bytes = (size_t)biggest * biggest * 4;
    size_t copy_bytes = grid_bytes < (256u << 20) ? (256u << 20)
                      : grid_bytes > (1024u << 20) ? (1024u << 20)
                      : grid_bytes;
    double device_gbs = bench_copy_bandwidth(copy_bytes, runs < 5 ? 5 : runs,
                                             "bench-laplace");
    if (device_gbs <= 0)
        return 1;
    printf("Laplace (Jacobi), %u iterations; median of %d runs\n", iterations,
           runs);
    printf("device: %s\n", clctx_describe(ctx));
    printf("OpenMP threads: %d\n", laplace_openmp_threads());
    printf("device bandwidth (float4 copy of %zu MB, events): %.1f GB/s\n",
           copy_bytes >> 20, device_gbs);
    char tile[64];
    if (laplace_fast_tile(ctx, tile, sizeof tile)) {
        fprintf(stderr, "bench-laplace: %s\n", app_last_error());
        return 1;
    }
    printf("fast's tile (WxHxHALOxVXxPYxCOPIES, LAPLACE_TILE): %s\n\n", tile);
    printf("| grid | version | ms | iterations/s | eff. GB/s | of device | "
           "equal to ref |\n|---|---|---:|---:|---:|---:|:---:|\n");
    for (int i = 0; i < nsizes; i++) {
        if (bench_size((unsigned)sizes[i], iterations, runs, device_gbs,
                       selected)) {
            fprintf(stderr, "bench-laplace: %s\n", app_last_error());
            return 1;
        }
    }
    printf("\nms: the kernels' event times for the OpenCL versions, the "
           "loop's time for the C versions; eff. GB/s: %d bytes per cell and "
           "iteration over that time.\n", BYTES_PER_CELL);
    return 0;
}
