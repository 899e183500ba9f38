/*
 * laplace.c (bin/bench-cuda-laplace): apps/laplace's OpenCL versions seed,
 * double and fast against their CUDA twins (laplace.cu, on the kernels of
 * laplace_kernels.cuh), side by side in one run.
 *
 * For each n x n size, the seed's problem as bench-laplace makes it
 * (border at 0, a centred n/4 square at 1) is iterated `iterations` times
 * by each OpenCL version, through laplace_solve, and by its twin. A time
 * is the sum of one run's kernel times (the OpenCL launches' profiling
 * events; a pair of CUDA events around each launch), the median of `runs`
 * runs after a warm-up run of one iteration; the OpenCL run and the CUDA
 * run take turns, so drift falls on both alike. double's twin runs the
 * update kernel that the app picks for the OpenCL device
 * (laplace_double_kernel), which the table names.
 *
 * Every result is compared bit for bit, as the app's tests compare its
 * versions: with the C reference where bench-laplace runs it (where one
 * run is expected to take under 10 s), else with a run of OpenCL double,
 * which the app's tests check against the reference bit for bit; the
 * table's "against" column says which. Exit status 1 if any differs.
 * Without a CUDA device, one line says why, the CUDA columns are "-" and
 * the OpenCL versions are still run and checked.
 *
 * usage: bench-cuda-laplace [sizes=200,1000] [iterations=100] [runs=3]
 */
#include "clframe.h"
#include "laplace/laplace.h"
#include "common/error.h"
#include "median.h"
#include "common/parse.h"
#include "device.h"
#include "laplace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 101, MAX_SIZES = 32 };

/* What a function returns after a CUDA failure, whose message is printed
 * (the app's and clframe's codes are negative). */
enum { CUDA_FAILED = 1 };

/* bench-laplace's rule for running the reference: a run expected to take
 * under SLOW_S seconds at REFERENCE_CELLS_PER_S cell updates per second. */
static const double SLOW_S = 10.0;
static const double REFERENCE_CELLS_PER_S = 3e8;

typedef struct bench {
    clctx *ctx;
    int cuda;                   /* a CUDA device is there */
    unsigned iterations;
    int runs;
    int failures;               /* results that differ from the wanted */
} bench;

/* A version and its twin. */
typedef struct pair {
    laplace_version v;
    laplace_cuda_twin twin;
    const char *kernel;         /* double's update kernel, else NULL */
} pair;

/* The result every version must give, in want: the reference's, or
 * OpenCL double's where the reference would be too slow (*against says
 * which). 0 or a code. */
static int make_want(const bench *b, const laplace_grid *start,
                     laplace_grid *want, const char **against)
{
    double cells = (double)start->nx * start->ny * b->iterations;
    int reference = cells / REFERENCE_CELLS_PER_S < SLOW_S;
    laplace_plan plan = {b->iterations, 0.0f, 1};
    *against = reference ? "reference" : "OpenCL double";
    int rc = laplace_grid_copy(want, start);
    return rc ? rc : laplace_solve(want, &plan, reference ? LAPLACE_REFERENCE
                                   : LAPLACE_DOUBLE, b->ctx, NULL);
}

/* One OpenCL run of `iterations`: its kernels' summed time in *ms, and
 * whether it gave want's bits in *equal (want NULL: not compared). */
static int run_opencl(const bench *b, const laplace_grid *start,
                      laplace_version v, unsigned iterations,
                      const laplace_grid *want, double *ms, int *equal)
{
    laplace_grid g;
    laplace_stats stats = {.timing.want_kernel_time = 1};
    laplace_plan plan = {iterations, 0.0f, 1};
    int rc = laplace_grid_copy(&g, start);
    if (rc == 0)
        rc = laplace_solve(&g, &plan, v, b->ctx, &stats);
    if (rc == 0) {
        *ms = stats.timing.kernel_ms;
        *equal = !want || memcmp(g.phi, want->phi, (size_t)g.nx * g.ny *
                                 sizeof *g.phi) == 0;
    }
    laplace_grid_free(&g);
    return rc;
}

