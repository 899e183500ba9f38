/*
 * device.h: the CUDA device every twin runs on, as C sees it. The
 * benchmark programs are C, like the rest of clframe; only the twins
 * (the .cu files of bench/cuda) are CUDA, each with a header of C entry
 * points like this one. Every entry point returns 0, or -1 after printing what failed.
 */
#ifndef BENCH_CUDA_DEVICE_H
#define BENCH_CUDA_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the CUDA device for the twins: 1, with its name, compute
 * capability and driver version in text; 0 when there is none, with text
 * saying why (the programs then run the OpenCL side alone); -1 after
 * printing what failed. */
int cuda_open(char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
