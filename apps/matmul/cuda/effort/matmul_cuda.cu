/*
 * matmul_cuda.cu: C = A x B for n x n floats by the CUDA twin of
 * apps/matmul's tiled kernel (matmul_tiled, 16 x 16 blocks), through the
 * CUDA runtime API: the CUDA one of the three host programs per workload,
 * whose lines bench/cuda/effort/count compares. It prints the kernel's time
 * from a pair of events and checks C with the app's matmul_compare (the
 * input and the check are apps/matmul's helpers, shared by the three
 * programs and not counted; their library holds the app's OpenCL versions
 * too, hence clframe and OpenCL on the link line). From the repository's
 * root, after make:
 *
 *   nvcc -O3 -arch=sm_90 -Iapps -o bin/effort-matmul-cuda apps/matmul/cuda/effort/matmul_cuda.cu build/libmatmul.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -lgomp && bin/effort-matmul-cuda 512
 */
#include "../matmul_kernels.cuh"

extern "C" {
#include "matmul/matmul.h"
}

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorString(err_));                               \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 512;
    if (n < 1 || n > 16384) {
        fprintf(stderr, "usage: matmul_cuda [n=512 (1 to 16384)]\n");
        return 2;
    }
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes),
          *c = (float *)malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "no memory for n = %u\n", n);
        return 1;
    }
    uint32_t seed = 1;
    matmul_random_fill(a, (size_t)n * n, &seed);
    matmul_random_fill(b, (size_t)n * n, &seed);

    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));

    /* The kernel guards its edges: the grid covers n rounded up. */
    dim3 block(MM_TS, MM_TS);
    dim3 grid((n + MM_TS - 1) / MM_TS, (n + MM_TS - 1) / MM_TS);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    matmul_tiled<<<grid, block>>>(da, db, dc, n, n, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    long wrong = matmul_compare(a, b, c, n, n, n, NULL);
    printf("matmul_tiled, n = %u: %.3f ms, %.1f GFLOP/s, %s\n", n, ms,
           2.0 * n * n * n / ms * 1e-6, wrong ? "WRONG" : "checked");
    if (wrong)
        printf("elements beyond their bound: %ld\n", wrong);

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    free(a);
    free(b);
    free(c);
    return wrong ? 1 : 0;
}