/* The same run by the CUDA twin: 0, an app code, or CUDA_FAILED. */
static int run_cuda(const laplace_grid *start, laplace_cuda_twin twin,
                    unsigned iterations, const laplace_grid *want, double *ms,
                    int *equal)
{
    laplace_grid g;
    int rc = laplace_grid_copy(&g, start);
    if (rc)
        return rc;
    if (laplace_cuda_solve(g.phi, g.mask, g.nx, g.ny, iterations, twin, ms))
        rc = CUDA_FAILED;
    else
        *equal = !want || memcmp(g.phi, want->phi, (size_t)g.nx * g.ny *
                                 sizeof *g.phi) == 0;
    laplace_grid_free(&g);
    return rc;
}

/* "yes", or which of the two results differed from want. */
static const char *verdict(int cuda, int opencl_equal, int cuda_equal)
{
    if (opencl_equal && (cuda_equal || !cuda))
        return "yes";
    if (!cuda || cuda_equal)
        return "NO (OpenCL)";
    return opencl_equal ? "NO (CUDA)" : "NO (both)";
}

/* One table row: p's OpenCL version and its twin, taking turns. 0, an
 * app code, or CUDA_FAILED. */
static int bench_pair(bench *b, const laplace_grid *start,
                      const laplace_grid *want, const char *against,
                      const pair *p)
{
    double cl_ms[MAX_RUNS], cuda_ms[MAX_RUNS], ms;
    int cl_equal = 1, cuda_equal = 1, equal;
    int rc = run_opencl(b, start, p->v, 1, NULL, &ms, &equal);
    if (rc == 0 && b->cuda)
        rc = run_cuda(start, p->twin, 1, NULL, &ms, &equal);
    for (int i = 0; i < b->runs && rc == 0; i++) {
        rc = run_opencl(b, start, p->v, b->iterations, want, &cl_ms[i],
                        &equal);
        cl_equal &= equal;
        if (rc == 0 && b->cuda) {
            rc = run_cuda(start, p->twin, b->iterations, want, &cuda_ms[i],
                          &equal);
            cuda_equal &= equal;
        }
    }
    if (rc)
        return rc;
    double cl = median_of(cl_ms, b->runs);
    printf("| %u x %u | %s%s%s%s | %.2f | ", start->nx, start->ny,
           app_version_name(&laplace_versions, p->v), p->kernel ? " (" : "",
           p->kernel ? p->kernel : "", p->kernel ? ")" : "", cl);
    if (b->cuda) {
        double cuda = median_of(cuda_ms, b->runs);
        printf("%.2f | %.2f |", cuda, cl / cuda);
    } else {
        printf("- | - |");
    }
    printf(" %s | %s |\n", against, verdict(b->cuda, cl_equal, cuda_equal));
    b->failures += !cl_equal || (b->cuda && !cuda_equal);
    return 0;
}

/* double's twin: the one of the update kernel the app runs. */
static laplace_cuda_twin double_twin(const char *kernel)
{
    if (!strcmp(kernel, "laplace_update4"))
        return LAPLACE_CUDA_DOUBLE_FLOAT4;
    if (!strcmp(kernel, "laplace_update_column"))
        return LAPLACE_CUDA_DOUBLE_COLUMN;
    return LAPLACE_CUDA_DOUBLE_CELL;
}

