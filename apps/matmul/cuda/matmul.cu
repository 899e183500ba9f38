/*
 * matmul.cu: the host side of matmul's CUDA twins (matmul.h): device
 * buffers, the copies, each twin's launch timed by a pair of events, and
 * cuBLAS's SGEMM on the same buffers.
 *
 * The launches mirror apps/matmul/matmul_cl.c: naive and tiled run blocks
 * of 16 x 16 over C rounded up to 16 (their kernels guard the edges);
 * blocked runs blocks of WX x WY, each a BM x BN block of C, over A, B and
 * C padded with zeros to multiples of BM, TK and BN. The app pads on the
 * host; here the padding is done by the copies (a zeroed buffer and a
 * pitched copy), so the kernel sees the same arrays.
 */
#include "matmul.h"
#include "matmul_kernels.cuh"
#include "cuda_check.h"

#include <cublas_v2.h>
#include <stdlib.h>

/* The blocked twin's tiles: those of the app's tuner (matmul_tune.c),
 * both of its defaults (8x8x16x16x16x4 on GPUs, 8 deep where local memory
 * is short, and 4x4x16x8x8x0 elsewhere) among them. A kernel is compiled
 * for each; the tile the OpenCL plan runs picks one. */
#define MATMUL_CUDA_TILES(X)                                                 \
    X(8, 8, 16, 16, 16, 4) X(8, 8, 8, 16, 16, 4) X(8, 8, 12, 16, 16, 4)      \
    X(8, 8, 32, 16, 16, 4) X(8, 8, 16, 16, 16, 0) X(8, 8, 16, 16, 8, 4)      \
    X(8, 8, 16, 8, 16, 4) X(8, 8, 16, 32, 8, 4) X(8, 4, 16, 16, 16, 4)       \
    X(4, 8, 16, 16, 16, 4) X(8, 16, 8, 16, 16, 4) X(4, 4, 16, 16, 16, 4)     \
    X(4, 4, 16, 8, 8, 0) X(4, 4, 8, 8, 8, 0)

template <class T>
__global__ void __launch_bounds__(T::THREADS)
matmul_blocked_for(const float *a, const float *b, float *c, unsigned m,
                   unsigned k, unsigned n)
{
    mm_blocked<T>(a, b, c, m, k, n);
}

#define IS_TILE(TM, TN, TK, WX, WY, PAD, t)                                  \
    ((t)->tm == TM && (t)->tn == TN && (t)->tk == TK && (t)->wx == WX &&     \
     (t)->wy == WY && (t)->pad == PAD)

#define CUBLAS_TRY(call)                                                     \
    do {                                                                     \
        cublasStatus_t cublas_try_status_ = (call);                          \
        if (cublas_try_status_ != CUBLAS_STATUS_SUCCESS) {                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    cublasGetStatusString(cublas_try_status_));              \
            return -1;                                                       \
        }                                                                    \
    } while (0)

/* One product on the device: its buffers, at the sizes the kernel sees
 * (blocked's padded), and what times it. */
struct device_product {
    matmul_cuda_version version;
    matmul_cuda_tile tile;
    uint32_t m, k, n;
    float *a, *b, *c;
    cudaEvent_t start, stop;
    cublasHandle_t cublas;
};

/* naive's and tiled's blocks: the seed's 16 x 16 (matmul_cl.c's
 * SEED_GROUP; tiled's must match its tile, MM_TS). */
enum { SEED_GROUP = 16 };

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

extern "C" int matmul_cuda_has_tile(const matmul_cuda_tile *t)
{
#define HAS_TILE(TM, TN, TK, WX, WY, PAD)                                    \
    if (IS_TILE(TM, TN, TK, WX, WY, PAD, t))                                 \
        return 1;
    MATMUL_CUDA_TILES(HAS_TILE)
#undef HAS_TILE
    return 0;
}

