/*
 * laplace_cuda.cu: the seed's Laplace solver, the CUDA twins of
 * apps/laplace's laplace_seed_update then laplace_seed_copy each Jacobi
 * iteration, on the seed's problem (the app's default: border at 0, a
 * centred conductor a quarter of each side at 1), through the CUDA runtime
 * API: the CUDA one of the three host programs per workload, whose lines
 * bench/cuda/effort/count compares. It prints the kernels' time (a pair of
 * events around the loop) and checks the potential bit for bit against the
 * app's C reference (the grid and the reference are apps/laplace's helpers,
 * shared by the three programs and not counted; their library holds the
 * app's OpenCL versions too, hence clframe and OpenCL on the link line).
 * -fmad=false as the OpenCL file's FP_CONTRACT OFF. From the repository's
 * root, after make:
 *
 *   nvcc -O3 -arch=sm_90 -fmad=false -Iapps -o bin/effort-laplace-cuda apps/laplace/cuda/effort/laplace_cuda.cu build/liblaplace.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -lgomp && bin/effort-laplace-cuda 200 200 100
 */
#include "../laplace_kernels.cuh"

extern "C" {
#include "common/error.h"
#include "laplace/laplace.h"
}

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GROUP_W = 32, GROUP_H = 8 };     /* the app's work-group */

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
    unsigned nx = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
    unsigned ny = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
    int iterations = argc > 3 ? atoi(argv[3]) : 100;
    uint32_t w, h;
    laplace_grid g, ref;
    if (iterations < 0 || !laplace_object_parse("0.25x0.25", nx, ny, &w, &h) ||
        laplace_grid_make(&g, nx, ny, 0.0f, 1.0f, w, h) ||
        laplace_grid_copy(&ref, &g)) {
        fprintf(stderr, "usage: laplace_cuda [nx ny iterations] (%s)\n",
                app_last_error());
        return 2;
    }
    size_t cells = (size_t)nx * ny;
    int *mask = (int *)malloc(cells * sizeof *mask);
    if (!mask) {
        fprintf(stderr, "no memory for %u x %u\n", nx, ny);
        return 1;
    }
    for (size_t i = 0; i < cells; i++)  /* the seed's kernels take ints */
        mask[i] = g.mask[i];

    /* phi and old_phi both start as the grid. */
    float *phi, *old_phi;
    int *dmask;
    CHECK(cudaMalloc(&phi, cells * sizeof *phi));
    CHECK(cudaMalloc(&old_phi, cells * sizeof *old_phi));
    CHECK(cudaMalloc(&dmask, cells * sizeof *dmask));
    CHECK(cudaMemcpy(phi, g.phi, cells * sizeof *phi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(old_phi, g.phi, cells * sizeof *old_phi,
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dmask, mask, cells * sizeof *dmask,
                     cudaMemcpyHostToDevice));

    /* The kernels guard their edges: the grid covers the cells rounded up. */
    dim3 block(GROUP_W, GROUP_H);
    dim3 grid((nx + GROUP_W - 1) / GROUP_W, (ny + GROUP_H - 1) / GROUP_H);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int t = 0; t < iterations; t++) {
        laplace_seed_update<<<grid, block>>>(phi, old_phi, dmask, nx, ny);
        CHECK(cudaGetLastError());
        laplace_seed_copy<<<grid, block>>>(phi, old_phi, dmask, nx, ny);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaEventRecord(stop));
    CHECK(cudaMemcpy(g.phi, phi, cells * sizeof *phi, cudaMemcpyDeviceToHost));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    laplace_plan plan = {(unsigned)iterations, 0.0f, 1};
    int ok = laplace_solve(&ref, &plan, LAPLACE_REFERENCE, NULL, NULL) == 0 &&
             memcmp(g.phi, ref.phi, cells * sizeof *g.phi) == 0;
    printf("laplace seed, %u x %u, %d iterations: %.3f ms, %s\n", nx, ny,
           iterations, ms, ok ? "checked" : "WRONG");

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(phi));
    CHECK(cudaFree(old_phi));
    CHECK(cudaFree(dmask));
    free(mask);
    laplace_grid_free(&g);
    laplace_grid_free(&ref);
    return ok ? 0 : 1;
}