/* The rows of an n x n grid. 0, an app code, or CUDA_FAILED. */
static int bench_size(bench *b, unsigned n)
{
    laplace_grid start, want = {0};
    const char *against;
    int rc = laplace_grid_make(&start, n, n, 0.0f, 1.0f, n / 4, n / 4);
    if (rc)
        return rc;
    const char *kernel = laplace_double_kernel(b->ctx, n);
    pair pairs[] = {
        {LAPLACE_SEED, LAPLACE_CUDA_SEED, NULL},
        {LAPLACE_DOUBLE, double_twin(kernel), kernel},
        {LAPLACE_FAST, LAPLACE_CUDA_FAST, NULL},
    };
    rc = make_want(b, &start, &want, &against);
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs && rc == 0; i++)
        rc = bench_pair(b, &start, &want, against, &pairs[i]);
    laplace_grid_free(&start);
    laplace_grid_free(&want);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES];
    int nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "200,1000", 3,
                                 LAPLACE_MAX_SIDE, sizes, MAX_SIZES);
    unsigned long iterations = 100, runs = 3;
    if (nsizes == 0 || argc > 4 ||
        (argc > 2 && !parse_uint(argv[2], 1, 1000000, &iterations)) ||
        (argc > 3 && !parse_uint(argv[3], 1, MAX_RUNS, &runs))) {
        if (nsizes == 0)
            fprintf(stderr, "bench-cuda-laplace: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-cuda-laplace [sizes=200,1000 (each 3.."
                "%u)] [iterations=100 (1..1000000)] [runs=3 (1..%d)]\n",
                LAPLACE_MAX_SIDE, MAX_RUNS);
        return 2;
    }
    bench b = {.ctx = clctx_default(), .iterations = (unsigned)iterations,
               .runs = (int)runs};
    if (!b.ctx) {
        fprintf(stderr, "bench-cuda-laplace: %s\n", app_last_error());
        return 1;
    }
    char cuda_device[256];
    b.cuda = cuda_open(cuda_device, sizeof cuda_device);
    if (b.cuda < 0)
        return 1;
    printf("Laplace (Jacobi): OpenCL against CUDA, %u iterations; median of "
           "%d runs\n", b.iterations, b.runs);
    printf("OpenCL device: %s\n", clctx_describe(b.ctx));
    printf("CUDA device: %s\n", cuda_device);
    /* fast's tile: the app's default for the device (or LAPLACE_TILE's),
     * and the twin's, built in; the table is fair where they agree. */
    char cl_tile[64], cuda_tile[64];
    if (laplace_fast_tile(b.ctx, cl_tile, sizeof cl_tile)) {
        fprintf(stderr, "bench-cuda-laplace: %s\n", app_last_error());
        return 1;
    }
    laplace_cuda_tile(cuda_tile, sizeof cuda_tile);
    printf("fast's tile (WxHxHALOxVXxPYxCOPIES): OpenCL %s, CUDA %s\n",
           cl_tile, cuda_tile);
    if (strcmp(cl_tile, cuda_tile))
        printf("note: the tiles differ, so fast's row compares different "
               "shapes (LAPLACE_TILE, or a device without 48 KB of local "
               "memory; the twin takes -DLAPLACE_TILE_W=... in "
               "CUDA_FLAGS_laplace)\n");
    printf("\n| grid | version | OpenCL ms | CUDA ms | OpenCL/CUDA | against "
           "| equal |\n|---|---|---:|---:|---:|---|:---:|\n");
    for (int i = 0; i < nsizes; i++) {
        int rc = bench_size(&b, (unsigned)sizes[i]);
        if (rc) {
            if (rc != CUDA_FAILED)
                fprintf(stderr, "bench-cuda-laplace: %s\n", app_last_error());
            return 1;
        }
    }
    printf("\nms: the sum of one run's kernel times (OpenCL: profiling "
           "events; CUDA: an event pair per launch); OpenCL/CUDA > 1: CUDA "
           "is faster. equal: both results bit for bit equal to the "
           "reference's, or to OpenCL double's above the reference's size "
           "cap.\n");
    if (b.failures)
        fprintf(stderr, "bench-cuda-laplace: %d row%s differed\n",
                b.failures, b.failures == 1 ? "" : "s");
    return b.failures ? 1 : 0;
}