/* The blocked kernel compiled for d's tile, on its grid. */
static int launch_blocked(const device_product *d)
{
    const matmul_cuda_tile *t = &d->tile;
    dim3 grid(d->n / (t->tn * t->wx), d->m / (t->tm * t->wy));
    dim3 block(t->wx, t->wy);
#define LAUNCH_TILE(TM, TN, TK, WX, WY, PAD)                                 \
    if (IS_TILE(TM, TN, TK, WX, WY, PAD, t)) {                               \
        matmul_blocked_for<mm_tile<TM, TN, TK, WX, WY, PAD>>                 \
            <<<grid, block>>>(d->a, d->b, d->c, d->m, d->k, d->n);           \
        return 0;                                                            \
    }
    MATMUL_CUDA_TILES(LAUNCH_TILE)
#undef LAUNCH_TILE
    fprintf(stderr, "matmul_cuda_run: no blocked kernel for tile "
            "%ux%ux%ux%ux%ux%u (matmul_cuda_has_tile)\n", t->tm, t->tn, t->tk,
            t->wx, t->wy, t->pad);
    return -1;
}

/* C = A B on row-major arrays, to cuBLAS's column-major eyes C^T = B^T A^T:
 * the operands swapped, nothing transposed. Its default math mode is
 * plain FP32 (TF32 tensor cores only when asked for). */
static int launch_cublas(const device_product *d)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_TRY(cublasSgemm(d->cublas, CUBLAS_OP_N, CUBLAS_OP_N, (int)d->n,
                           (int)d->m, (int)d->k, &one, d->b, (int)d->n,
                           d->a, (int)d->k, &zero, d->c, (int)d->n));
    return 0;
}

/* One launch of d's twin, its errors checked. */
static int launch(const device_product *d)
{
    dim3 group(SEED_GROUP, SEED_GROUP);
    dim3 grid((d->n + SEED_GROUP - 1) / SEED_GROUP,
              (d->m + SEED_GROUP - 1) / SEED_GROUP);
    int rc = 0;
    switch (d->version) {
    case MATMUL_CUDA_NAIVE:
        matmul_naive<<<grid, group>>>(d->a, d->b, d->c, d->m, d->k, d->n);
        break;
    case MATMUL_CUDA_TILED:
        matmul_tiled<<<grid, group>>>(d->a, d->b, d->c, d->m, d->k, d->n);
        break;
    case MATMUL_CUDA_BLOCKED:
        rc = launch_blocked(d);
        break;
    case MATMUL_CUDA_CUBLAS:
        rc = launch_cublas(d);
        break;
    }
    CUDA_TRY(cudaGetLastError());
    return rc;
}

/* An experiment's switch (bench/cuda/README.md): CUDA_TWIN_CARVEOUT=P
 * asks for P % of each multiprocessor's memory as shared memory when the
 * tiled twin runs (cudaFuncAttributePreferredSharedMemoryCarveout, 0 to
 * 100), where CUDA otherwise chooses; its resident blocks per
 * multiprocessor, as the occupancy API counts them, go to stderr. */
static int apply_tiled_carveout(void)
{
    const char *p = getenv("CUDA_TWIN_CARVEOUT");
    if (!p)
        return 0;
    int percent = atoi(p), blocks = 0;
    if (percent < 0 || percent > 100) {
        fprintf(stderr, "CUDA_TWIN_CARVEOUT=%s: expected 0 to 100\n", p);
        return -1;
    }
    CUDA_TRY(cudaFuncSetAttribute(
        matmul_tiled, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, matmul_tiled, SEED_GROUP * SEED_GROUP, 0));
    fprintf(stderr, "CUDA_TWIN_CARVEOUT=%d: matmul_tiled, %d resident blocks "
            "per multiprocessor\n", percent, blocks);
    return 0;
}

