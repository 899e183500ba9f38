/*
 * cache.c: what clframe's program binary cache saves when a program starts.
 *
 * The workload is bench/kernels/cache_workload.cl: 15 kernels of real work
 * in about 400 lines, standing for an application's kernel file. One run
 * opens a new context (outside the timed part: clframe reuses programs
 * within a context, which is not what is measured) and times making all 15
 * clkernels from the file, which builds the program once; then it times the
 * first call of one kernel (sum_reduce) and checks its result. Three kinds
 * of run, interleaved, each the median of several:
 *
 *   - first:   an empty cache (a new XDG_CACHE_HOME per run): compile from
 *              source, then store the binary;
 *   - cached:  the cache holds the entry: load the binary and build it;
 *   - off:     CLFRAME_CACHE=0: compile from source only, for the price of
 *              storing (first - off).
 *
 * Goal: cached <= 5% of first. PoCL keeps a kernel cache of its
 * own, which would make "first" fast from the second run on: it is turned
 * off (POCL_KERNEL_CACHE=0, set before the first OpenCL call), and its
 * working files go to this program's temporary folder, removed at the end.
 *
 * usage: bench-cache [runs]   (default 5)
 * CLFRAME_DEVICE chooses the device, as for every clframe program; the
 * goal is for the CPU device (CLFRAME_DEVICE=cpu).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, localtime_r, mkdtemp */
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700           /* nftw */
#endif
#include "bench.h"
#include "clframe.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* bench/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source bench_kernel_sources[];

static const char *const WORKLOAD = "bench/kernels/cache_workload.cl";
static const char *const KERNELS[] = {
    "blur_rows",     "blur_columns",  "sobel",        "sum_reduce",
    "minmax_reduce", "scan_blocks",   "scan_add_sums", "histogram",
    "bitonic_step",  "nbody_step",    "diffusion_step", "matmul_tiled",
    "spmv_csr",      "mandelbrot",    "monte_carlo_pi"};
enum { NKERNELS = sizeof KERNELS / sizeof *KERNELS, SUM_KERNEL = 3 };
enum { SUM_N = 100000, GROUP = 64, GROUPS = 32 };
static const double GOAL = 0.05;

enum { FIRST, CACHED, OFF, NKINDS };
static const char *const KIND_NAMES[NKINDS] = {
    "first build (empty cache)", "cached build", "cache off (compile only)"};

typedef struct timing {
    double build_ms, call_ms;       /* making the kernels; the first call */
    uint64_t hits, misses;
} timing;

static char root[256];              /* this run's temporary folder */

static int fail(const char *what)
{
    fprintf(stderr, "bench-cache: %s failed: %s\n", what, clframe_last_error());
    return 1;
}

/* ---- one run --------------------------------------------------------------- */

/* The first call of sum_reduce on 1..SUM_N / SUM_N, checked against the
 * exact sum; its time includes PoCL's compiling the work-group code. */
static int first_call(clkernel *k, double *ms)
{
    static float in[SUM_N], partial[GROUPS];
    for (int i = 0; i < SUM_N; i++)
        in[i] = (float)(i % 1000) / 1000.0f;
    double t0 = bench_ms();
    int rc = clkernel_global(k, GROUP * GROUPS);
    if (rc == 0)
        rc = clkernel_local(k, GROUP);
    if (rc == 0)
        rc = clkernel_call(k, CLARG_IN(in, SUM_N), CLARG_OUT(partial, GROUPS),
                           CLARG((cl_int)SUM_N),
                           CLARG_LOCAL(GROUP * sizeof(float)));
    *ms = bench_ms() - t0;
    double sum = 0, want = 0;
    for (int g = 0; g < GROUPS; g++)
        sum += partial[g];
    for (int i = 0; i < SUM_N; i++)
        want += (double)(i % 1000) / 1000.0;
    if (rc == 0 && fabs(sum - want) > 1e-4 * want) {
        fprintf(stderr, "bench-cache: sum_reduce gave %.3f, expected %.3f\n",
                sum, want);
        return -1;
    }
    return rc;
}

/* One run on a new context with the cache as the environment says now. */
static int run_once(timing *t)
{
    clctx *ctx = clctx_new(NULL);
    if (!ctx)
        return -1;
    clkernel *k[NKERNELS] = {0};
    int rc = 0;
    double t0 = bench_ms();
    for (int i = 0; i < NKERNELS && rc == 0; i++)
        if (clframe_add_sources(bench_kernel_sources) ||
            !(k[i] = clkernel_file(ctx, WORKLOAD, KERNELS[i], NULL)))
            rc = -1;
    t->build_ms = bench_ms() - t0;
    if (rc == 0)
        rc = first_call(k[SUM_KERNEL], &t->call_ms);
    clctx_stats st = clctx_get_stats(ctx);
    t->hits = st.cache_hits;
    t->misses = st.cache_misses;
    for (int i = 0; i < NKERNELS; i++)
        clkernel_free(k[i]);
    clctx_free(ctx);
    return rc;
}

/* Points the cache at a folder: a new empty one for FIRST, the one FIRST
 * filled for CACHED; CLFRAME_CACHE=0 for OFF. */
static int prepare(int kind, int run)
{
    char dir[300];
    if (kind == OFF) {
        setenv("CLFRAME_CACHE", "0", 1);
        return 0;
    }
    unsetenv("CLFRAME_CACHE");
    if (kind == FIRST)
        snprintf(dir, sizeof dir, "%s/empty-%d", root, run);
    else
        snprintf(dir, sizeof dir, "%s/empty-0", root);
    return setenv("XDG_CACHE_HOME", dir, 1);
}

