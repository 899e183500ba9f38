/*
 * launch.c (bin/bench-cuda-launch): what a kernel costs before it computes,
 * in clframe's OpenCL and in CUDA, on the same GPU.
 *
 * Two tables. An empty kernel: the host time per launch of `launches` in a
 * row (clkernel_enqueue; CUDA's <<<1, 1>>>), and per launch with a wait
 * after each (clkernel_call, which waits; a launch and
 * cudaStreamSynchronize). And building a kernel file: clframe's OpenCL
 * program from source (its cache off) and from its cache, against nvcc
 * offline (a cubin, the wall time of the nvcc process) and NVRTC at run
 * time (a cubin, loaded). Each figure is the median of `runs` runs after
 * a warm-up. The driver's own cache of compiled kernels is turned off
 * (CUDA_CACHE_DISABLE=1, set here before the first call into either
 * runtime), so that "from source" means it, and CUDA loads modules eagerly
 * (CUDA_MODULE_LOADING=EAGER), so that loaded means ready to launch.
 *
 * usage: bench-cuda-launch [launches=1000] [runs=7]
 *            [opencl_file=apps/matmul/kernels/matmul.cl]
 *            [cuda_file=apps/matmul/cuda/matmul_kernels.cuh] [kernel=matmul_tiled]
 * NVCC names nvcc (else nvcc on the PATH).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../bench.h"
#include "clframe.h"
#include "device.h"
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_RUNS = 101 };

typedef struct options {
    int launches, runs;
    const char *opencl_file, *cuda_file, *kernel;
} options;

/* A row of a table: its OpenCL and CUDA figures, either negative for
 * none ("-"), in `format`. */
static void print_row(const char *what, double opencl, double cuda,
                      const char *format)
{
    char a[32] = "-", b[32] = "-";
    if (opencl >= 0)
        snprintf(a, sizeof a, format, opencl);
    if (cuda >= 0)
        snprintf(b, sizeof b, format, cuda);
    printf("| %s | %s | %s |\n", what, a, b);
}

/* The empty kernel's table rows: OpenCL's, then CUDA's (or a dash). */
static int empty_kernel_rows(clctx *ctx, const options *o, int cuda)
{
    clkernel *k = clkernel_source(ctx, "__kernel void empty(void) {}",
                                  "empty", NULL);
    if (!k || clkernel_global(k, 1))
        return -1;
    double enqueue[MAX_RUNS], call[MAX_RUNS], launch[MAX_RUNS],
           wait[MAX_RUNS];
    int rc = clkernel_call(k);                  /* the warm-up */
    for (int r = 0; rc == 0 && r < o->runs; r++) {
        double start = bench_seconds();
        for (int i = 0; rc == 0 && i < o->launches; i++)
            rc = clkernel_enqueue(k);
        enqueue[r] = (bench_seconds() - start) * 1e6 / o->launches;
        rc = rc ? rc : clctx_finish(ctx);
        start = bench_seconds();
        for (int i = 0; rc == 0 && i < o->launches; i++)
            rc = clkernel_call(k);
        call[r] = (bench_seconds() - start) * 1e6 / o->launches;
        if (rc == 0 && cuda)
            rc = cuda_empty_launches(o->launches, &launch[r], &wait[r]);
    }
    clkernel_free(k);
    if (rc)
        return rc;
    print_row("launch alone", median_of(enqueue, o->runs),
              cuda ? median_of(launch, o->runs) : -1, "%.2f");
    print_row("launch and wait", median_of(call, o->runs),
              cuda ? median_of(wait, o->runs) : -1, "%.2f");
    return 0;
}

/* The whole of a file, or NULL (said on stderr). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) &&
        fread(text, 1, (size_t)size, f) == (size_t)size)
        text[size] = '\0';
    else {
        fprintf(stderr, "bench-cuda-launch: cannot read %s\n", path);
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

/* Milliseconds to make kernel o->kernel of o->opencl_file in a new context
 * (its creation not counted: clframe reuses a context's programs), with
 * clframe's cache on or off. */
static int opencl_build_ms(const options *o, int cached, double *ms)
{
    clctx *ctx = clctx_new(NULL);
    if (!ctx)
        return -1;
    if (!cached)
        setenv("CLFRAME_CACHE", "0", 1);
    double start = bench_seconds();
    clkernel *k = clkernel_file(ctx, o->opencl_file, o->kernel, NULL);
    *ms = (bench_seconds() - start) * 1e3;
    unsetenv("CLFRAME_CACHE");
    clkernel_free(k);
    clctx_free(ctx);
    return k ? 0 : -1;
}

/* Milliseconds of nvcc compiling o->cuda_file to a cubin, run as a process
 * of its own, as a build would. */
