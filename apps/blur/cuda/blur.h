/*
 * blur.h: the CUDA twins of apps/blur's device versions (seed, double,
 * fast; kernels in blur_kernels.cuh), as C sees them: an image in, the
 * same image blurred, and the summed time of the kernels that did it.
 * Every entry point returns 0, or -1 after printing what failed.
 */
#ifndef BENCH_CUDA_BLUR_H
#define BENCH_CUDA_BLUR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The twins, named after the app's versions they mirror. */
typedef enum blur_cuda_version {
    BLUR_CUDA_SEED,     /* int R, G, B planes: blur + copy-back kernels */
    BLUR_CUDA_DOUBLE,   /* packed RGBA8, two buffers, one kernel per pass */
    BLUR_CUDA_FAST      /* up to blur_cuda_passes_per_launch() passes per
                         * launch in shared-memory tiles */
} blur_cuda_version;

/* How many passes the fast twin makes per launch (its tiles' halo), for
 * checking against the app's blur_fast_passes_per_launch(). */
unsigned blur_cuda_passes_per_launch(void);

/* Blurs a width x height image of 8-bit RGBA pixels (rgba, row by row;
 * 1 to 2^28 pixels) in place by `passes` passes of twin v, on the current
 * CUDA device. The image goes up once and comes down once; *kernel_ms is
 * the sum of its kernels' times, each launch timed by a pair of events
 * (upload and download excluded), and *launches how many there were. */
int blur_cuda_run(uint8_t *rgba, uint32_t width, uint32_t height,
                  unsigned passes, blur_cuda_version v, double *kernel_ms,
                  unsigned *launches);

#ifdef __cplusplus
}
#endif

#endif
