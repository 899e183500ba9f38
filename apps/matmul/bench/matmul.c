/*
 * matmul.c (bin/bench-matmul): the matmul table of `make bench`.
 *
 * GFLOP/s (2 m n k / time) of each version on square sizes, on clframe's
 * device, with CLBlast's SGEMM (row-major, on the same context and queue,
 * device buffers made here) in the same run as the one to beat. Each
 * OpenCL row has two times: the kernel's, from its profiling event, and
 * the whole call's (copies of A and B in and C out, and blocked's padding,
 * included). The row "pinned" is blocked with A, B and C in pinned host
 * memory (clframe_host_alloc), whose calls run in row panels that overlap
 * the copies with the kernel (matmul_plan_set_chunks). CLBlast's, in both
 * columns, is the wall time of its call to
 * the queue's end on buffers already on the device (its own event covers
 * only the last of its kernels).
 * Each time is the median of `runs` runs after a warm-up one. Each OpenCL
 * version's C is compared with CLBlast's: the largest |c - c_clblast| /
 * max|c_clblast|. The C reference and OpenMP rows run only where a first
 * estimate (at 1 GFLOP/s, or measured at the previous size) says a run
 * takes under SLOW_S seconds; the table says when they were skipped.
 *
 * usage: bench-matmul [sizes=1024,2048] [runs=3] [versions=all]
 *   versions: a comma-separated list of reference, openmp, naive, tiled,
 *   blocked, pinned, clblast. MATMUL_TILE sets blocked's tile.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "common/parse.h"
#include "matmul/matmul.h"
#include "median.h"
#include "common/clock.h"
#include "common/error.h"

#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 16, MAX_RUNS = 100, ROW_PINNED = MATMUL_VERSION_COUNT,
       ROW_CLBLAST, ROWS };
static const double SLOW_S = 10.0;

static const char *row_name(int row)
{
    return row == ROW_CLBLAST ? "clblast" : row == ROW_PINNED ? "pinned"
         : app_version_name(&matmul_versions, row);
}

static int row_field(const char *name, int number, void *wanted)
{
    (void)number;
    int row = !strcmp(name, "clblast") ? ROW_CLBLAST
            : !strcmp(name, "pinned") ? ROW_PINNED
            : app_version_parse(&matmul_versions, name);
    if (row < 0)
        return 0;
    ((int *)wanted)[row] = 1;
    return 1;
}

/* Parses "a,b,c" of row names into wanted[]; 0 after a message if a name
 * is unknown or a field empty. A name may come twice. */
static int parse_rows(const char *text, int *wanted)
{
    return parse_comma_list("versions", text, 1, 4 * ROWS,
                            "a version, pinned or clblast", row_field,
                            wanted) > 0;
}

typedef struct result {
    double call_ms, kernel_ms;  /* medians; kernel 0 when not measured */
    double max_rel;             /* against CLBlast, -1 when not compared */
    const char *skipped;        /* why there is no row, or NULL */
} result;

/* CLBlast's C = A x B on device buffers; C read into c. */
static int run_clblast(size_t n, const float *a, const float *b, float *c,
                       int runs, result *r)
{
    cl_context context = clctx_context(NULL);
    cl_command_queue queue = clctx_queue(NULL);
    size_t bytes = n * n * sizeof(float);
    cl_int err[3];
    cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               bytes, (void *)a, &err[0]);
    cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               bytes, (void *)b, &err[1]);
    cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL,
                               &err[2]);
    int rc = err[0] || err[1] || err[2] ? -1 : 0;
    /* CLBlast runs several kernels for one SGEMM (padding and transposes
     * around the main one) and its event is only the last one's, a part of
     * the whole: its time is the wall time
     * from the call to the queue's end, on buffers already on the device
     * (launch overheads included, a few microseconds). */
    double wall[MAX_RUNS + 1];
    for (int i = 0; rc == 0 && i <= runs; i++) {
        double t0 = clock_ms();
        CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutRowMajor,
            CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f, da, 0, n,
            db, 0, n, 0.0f, dc, 0, n, &queue, NULL);
        if (s != CLBlastSuccess) {
            fprintf(stderr, "bench-matmul: CLBlastSgemm: status %d\n", (int)s);
            rc = -1;
            break;
        }
        clFinish(queue);
        wall[i] = clock_ms() - t0;
    }
    if (rc == 0)
        rc = clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, bytes, c, 0, NULL,
                                 NULL) ? -1 : 0;
    if (rc == 0)
        r->call_ms = r->kernel_ms = median_of(wall + 1, runs);
    for (int i = 0; i < 3; i++)
        if (!err[i])
            clReleaseMemObject(i == 0 ? da : i == 1 ? db : dc);
    return rc;
}

