/*
 * matmul.c (bin/bench-cuda-matmul): matmul's OpenCL versions against
 * their CUDA twins, and CLBlast's SGEMM against cuBLAS's.
 *
 * For each size n, C = A x B on n x n floats from the app's generator
 * (matmul_random_fill), by naive, tiled and blocked through the app's
 * plans on clframe's device (kernel time from its profiling event, each
 * call in one launch: matmul_plan_set_chunks(1), as the twin launches)
 * and by their twins (apps/matmul/cuda/matmul.cu, kernel time from a pair of
 * CUDA events); blocked's twin runs the tile the OpenCL plan runs
 * (matmul_plan_tile). The SGEMM row times CLBlast as the app's benchmark
 * does (the wall time of the call to the queue's end on buffers already
 * on the device: its event covers only its last kernel) and cuBLAS by
 * events around the call on buffers already on the device. Each time is
 * the median of `runs` runs after a warm-up one.
 *
 * Every C is checked by the rule of matmul_compare (the bound of the
 * app's tests and bin/matmul --check): each element within k 2^-22 sum
 * |a||b| of the exact product. That product and that sum are computed
 * once per size, in double, by CLBlast's DGEMM on the OpenCL device
 * (products of floats are exact in double, and a double sum's rounding is
 * 2^-31 of the bound), as matmul_compare's double loop would take minutes
 * at 8192; where DGEMM fails, matmul_compare itself checks each C up to
 * n = COMPARE_MAX_N, and larger ones count as failed, "not checked".
 *
 * The table: OpenCL/CUDA is OpenCL's time over CUDA's (> 1: CUDA is
 * faster); err/bound is the largest |error| / bound of both; same bits
 * says whether OpenCL's and CUDA's C are equal to the last bit. Without
 * a CUDA device the CUDA columns are "-" and the OpenCL versions still
 * run and are checked. Exit status 1 if any C fails its check or a run
 * fails, 2 on a bad argument.
 *
 * usage: bench-cuda-matmul [sizes=1024,2048] [runs=3] [naive-max=65536]
 *   naive-max: the largest n naive runs at (it is the slowest by far).
 */
#include "clframe.h"
#include "common/error.h"
#include "common/clock.h"
#include "median.h"
#include "common/parse.h"
#include "matmul/matmul.h"
#include "device.h"
#include "matmul.h"

#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SIZES = 32, MAX_RUNS = 100, MAX_N = 65536 };

/* The largest n matmul_compare checks when DGEMM gave no exact product:
 * 2 n^3 of its double loop take a few seconds a C at 2048. */
enum { COMPARE_MAX_N = 2048 };

/* check_product's answers besides a count of elements beyond bound. */
enum { CHECK_NO_MEMORY = -1, CHECK_SKIPPED = -2 };

/* The table's rows: the three OpenCL versions, then the SGEMMs. */
enum { ROW_NAIVE, ROW_TILED, ROW_BLOCKED, ROW_SGEMM, ROWS };
static const char *const row_names[ROWS] = {
    "naive", "tiled", "blocked", "SGEMM (CLBlast, cuBLAS)",
};
static const matmul_version row_versions[ROW_SGEMM] = {
    MATMUL_NAIVE, MATMUL_TILED, MATMUL_BLOCKED,
};
static const matmul_cuda_version row_twins[ROWS] = {
    MATMUL_CUDA_NAIVE, MATMUL_CUDA_TILED, MATMUL_CUDA_BLOCKED,
    MATMUL_CUDA_CUBLAS,
};

/* A size's inputs and what checks a C: the exact product and its bound's
 * sum, or NULL for matmul_compare. */
typedef struct problem {
    uint32_t n;
    float *a, *b;
    double *exact, *magnitude;
} problem;

/* One side of a row, OpenCL's or CUDA's. */
typedef struct side {
    int ran;            /* 0: not run, its columns "-" */
    int failed;         /* a run failed (after its message) */
    double ms;          /* median kernel time */
    long bad;           /* elements beyond bound, or CHECK_* */
    double worst;       /* largest |error| / bound */
} side;

/* ---- CLBlast ------------------------------------------------------------- */

/* C = A B for n x n row-major matrices of `size`-byte elements (float:
 * SGEMM, double: DGEMM) by CLBlast on clframe's queue, on device buffers
 * made here: 1 + runs calls, ms[i] the wall time of call i to the
 * queue's end (ms may be NULL), C read back after the last. */