/* d's buffers, events and cuBLAS handle. */
static int allocate(device_product *d)
{
    if (d->version == MATMUL_CUDA_TILED && apply_tiled_carveout())
        return -1;
    CUDA_TRY(cudaMalloc(&d->a, (size_t)d->m * d->k * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d->b, (size_t)d->k * d->n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d->c, (size_t)d->m * d->n * sizeof(float)));
    CUDA_TRY(cudaEventCreate(&d->start));
    CUDA_TRY(cudaEventCreate(&d->stop));
    if (d->version == MATMUL_CUDA_CUBLAS) {
        CUBLAS_TRY(cublasCreate(&d->cublas));
        CUBLAS_TRY(cublasSetMathMode(d->cublas, CUBLAS_DEFAULT_MATH));
    }
    return 0;
}

static void release(device_product *d)
{
    if (d->cublas)
        cublasDestroy(d->cublas);
    if (d->start)
        cudaEventDestroy(d->start);
    if (d->stop)
        cudaEventDestroy(d->stop);
    cudaFree(d->a);
    cudaFree(d->b);
    cudaFree(d->c);
}

/* rows x cols floats of host (row stride cols) into the top left corner
 * of dst, whose rows are d_cols floats: the rest zero. */
static int copy_in(float *dst, size_t d_rows, size_t d_cols, const float *src,
                   size_t rows, size_t cols)
{
    if (d_rows != rows || d_cols != cols)
        CUDA_TRY(cudaMemset(dst, 0, d_rows * d_cols * sizeof(float)));
    CUDA_TRY(cudaMemcpy2D(dst, d_cols * sizeof(float), src,
                          cols * sizeof(float), cols * sizeof(float), rows,
                          cudaMemcpyHostToDevice));
    return 0;
}

/* a, b in; 1 + runs timed launches into ms; c out. */
static int run(device_product *d, const float *a, const float *b, float *c,
               uint32_t m, uint32_t k, uint32_t n, int runs, double *ms)
{
    if (allocate(d) || copy_in(d->a, d->m, d->k, a, m, k) ||
        copy_in(d->b, d->k, d->n, b, k, n))
        return -1;
    for (int i = 0; i <= runs; i++) {
        CUDA_TRY(cudaEventRecord(d->start));
        if (launch(d))
            return -1;
        CUDA_TRY(cudaEventRecord(d->stop));
        if (cuda_elapsed_ms(d->start, d->stop, &ms[i]))
            return -1;
    }
    CUDA_TRY(cudaMemcpy2D(c, n * sizeof(float), d->c, d->n * sizeof(float),
                          n * sizeof(float), m, cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int matmul_cuda_run(matmul_cuda_version v,
                               const matmul_cuda_tile *tile, const float *a,
                               const float *b, float *c, uint32_t m,
                               uint32_t k, uint32_t n, int runs, double *ms)
{
    device_product d = {};
    d.version = v;
    d.m = m;
    d.k = k;
    d.n = n;
    if (v == MATMUL_CUDA_BLOCKED) {
        if (!tile || !matmul_cuda_has_tile(tile)) {
            fprintf(stderr, "matmul_cuda_run: the blocked twin has no "
                    "kernel for this tile\n");
            return -1;
        }
        d.tile = *tile;
        size_t mp = round_up(m, (size_t)tile->tm * tile->wy);
        size_t kp = round_up(k, tile->tk);
        size_t np = round_up(n, (size_t)tile->tn * tile->wx);
        if (mp > UINT32_MAX || kp > UINT32_MAX || np > UINT32_MAX) {
            fprintf(stderr, "matmul_cuda_run: %u x %u x %u padded to the "
                    "tile's blocks exceeds 2^32\n", m, k, n);
            return -1;
        }
        d.m = (uint32_t)mp;
        d.k = (uint32_t)kp;
        d.n = (uint32_t)np;
    }
    int rc = run(&d, a, b, c, m, k, n, runs, ms);
    release(&d);
    return rc;
}
