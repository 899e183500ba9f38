/*
 * matmul.h: the CUDA twins of apps/matmul's OpenCL versions, as C sees
 * them (apps/matmul/cuda/matmul.cu; the kernels are apps/matmul/cuda/matmul_kernels.cuh),
 * and cuBLAS's SGEMM, the twin of CLBlast's. Row-major floats, C = A x B,
 * A m x k, B k x n. Every entry point returns 0, or -1 after printing
 * what failed.
 */
#ifndef BENCH_CUDA_MATMUL_H
#define BENCH_CUDA_MATMUL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum matmul_cuda_version {
    MATMUL_CUDA_NAIVE,      /* matmul_naive, 16 x 16 blocks */
    MATMUL_CUDA_TILED,      /* matmul_tiled, 16 x 16 shared tiles */
    MATMUL_CUDA_BLOCKED,    /* matmul_blocked for a tile (below) */
    MATMUL_CUDA_CUBLAS      /* cublasSgemm */
} matmul_cuda_version;

/* The blocked twin's tile, field for field apps/matmul's matmul_tile. */
typedef struct matmul_cuda_tile {
    unsigned tm, tn, tk, wx, wy, pad;
} matmul_cuda_tile;


/* 1 if the blocked twin was compiled for tile: the tiles of the app's
 * tuner (matmul_tune.c's candidates, both defaults among them). */
int matmul_cuda_has_tile(const matmul_cuda_tile *tile);

/* c = a x b by twin v (tile: blocked's, else ignored) on the CUDA device:
 * a and b copied in (blocked: into zeroed arrays padded to multiples of
 * its block, as the app pads), the kernel launched 1 + runs times, c
 * copied out. ms[i] gets launch i's time from a pair of events around it
 * (runs + 1 of them, the warm-up first). */
int matmul_cuda_run(matmul_cuda_version v, const matmul_cuda_tile *tile,
                    const float *a, const float *b, float *c, uint32_t m,
                    uint32_t k, uint32_t n, int runs, double *ms);

#ifdef __cplusplus
}
#endif

#endif