static int clblast_gemm(size_t size, const void *a, const void *b, void *c,
                        uint32_t n, int runs, double *ms)
{
    cl_context context = clctx_context(NULL);
    cl_command_queue queue = clctx_queue(NULL);
    size_t bytes = (size_t)n * n * size;
    cl_int err[3];
    cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               bytes, (void *)a, &err[0]);
    cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               bytes, (void *)b, &err[1]);
    cl_mem dc = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL,
                               &err[2]);
    int rc = err[0] || err[1] || err[2] ? -1 : 0;
    for (int i = 0; rc == 0 && i <= runs; i++) {
        double t0 = clock_ms();
        CLBlastStatusCode s = size == sizeof(float)
            ? CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                           CLBlastTransposeNo, n, n, n, 1.0f, da, 0, n, db, 0,
                           n, 0.0f, dc, 0, n, &queue, NULL)
            : CLBlastDgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                           CLBlastTransposeNo, n, n, n, 1.0, da, 0, n, db, 0,
                           n, 0.0, dc, 0, n, &queue, NULL);
        if (s != CLBlastSuccess || clFinish(queue) != CL_SUCCESS) {
            fprintf(stderr, "bench-cuda-matmul: CLBlast %s: status %d\n",
                    size == sizeof(float) ? "SGEMM" : "DGEMM", (int)s);
            rc = -1;
        } else if (ms) {
            ms[i] = clock_ms() - t0;
        }
    }
    if (rc == 0 && clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, bytes, c, 0,
                                       NULL, NULL) != CL_SUCCESS)
        rc = -1;
    if (!err[0])
        clReleaseMemObject(da);
    if (!err[1])
        clReleaseMemObject(db);
    if (!err[2])
        clReleaseMemObject(dc);
    return rc;
}

/* ---- the check ----------------------------------------------------------- */

/* The exact product of p's matrices and sum |a||b|, in double by DGEMM
 * (the first of A B, the second of |A| |B|). 0, or -1 with neither. */
static int exact_product(problem *p)
{
    size_t count = (size_t)p->n * p->n;
    double *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    p->exact = malloc(count * sizeof *p->exact);
    p->magnitude = malloc(count * sizeof *p->magnitude);
    int rc = a && b && p->exact && p->magnitude ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        a[i] = p->a[i];
        b[i] = p->b[i];
    }
    if (rc == 0)
        rc = clblast_gemm(sizeof(double), a, b, p->exact, p->n, 0, NULL);
    for (size_t i = 0; rc == 0 && i < count; i++) {
        a[i] = fabs(a[i]);
        b[i] = fabs(b[i]);
    }
    if (rc == 0)
        rc = clblast_gemm(sizeof(double), a, b, p->magnitude, p->n, 0, NULL);
    free(a);
    free(b);
    if (rc) {
        free(p->exact);
        free(p->magnitude);
        p->exact = p->magnitude = NULL;
    }
    return rc;
}

/* How many elements of c are beyond matmul_compare's bound, *worst the
 * largest |error| / bound: against p's exact product where there is one,
 * else by matmul_compare itself where n allows; or CHECK_*. */
static long check_product(const problem *p, const float *c, double *worst)
{
    *worst = 0;
    if (!p->exact && p->n > COMPARE_MAX_N)
        return CHECK_SKIPPED;
    if (!p->exact)
        return matmul_compare(p->a, p->b, c, p->n, p->n, p->n, worst);
    const double scale = (double)p->n * ldexp(1.0, -22);
    size_t count = (size_t)p->n * p->n;
    long bad = 0;
    for (size_t i = 0; i < count; i++) {
        double err = fabs((double)c[i] - p->exact[i]);
        double bound = scale * p->magnitude[i];
        if (!(err <= bound))            /* NaN is bad */
            bad++;
        double ratio = bound > 0 ? err / bound : err > 0 ? INFINITY : 0;
        if (!(ratio <= *worst))
            *worst = ratio;
    }
    return bad;
}

/* ---- the runs ------------------------------------------------------------ */

/* A side's runs done (rc 0, ms[0] the warm-up) or failed: its median
 * time and the check of its C into s. */
static void finish_side(side *s, int rc, const problem *p, const float *c,
                        double *ms, int runs)
{
    if (rc) {
        s->failed = 1;
        return;
    }
    s->ran = 1;
    s->ms = median_of(ms + 1, runs);
    s->bad = check_product(p, c, &s->worst);
}