/* One version: a warm-up run, then `runs` timed ones. */
static int run_version(matmul_version v, uint32_t n, const float *a,
                       const float *b, float *c, int runs, result *r)
{
    int rc;
    matmul_plan *plan = matmul_plan_new(NULL, v, NULL, &rc);
    if (!plan)
        return rc;
    matmul_plan_set_timing(plan, 1);
    double call[MAX_RUNS + 1], kernel[MAX_RUNS + 1];
    for (int i = 0; rc == 0 && i <= runs; i++) {
        double t0 = clock_ms();
        rc = matmul_plan_run(plan, a, b, c, n, n, n);
        call[i] = clock_ms() - t0;
        kernel[i] = matmul_plan_last_ms(plan);
    }
    if (rc == 0) {
        r->call_ms = median_of(call + 1, runs);
        r->kernel_ms = median_of(kernel + 1, runs);
    }
    matmul_plan_free(plan);
    return rc;
}

/* blocked on copies of a and b in pinned memory, into pinned memory that
 * is copied to c afterwards (outside the times). */
static int run_pinned(uint32_t n, const float *a, const float *b, float *c,
                      int runs, result *r)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    clctx *ctx = clctx_default();
    float *pa = clframe_host_alloc(ctx, bytes);
    float *pb = clframe_host_alloc(ctx, bytes);
    float *pc = clframe_host_alloc(ctx, bytes);
    int rc = pa && pb && pc ? 0 : -1;
    if (rc == 0) {
        memcpy(pa, a, bytes);
        memcpy(pb, b, bytes);
        rc = run_version(MATMUL_BLOCKED, n, pa, pb, pc, runs, r);
    }
    if (rc == 0)
        memcpy(c, pc, bytes);
    clframe_host_free(pa);
    clframe_host_free(pb);
    clframe_host_free(pc);
    return rc;
}

static double max_relative(const float *c, const float *want, size_t count)
{
    double scale = 0, worst = 0;
    for (size_t i = 0; i < count; i++)
        scale = fmax(scale, fabs(want[i]));
    for (size_t i = 0; i < count; i++) {
        double d = fabs((double)c[i] - want[i]);
        worst = d > worst || isnan(d) ? d : worst;
    }
    return scale > 0 ? worst / scale : worst;
}