static int nvcc_build_ms(const options *o, double *ms)
{
    const char *nvcc = getenv("NVCC") ? getenv("NVCC") : "nvcc";
    char out[] = "/tmp/bench-cuda-launch-XXXXXX";
    int fd = mkstemp(out);
    if (fd < 0)
        return -1;
    close(fd);
    double start = bench_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        execlp(nvcc, nvcc, "-cubin", "-O3", "-arch=sm_90", "-x", "cu",
               "-o", out, o->cuda_file, (char *)NULL);
        _exit(127);
    }
    int status = -1;
    if (pid > 0)
        waitpid(pid, &status, 0);
    *ms = (bench_seconds() - start) * 1e3;
    unlink(out);
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-cuda-launch: %s -cubin %s failed\n", nvcc,
                o->cuda_file);
        return -1;
    }
    return 0;
}

/* The build table's rows; CUDA's only with a CUDA device, nvcc's always. */
static int build_rows(const options *o, int cuda)
{
    double source[MAX_RUNS], cached[MAX_RUNS], nvcc[MAX_RUNS],
           nvrtc[MAX_RUNS], warm;
    char *cuda_text = read_file(o->cuda_file);
    int rc = cuda_text ? 0 : -1;
    /* The warm-ups; the cached build's entry is made here. */
    rc = rc ? rc : opencl_build_ms(o, 1, &warm);
    rc = rc ? rc : nvcc_build_ms(o, &warm);
    if (rc == 0 && cuda)
        rc = cuda_nvrtc_build(cuda_text, o->kernel, &warm);
    for (int r = 0; rc == 0 && r < o->runs; r++) {
        rc = opencl_build_ms(o, 0, &source[r]);
        rc = rc ? rc : opencl_build_ms(o, 1, &cached[r]);
        rc = rc ? rc : nvcc_build_ms(o, &nvcc[r]);
        if (rc == 0 && cuda)
            rc = cuda_nvrtc_build(cuda_text, o->kernel, &nvrtc[r]);
    }
    free(cuda_text);
    if (rc)
        return rc;
    print_row("OpenCL from source (clBuildProgram)",
              median_of(source, o->runs), -1, "%.1f");
    print_row("OpenCL from clframe's cache", median_of(cached, o->runs), -1,
              "%.1f");
    print_row("nvcc, offline (a process)", -1, median_of(nvcc, o->runs),
              "%.1f");
    print_row("NVRTC at run time, loaded", -1,
              cuda ? median_of(nvrtc, o->runs) : -1, "%.1f");
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    long launches = bench_count_arg(argc, argv, 1, 1000, 1000000);
    long runs = bench_count_arg(argc, argv, 2, 7, MAX_RUNS);
    if (argc > 6 || launches < 0 || runs < 0) {
        fprintf(stderr, "usage: bench-cuda-launch [launches=1000] [runs=7 "
                "(at most %d)] [opencl_file] [cuda_file] [kernel]\n",
                MAX_RUNS);
        return -1;
    }
    o->launches = (int)launches;
    o->runs = (int)runs;
    o->opencl_file = argc > 3 ? argv[3] : "apps/matmul/kernels/matmul.cl";
    o->cuda_file = argc > 4 ? argv[4] : "apps/matmul/cuda/matmul_kernels.cuh";
    o->kernel = argc > 5 ? argv[5] : "matmul_tiled";
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o))
        return 2;
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);   /* loaded means loaded */
    clctx *ctx = clctx_new(NULL);
    if (!ctx) {
        fprintf(stderr, "bench-cuda-launch: %s\n", clframe_last_error());
        return 1;
    }
    char cuda_name[256];
    int cuda = cuda_open(cuda_name, sizeof cuda_name);
    if (cuda < 0)
        return 1;
    printf("Before a kernel computes: OpenCL %s; CUDA %s; median of %d runs\n\n",
           clctx_describe(ctx), cuda_name, o.runs);
    printf("An empty kernel, microseconds per launch (%d in a row):\n\n"
           "| what | clframe OpenCL us | CUDA us |\n|---|---:|---:|\n",
           o.launches);
    int rc = empty_kernel_rows(ctx, &o, cuda);
    if (rc == 0) {
        printf("\nBuilding %s (OpenCL) and %s (CUDA), ms:\n\n"
               "| what | OpenCL ms | CUDA ms |\n|---|---:|---:|\n",
               o.opencl_file, o.cuda_file);
        rc = build_rows(&o, cuda);
    }
    if (rc)
        fprintf(stderr, "bench-cuda-launch: %s\n", clframe_last_error());
    clctx_free(ctx);
    return rc ? 1 : 0;
}
