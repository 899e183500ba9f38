/*
 * laplace.h (bench/cuda): the CUDA twins of apps/laplace's OpenCL versions
 * seed, double and fast, as C sees them (laplace.cu runs them, on
 * laplace_kernels.cuh). Iterations only, a fixed count: the tolerance
 * checks have no twin. Every entry point returns 0, or -1 after printing
 * what failed.
 */
#ifndef BENCH_CUDA_LAPLACE_H
#define BENCH_CUDA_LAPLACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The twins, each the kernels of the OpenCL version it is named after;
 * double has one per update kernel of laplace.cl, as the app picks them
 * per device (laplace_double_kernel). */
typedef enum laplace_cuda_twin {
    LAPLACE_CUDA_SEED,          /* laplace_seed_update + laplace_seed_copy */
    LAPLACE_CUDA_DOUBLE_CELL,   /* laplace_update */
    LAPLACE_CUDA_DOUBLE_COLUMN, /* laplace_update_column */
    LAPLACE_CUDA_DOUBLE_FLOAT4, /* laplace_update4 */
    LAPLACE_CUDA_FAST           /* laplace_tiled, up to its halo per launch */
} laplace_cuda_twin;


/* Iterates the nx x ny grid phi (row by row; mask 1 where a cell is free,
 * 0 where fixed, the border fixed) `iterations` times on the device with
 * `twin`, launching as the OpenCL version does, and writes the result over
 * phi. *kernel_ms: the sum of every launch's time between a pair of
 * events around it, as the OpenCL versions sum their launches' profiling
 * times. nx and ny from 3 to 65536. */
int laplace_cuda_solve(float *phi, const uint8_t *mask, uint32_t nx,
                       uint32_t ny, unsigned iterations,
                       laplace_cuda_twin twin, double *kernel_ms);

/* The fast twin's tile, built in, as "WxHxHALOxVXxPYxCOPIES" (the app's
 * LAPLACE_TILE with every field, laplace_fast_tile). */
void laplace_cuda_tile(char *name, size_t size);

#ifdef __cplusplus
}
#endif

#endif