static void print_row(uint32_t n, int row, const result *r, double flop)
{
    printf("%6u  %-10s", n, row_name(row));
    if (r->skipped) {
        printf("  skipped: %s\n", r->skipped);
        return;
    }
    printf("  %10.3f  %9.1f", r->call_ms, flop / r->call_ms * 1e-6);
    if (r->kernel_ms > 0)
        printf("  %10.3f  %9.1f", r->kernel_ms, flop / r->kernel_ms * 1e-6);
    else
        printf("  %10s  %9s", "-", "-");
    if (r->max_rel >= 0)
        printf("  %9.2e", r->max_rel);
    printf("\n");
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES], runs = 3;
    int nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "1024,2048", 1,
                                 32768, sizes, MAX_SIZES);
    int wanted[ROWS] = {0};
    const char *rows_text = argc > 3 ? argv[3] : "all";
    int rows_ok = !strcmp(rows_text, "all")
        ? (memset(wanted, 1, sizeof wanted), 1) : parse_rows(rows_text, wanted);
    if (argc > 4 || !nsizes || !rows_ok ||
        (argc > 2 && !parse_uint(argv[2], 1, MAX_RUNS, &runs))) {
        if (!nsizes || !rows_ok)
            fprintf(stderr, "bench-matmul: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-matmul [sizes=1024,2048] [runs=3 (1 to "
                "%d)] [versions=all|reference,openmp,naive,tiled,blocked,"
                "pinned,clblast]\n", MAX_RUNS);
        return 2;
    }
    for (int i = 0; i < ROWS; i++)
        wanted[i] = wanted[i] ? 1 : 0;
    if (!clctx_default()) {
        fprintf(stderr, "bench-matmul: %s\n", app_last_error());
        return 1;
    }
    matmul_tile tile;
    char tile_text[64] = "none";
    if (matmul_tile_choose(NULL, &tile) == 0)
        matmul_tile_format(&tile, tile_text, sizeof tile_text);
    printf("matmul, C = A x B, n x n floats, on %s; median of %lu runs; "
           "blocked tile %s (TMxTNxTKxWXxWYxPAD); OpenMP threads %d\n",
           clctx_device_name(NULL), runs, tile_text, matmul_openmp_threads());
    printf("%6s  %-10s  %10s  %9s  %10s  %9s  %9s\n", "n", "version",
           "call ms", "GFLOP/s", "kernel ms", "GFLOP/s", "max rel");
    double cpu_gflops[2] = {1.0, 1.0};     /* estimates for the C rows */
    int status = 0;
    for (int s = 0; s < nsizes; s++) {
        uint32_t n = (uint32_t)sizes[s];
        size_t count = (size_t)n * n;
        double flop = 2.0 * n * n * n;
        float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
        float *c = malloc(count * sizeof *c), *want = malloc(count * sizeof *c);
        if (!a || !b || !c || !want) {
            fprintf(stderr, "bench-matmul: no memory for n = %u\n", n);
            return 1;
        }
        uint32_t state = n;
        for (size_t i = 0; i < 2 * count; i++) {   /* [0, 1): A, then B */
            state = state * 1664525u + 1013904223u;
            (i < count ? a : b - count)[i] = (float)(state >> 8) / (1 << 24);
        }
        result clblast = {.max_rel = -1};
        int have_clblast = 0;
        if (run_clblast(n, a, b, want, (int)runs, &clblast) == 0) {
            have_clblast = 1;
            if (wanted[ROW_CLBLAST])
                print_row(n, ROW_CLBLAST, &clblast, flop);
        } else {
            clblast.skipped = "CLBlast failed on this device";
            print_row(n, ROW_CLBLAST, &clblast, flop);
        }
        for (int v = 0; v < ROW_CLBLAST; v++) {
            if (!wanted[v])
                continue;
            result r = {.max_rel = -1};
            int cpu = v != ROW_PINNED &&
                      !app_version_uses_opencl(&matmul_versions, v);
            double estimate_s = cpu ? flop / (cpu_gflops[v] * 1e9) : 0;
            if (estimate_s * (runs + 1) > SLOW_S) {
                r.skipped = "estimated over 10 s per size";
                print_row(n, v, &r, flop);
                continue;
            }
            if (v == ROW_PINNED ? run_pinned(n, a, b, c, (int)runs, &r)
                                : run_version(v, n, a, b, c, (int)runs, &r)) {
                fprintf(stderr, "bench-matmul: %s: %s\n", row_name(v),
                        app_last_error());
                status = 1;
                continue;
            }
            if (cpu)
                cpu_gflops[v] = flop / r.call_ms * 1e-6;
            if (have_clblast)
                r.max_rel = max_relative(c, want, count);
            print_row(n, v, &r, flop);
        }
        free(a);
        free(b);
        free(c);
        free(want);
    }
    return status;
}