/* The OpenCL side of row into c. */
static void run_opencl(int row, matmul_plan *const *plans, const problem *p,
                       float *c, int runs, side *s)
{
    double ms[MAX_RUNS + 1];
    int rc = 0;
    if (row == ROW_SGEMM)
        rc = clblast_gemm(sizeof(float), p->a, p->b, c, p->n, runs, ms);
    for (int i = 0; row != ROW_SGEMM && rc == 0 && i <= runs; i++) {
        rc = matmul_plan_run(plans[row], p->a, p->b, c, p->n, p->n, p->n);
        if (rc)
            fprintf(stderr, "bench-cuda-matmul: %s: %s\n", row_names[row],
                    app_last_error());
        ms[i] = matmul_plan_last_ms(plans[row]);
    }
    finish_side(s, rc, p, c, ms, runs);
}

/* The CUDA side of row into c. */
static void run_cuda(int row, const matmul_cuda_tile *tile, const problem *p,
                     float *c, int runs, side *s)
{
    double ms[MAX_RUNS + 1];
    int rc = matmul_cuda_run(row_twins[row], tile, p->a, p->b, c, p->n, p->n,
                             p->n, runs, ms);
    finish_side(s, rc, p, c, ms, runs);
}

/* ---- the table ----------------------------------------------------------- */

static void print_ms(const side *s)
{
    if (s->ran)
        printf(" %.3f |", s->ms);
    else
        printf(" %s |", s->failed ? "failed" : "-");
}

/* What is wrong with a side, after a separator, or nothing; 1 if any. */
static int print_problem(const char *name, const side *s, int first)
{
    if (!s->failed && !(s->ran && s->bad != 0))
        return 0;
    printf("%s %s", first ? " NO:" : ";", name);
    if (s->failed)
        printf(" failed");
    else if (s->bad == CHECK_NO_MEMORY)
        printf(" no memory to check");
    else if (s->bad == CHECK_SKIPPED)
        printf(" not checked (no DGEMM, n > %d)", COMPARE_MAX_N);
    else
        printf(" %ld beyond bound", s->bad);
    return 1;
}

/* One row; 1 if a check or a run failed. */
static int print_row(uint32_t n, int row, const side *cl, const side *cu,
                     int same_bits)
{
    printf("| %u | %s |", n, row_names[row]);
    print_ms(cl);
    print_ms(cu);
    if (cl->ran && cu->ran)
        printf(" %.2f |", cl->ms / cu->ms);
    else
        printf(" - |");
    int wrong = print_problem("OpenCL", cl, 1);
    wrong |= print_problem("CUDA", cu, !wrong);
    if (wrong)
        printf(" |");
    else
        printf(" %s |", cl->ran || cu->ran ? "yes" : "-");
    int cl_checked = cl->ran && cl->bad >= 0;
    int cu_checked = cu->ran && cu->bad >= 0;
    if (cl_checked || cu_checked)
        printf(" %.3g |", fmax(cl_checked ? cl->worst : 0,
                               cu_checked ? cu->worst : 0));
    else
        printf(" - |");
    printf(" %s |\n", cl->ran && cu->ran ? same_bits ? "yes" : "no" : "-");
    return wrong;
}

/* Every row at size n; how many rows failed, or -1 out of memory. */
static int bench_size(uint32_t n, int runs, uint32_t naive_max,
                      matmul_plan *const *plans, const matmul_cuda_tile *tile,
                      int cuda)
{
    size_t count = (size_t)n * n;
    problem p = {n, malloc(count * sizeof(float)),
                 malloc(count * sizeof(float)), NULL, NULL};
    float *c_cl = malloc(count * sizeof *c_cl);
    float *c_cu = malloc(count * sizeof *c_cu);
    int failures = -1;
    if (p.a && p.b && c_cl && c_cu) {
        uint32_t state = n;
        matmul_random_fill(p.a, count, &state);
        matmul_random_fill(p.b, count, &state);
        if (exact_product(&p))
            fprintf(stderr, "bench-cuda-matmul: n = %u: no exact product by "
                    "DGEMM; %s\n", n, n > COMPARE_MAX_N ? "C is not checked"
                    : "matmul_compare checks each C");
        failures = 0;
    }
    for (int row = 0; failures >= 0 && row < ROWS; row++) {
        if (row == ROW_NAIVE && n > naive_max) {
            printf("| %u | %s | - | - | - | skipped: n > naive-max %u | - "
                   "| - |\n", n, row_names[row], naive_max);
            continue;
        }
        side cl = {0}, cu = {0};
        run_opencl(row, plans, &p, c_cl, runs, &cl);
        if (cuda && (row != ROW_BLOCKED || matmul_cuda_has_tile(tile)))
            run_cuda(row, tile, &p, c_cu, runs, &cu);
        int same = cl.ran && cu.ran &&
                   memcmp(c_cl, c_cu, count * sizeof *c_cl) == 0;
        failures += print_row(n, row, &cl, &cu, same);
        fflush(stdout);
    }
    free(p.a);
    free(p.b);
    free(p.exact);
    free(p.magnitude);
    free(c_cl);
    free(c_cu);
    return failures;
}