/* The expected counters: one program, compiled or loaded. */
static int counters_ok(int kind, const timing *t)
{
    return kind == CACHED ? t->hits == 1 && t->misses == 0
                          : t->hits == 0 && t->misses == 1;
}

/* ---- statistics and report -------------------------------------------------- */

typedef struct summary {
    double build, build_min, build_max, call;
} summary;

static summary summarize(const timing *t, int runs, double *scratch)
{
    summary s;
    for (int r = 0; r < runs; r++)
        scratch[r] = t[r].call_ms;
    s.call = median_of(scratch, runs);
    for (int r = 0; r < runs; r++)
        scratch[r] = t[r].build_ms;
    s.build = median_of(scratch, runs);
    s.build_min = scratch[0];
    s.build_max = scratch[runs - 1];
    return s;
}

static void print_header(int argc, char **argv, clctx *ctx, int runs)
{
    bench_print_header(ctx, argc, argv);
    printf("workload: %s, %d kernels built as one program, %d runs of "
           "each kind on a new context; POCL_KERNEL_CACHE=0\n", WORKLOAD,
           NKERNELS, runs);
}

static void print_results(const summary *s, int runs, cl_device_type type)
{
    printf("\n  %-28s %10s %10s %10s %14s\n", "ms, median of the runs",
           "build", "min", "max", "first call");
    for (int k = 0; k < NKINDS; k++)
        printf("  %-28s %10.1f %10.1f %10.1f %14.1f\n", KIND_NAMES[k],
               s[k].build, s[k].build_min, s[k].build_max, s[k].call);
    double ratio = s[CACHED].build / s[FIRST].build;
    printf("  cached / first: %.4f (%.2f%%); storing the binary costs "
           "%.1f ms (first - off)\n", ratio, 100 * ratio,
           s[FIRST].build - s[OFF].build);
    printf("  goal: cached <= %.0f%% of first: %s\n", 100 * GOAL,
           ratio <= GOAL ? "met" : "NOT met");
    printf("RESULT cache_build_ms device=%s runs=%d kernels=%d first=%.1f "
           "cached=%.1f off=%.1f ratio=%.4f store=%.1f call_first=%.1f "
           "call_cached=%.1f call_off=%.1f goal=%s\n",
           type & CL_DEVICE_TYPE_GPU ? "gpu"
           : type & CL_DEVICE_TYPE_CPU ? "cpu" : "other",
           runs, NKERNELS, s[FIRST].build, s[CACHED].build, s[OFF].build,
           ratio, s[FIRST].build - s[OFF].build, s[FIRST].call,
           s[CACHED].call, s[OFF].call, ratio <= GOAL ? "met" : "not_met");
}

/* ---- setup ------------------------------------------------------------------ */

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The temporary folder, and PoCL told to leave its own cache alone. */
static int make_root(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/clframe-bench-cache-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return -1;
    char pocl[300];
    snprintf(pocl, sizeof pocl, "%s/pocl", root);
    setenv("POCL_KERNEL_CACHE", "0", 1);
    if (!getenv("POCL_CACHE_DIR"))
        setenv("POCL_CACHE_DIR", pocl, 1);
    return 0;
}

/* runs rounds of the three kinds, the order reversed every other round so
 * that drift falls on all of them, after a warm-up of FIRST (which fills
 * the cache every CACHED run reads) and OFF. */
static int measure(int runs, timing *t)
{
    static const int orders[2][NKINDS] = {{FIRST, CACHED, OFF},
                                          {OFF, CACHED, FIRST}};
    timing warm;
    if (prepare(FIRST, 0) || run_once(&warm) || prepare(OFF, 0) ||
        run_once(&warm))
        return -1;          /* warm-up: loader, device, files in page cache */
    for (int r = 0; r < runs; r++)
        for (int i = 0; i < NKINDS; i++) {
            int kind = orders[r % 2][i];
            timing *out = &t[kind * runs + r];
            if (prepare(kind, r + 1) || run_once(out))
                return -1;
            if (!counters_ok(kind, out)) {
                fprintf(stderr, "bench-cache: %s: %llu hits, %llu misses\n",
                        KIND_NAMES[kind], (unsigned long long)out->hits,
                        (unsigned long long)out->misses);
                return -1;
            }
        }
    return 0;
}

int main(int argc, char **argv)
{
    long runs = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
    if (argc > 2 || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: %s [runs >= 1]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (make_root())
        return fail("making a temporary folder");
    clctx *ctx = clctx_new(NULL);
    if (!ctx)
        return fail("opening the device");
    print_header(argc, argv, ctx, (int)runs);
    cl_device_type type = clctx_device_type(ctx);
    clctx_free(ctx);

    timing *t = calloc(NKINDS * (size_t)runs, sizeof *t);
    double *scratch = calloc((size_t)runs, sizeof *scratch);
    int rc = t && scratch ? measure((int)runs, t) : -1;
    if (rc == 0) {
        summary s[NKINDS];
        for (int k = 0; k < NKINDS; k++)
            s[k] = summarize(t + k * runs, (int)runs, scratch);
        print_results(s, (int)runs, type);
    }
    free(t);
    free(scratch);
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc ? fail("a timed run") : 0;
}
