/*
 * cuda_check.h: what every CUDA twin's host code shares: a runtime call
 * checked once (CUDA_TRY: a message naming the call, file and line, and the
 * function returns -1), and a kernel's time from a pair of events.
 */
#ifndef BENCH_CUDA_CHECK_H
#define BENCH_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>

#define CUDA_TRY(call)                                                       \
    do {                                                                     \
        cudaError_t cuda_try_err_ = (call);                                  \
        if (cuda_try_err_ != cudaSuccess) {                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorString(cuda_try_err_));                      \
            return -1;                                                       \
        }                                                                    \
    } while (0)

/* Milliseconds between two recorded events, after waiting for the second. */
static inline int cuda_elapsed_ms(cudaEvent_t start, cudaEvent_t stop,
                                  double *ms)
{
    float f = 0;
    CUDA_TRY(cudaEventSynchronize(stop));
    CUDA_TRY(cudaEventElapsedTime(&f, start, stop));
    *ms = f;
    return 0;
}

#endif
