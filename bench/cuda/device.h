/*
 * device.h: the CUDA device every twin runs on, as C sees it. The
 * benchmark programs are C, like the rest of clframe; only the twins
 * (bench/cuda/NAME.cu) are CUDA, each with a header of C entry points like
 * this one. Every entry point returns 0, or -1 after printing what failed.
 */
#ifndef BENCH_CUDA_DEVICE_H
#define BENCH_CUDA_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA device's name, compute capability and driver version, into buf. */
int cuda_describe(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