/* The OpenCL versions' plans, each call in one launch, timed. */
static int make_plans(matmul_plan **plans)
{
    for (int row = 0; row < ROW_SGEMM; row++) {
        int rc;
        plans[row] = matmul_plan_new(NULL, row_versions[row], NULL, &rc);
        if (!plans[row]) {
            fprintf(stderr, "bench-cuda-matmul: %s: %s\n", row_names[row],
                    app_last_error());
            return -1;
        }
        matmul_plan_set_timing(plans[row], 1);
        matmul_plan_set_chunks(plans[row], 1);
    }
    return 0;
}

/* The header and the table, every size; 0, or 1 if a row failed. */
static int bench(const unsigned long *sizes, int nsizes, int runs,
                 uint32_t naive_max, matmul_plan *const *plans,
                 const matmul_tile *t, const matmul_cuda_tile *tile)
{
    char tile_text[64], cuda_text[256] = "none";
    matmul_tile_format(t, tile_text, sizeof tile_text);
    int cuda = cuda_open(cuda_text, sizeof cuda_text);
    if (cuda < 0)
        return 1;
    if (cuda && !matmul_cuda_has_tile(tile))
        printf("CUDA: no blocked twin for tile %s (not one of the tuner's): "
               "its CUDA column is left empty\n", tile_text);
    printf("matmul, C = A x B, n x n floats; OpenCL: %s; CUDA: %s; blocked "
           "tile %s (TMxTNxTKxWXxWYxPAD), its twin's too; kernel ms, median "
           "of %d runs after a warm-up; OpenCL/CUDA > 1: CUDA faster\n\n",
           clctx_describe(NULL), cuda_text, tile_text, runs);
    printf("| n | version | OpenCL ms | CUDA ms | OpenCL/CUDA | checked | "
           "err/bound | same bits |\n");
    printf("|---:|---|---:|---:|---:|---|---:|---|\n");
    int status = 0;
    for (int s = 0; s < nsizes; s++) {
        int failures = bench_size((uint32_t)sizes[s], runs, naive_max, plans,
                                  tile, cuda);
        if (failures < 0)
            fprintf(stderr, "bench-cuda-matmul: no memory for n = %lu\n",
                    sizes[s]);
        if (failures != 0)
            status = 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES], runs = 3, naive_max = MAX_N;
    int nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "1024,2048", 1,
                                 MAX_N, sizes, MAX_SIZES);
    if (argc > 4 || !nsizes ||
        (argc > 2 && !parse_uint(argv[2], 1, MAX_RUNS, &runs)) ||
        (argc > 3 && !parse_uint(argv[3], 1, MAX_N, &naive_max))) {
        if (!nsizes)
            fprintf(stderr, "bench-cuda-matmul: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-cuda-matmul [sizes=1024,2048 (1 to %d "
                "each)] [runs=3 (1 to %d)] [naive-max=%d]\n", MAX_N, MAX_RUNS,
                MAX_N);
        return 2;
    }
    if (!clctx_default()) {
        fprintf(stderr, "bench-cuda-matmul: %s\n", app_last_error());
        return 1;
    }
    matmul_plan *plans[ROW_SGEMM] = {NULL};
    int status = make_plans(plans) ? 1 : 0;
    if (status == 0) {
        const matmul_tile *t = matmul_plan_tile(plans[ROW_BLOCKED]);
        matmul_cuda_tile tile = {t->tm, t->tn, t->tk, t->wx, t->wy, t->pad};
        status = bench(sizes, nsizes, (int)runs, (uint32_t)naive_max, plans,
                       t, &tile);
    }
    for (int row = 0; row < ROW_SGEMM; row++)
        matmul_plan_free(plans[row]);
    return status;
}
